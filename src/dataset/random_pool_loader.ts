/**
 * AIPerf's `random_pool` format: pools of prompts that requests are drawn from at random.
 *
 * - A file is one pool; a directory is one pool per file (sorted by name, e.g. `queries.jsonl` + `passages.jsonl`).
 * - Each line is a single_turn-like entry with `text` or `texts` (no `session_id`, `delay` or `timestamp`: a pool
 *   has no sessions or timing).
 * - `--conversation-num` (default 100) one-turn conversations are built: conversation i takes one entry drawn from
 *   each pool (uniformly, with replacement) and sends their texts together. With `--prompt-batch-size` B ≠ 1 the
 *   texts of every pool are flattened into one and each conversation draws B texts (directories are rejected
 *   then, as AIPerf does, since batching would merge the named pools).
 * - Draws come from the `random_pool` stream of `--random-seed`; the default sampling is `shuffle`.
 *
 * Detection never picks this format from a file (a pool line looks like a single_turn line): a file needs
 * `--custom-dataset-type random_pool` or `"type": "random_pool"` on its first line; a directory whose first file's
 * first line is a text entry is detected.
 */
import type { Conversation, Dataset } from "./conversation.ts";
import { DatasetError } from "./dataset_error.ts";
import type { DatasetLoader, LoaderContext } from "./dataset_loader.ts";
import { field, firstJsonRecord, isObject, readJsonRecords, recordError } from "./json_record.ts";
import { parseSingleTurnRecord, SINGLE_TURN_FIELDS } from "./single_turn_loader.ts";
import { UnknownFields } from "./unknown_fields.ts";
import { SeededRandom } from "../base/seeded_random.ts";
import { RANDOM_POOL_FORMAT } from "./dataset_formats.ts";

export const RANDOM_POOL = RANDOM_POOL_FORMAT.name;
/** Conversations built when `--conversation-num` is not given (AIPerf). */
export const DEFAULT_POOL_CONVERSATIONS = 100;

const NOT_IN_A_POOL = ["session_id", "delay", "timestamp"] as const;

function isPoolEntry(record: unknown): boolean {
  return isObject(record) && (field(record, "text") !== undefined || field(record, "texts") !== undefined);
}

export function canLoadRandomPool(record: unknown): boolean {
  return isObject(record) && field(record, "type") === RANDOM_POOL && isPoolEntry(record);
}

async function readPool(path: string, ctx: LoaderContext | undefined): Promise<string[][]> {
  const signal = ctx?.signal;
  const fields = new UnknownFields(RANDOM_POOL, SINGLE_TURN_FIELDS, { strict: ctx?.strict, warn: ctx?.warn });
  const entries: string[][] = [];
  for await (const at of readJsonRecords(path, { signal })) {
    const record = at.record;
    if (isObject(record)) {
      const type = field(record, "type");
      if (type !== undefined && type !== RANDOM_POOL) {
        throw recordError(path, at, `"type" is ${JSON.stringify(type)} but this file is read as ${RANDOM_POOL}`);
      }
      for (const name of NOT_IN_A_POOL) {
        if (field(record, name) !== undefined) {
          throw recordError(
            path,
            at,
            `"${name}" has no meaning in a random pool; use single_turn for sessions and timing`,
          );
        }
      }
    }
    const stripped = isObject(record) ? { ...record, type: undefined } : record;
    try {
      entries.push([...parseSingleTurnRecord(stripped, path, at.line, fields).turn.texts]);
    } catch (error) {
      if (error instanceof DatasetError) throw recordError(path, at, error.reason);
      throw error;
    }
  }
  if (entries.length === 0) throw new DatasetError(path, undefined, "has no records; write one prompt entry per line");
  return entries;
}

export async function loadRandomPool(path: string, ctx?: LoaderContext): Promise<Dataset> {
  const pools: string[][][] = [];
  if ((await Deno.stat(path)).isDirectory) {
    const files: string[] = [];
    for await (const entry of Deno.readDir(path)) if (entry.isFile) files.push(entry.name);
    files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (files.length === 0) throw new DatasetError(path, undefined, "is an empty directory; put one pool file in it");
    const base = path.endsWith("/") ? path : path + "/";
    for (const name of files) pools.push(await readPool(base + name, ctx));
  } else {
    pools.push(await readPool(path, ctx));
  }
  const count = ctx?.conversationNum ?? DEFAULT_POOL_CONVERSATIONS;
  const batch = ctx?.batchSize ?? 1;
  if (!Number.isInteger(count) || count < 1) {
    throw new RangeError(`--conversation-num must be a positive integer for random_pool, got ${count}`);
  }
  const rng = (ctx?.rng ?? new SeededRandom(0)).derive(RANDOM_POOL);
  const conversations: Conversation[] = [];
  if (batch !== 1) {
    if (pools.length > 1) {
      throw new DatasetError(
        path,
        undefined,
        `--prompt-batch-size ${batch} would merge the directory's named pools into one; use one pool file, or a ` +
          "batch size of 1",
      );
    }
    const flat = pools[0].flat();
    for (let i = 0; i < count; i++) {
      const texts = Array.from({ length: batch }, () => flat[rng.int(flat.length)]);
      conversations.push({ id: `pool_${i}`, turns: [{ texts }] });
    }
  } else {
    for (let i = 0; i < count; i++) {
      const texts = pools.flatMap((pool) => pool[rng.int(pool.length)]);
      conversations.push({ id: `pool_${i}`, turns: [{ texts }] });
    }
  }
  return { conversations, defaultSampling: "shuffle", source: "file", format: RANDOM_POOL };
}

export const randomPoolLoader: DatasetLoader = {
  ...RANDOM_POOL_FORMAT,
  canLoad: canLoadRandomPool,
  async canLoadDirectory(dir: string): Promise<boolean> {
    const names: string[] = [];
    for await (const entry of Deno.readDir(dir)) if (entry.isFile) names.push(entry.name);
    names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const base = dir.endsWith("/") ? dir : dir + "/";
    for (const name of names) {
      const first = await firstJsonRecord(base + name).catch(() => undefined);
      if (first !== undefined) {
        return isPoolEntry(first.record) && !Array.isArray((first.record as { messages?: unknown }).messages);
      }
    }
    return false;
  },
  load: loadRandomPool,
};
