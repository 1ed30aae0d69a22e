/**
 * AIPerf's `raw_payload` format: complete API request bodies, replayed verbatim.
 *
 * - A file: each non-empty line is one request body and one single-turn conversation.
 * - A directory: each `*.jsonl` file (sorted by name; other files ignored) is one conversation, its lines the turns
 *   in order; files without records are skipped.
 *
 * Every line must be a JSON object with a `messages` list; everything else in it (model, max_tokens, tools, stream…)
 * is the user's. The line's text is sent byte for byte (only surrounding whitespace is trimmed): no endpoint
 * formatting, no `--extra-inputs`, no history added — each line already carries the conversation so far
 * (`message_array_with_responses`). Conversation ids are `raw_<n>` in order.
 *
 * Detection (first record of a file, first `.jsonl` file of a directory): a `messages` list, and neither a
 * `conversation_id` key (agentic trajectories) nor a `data` list (an inputs.json); such payloads need
 * `--custom-dataset-type raw_payload`.
 */
import type { Conversation, Dataset, Turn } from "./conversation.ts";
import { DatasetError } from "./dataset_error.ts";
import type { DatasetLoader, LoaderContext } from "./dataset_loader.ts";
import { isSpeedBenchRow } from "./speed_bench_loader.ts";
import {
  describeJson,
  firstJsonRecord,
  isObject,
  type JsonRecord,
  readJsonRecords,
  recordError,
} from "./json_record.ts";
import { jsonlFilesIn } from "./dataset_dir.ts";
import { RAW_PAYLOAD_FORMAT } from "./dataset_formats.ts";

export const RAW_PAYLOAD = RAW_PAYLOAD_FORMAT.name;

/** Whether a first record looks like a raw chat payload (AIPerf's detection and rejection rules). */
export function canLoadRawPayload(record: unknown): boolean {
  if (!isObject(record)) return false;
  if (!Array.isArray(record.messages)) return false;
  if ("conversation_id" in record) return false;
  // A SPEED-Bench row has messages too; it is that format's (as AIPerf decides).
  if (isSpeedBenchRow(record)) return false;
  return !Array.isArray(record.data);
}

function rawTurn(path: string, at: JsonRecord): Turn {
  if (!isObject(at.record)) {
    throw recordError(path, at, `expected a JSON object (a request body) but got ${describeJson(at.record)}`);
  }
  if (!Array.isArray(at.record.messages)) {
    throw recordError(
      path,
      at,
      `expected a "messages" list in every raw payload (got ${describeJson(at.record.messages)})`,
    );
  }
  return { texts: [], rawPayload: at.text.trim() };
}

async function fileTurns(path: string, signal: AbortSignal | undefined): Promise<Turn[]> {
  const turns: Turn[] = [];
  for await (const at of readJsonRecords(path, { signal })) turns.push(rawTurn(path, at));
  return turns;
}

export async function loadRawPayload(path: string, ctx?: LoaderContext): Promise<Dataset> {
  const conversations: Conversation[] = [];
  const add = (turns: Turn[]) =>
    conversations.push({ id: `raw_${conversations.length}`, turns, contextMode: "message_array_with_responses" });
  if ((await Deno.stat(path)).isDirectory) {
    const files = await jsonlFilesIn(path);
    if (files.length === 0) {
      throw new DatasetError(path, undefined, "is a directory with no .jsonl files; put one conversation per file");
    }
    for (const file of files) {
      const turns = await fileTurns(file, ctx?.signal);
      if (turns.length > 0) add(turns);
    }
    if (conversations.length === 0) {
      throw new DatasetError(path, undefined, "holds only empty .jsonl files; write one request body per line");
    }
  } else {
    for (const turn of await fileTurns(path, ctx?.signal)) add([turn]);
    if (conversations.length === 0) {
      throw new DatasetError(path, undefined, "has no records; write one request body (JSON object) per line");
    }
  }
  return { conversations, defaultSampling: "sequential", source: "file", format: RAW_PAYLOAD };
}

export const rawPayloadLoader: DatasetLoader = {
  ...RAW_PAYLOAD_FORMAT,
  canLoad: canLoadRawPayload,
  async canLoadDirectory(dir: string): Promise<boolean> {
    for (const file of await jsonlFilesIn(dir)) {
      const first = await firstJsonRecord(file).catch(() => undefined);
      if (first !== undefined) return canLoadRawPayload(first.record);
    }
    return false;
  },
  load: loadRawPayload,
};
