/**
 * Seeded fuzzing of the dataset loaders through `loadDataset`, as a user's file reaches them: the example files of
 * every format, mutated byte by byte and value by value (huge, negative, fractional, wrongly typed, deeply nested
 * values), each loaded by detection and by every named format. Properties: every case ends within a time limit;
 * it yields a dataset or an `InputError` whose message starts with the file (and names a line inside the file
 * when it gives one) — never another kind of error. Used by the suite (small budgets) and scripts/fuzz/.
 */
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { loadDataset } from "../../src/dataset/load_dataset.ts";
import { DatasetError } from "../../src/dataset/dataset_error.ts";
import { DATASET_LOADERS } from "../../src/dataset/dataset_loaders.ts";
import { InputError } from "../../src/base/input_error.ts";
import { loadBuiltinTokenizer } from "../../src/tokenizer/builtin_tokenizer.ts";
import { fuzzInput, rng } from "../transport/fuzz_cases.ts";

const EXAMPLES = fileURLToPath(new URL("../../datasets/examples/", import.meta.url));
/** Each example file and the format that reads it. */
const SAMPLE_FILES: readonly [string, string][] = [
  ["single_turn.jsonl", "single_turn"],
  ["multi_turn.jsonl", "multi_turn"],
  ["mooncake_trace.jsonl", "mooncake_trace"],
  ["bailian_trace.jsonl", "bailian_trace"],
  ["payloads.jsonl", "raw_payload"],
  ["burst_gpt.csv", "burst_gpt_trace"],
  ["inputs.json", "inputs_json"],
  ["random_pool/queries.jsonl", "random_pool"],
  ["conversations/session_001.jsonl", "raw_payload"],
];

/** Values that have broken loaders elsewhere: out of range, wrong type, huge, odd text. */
const NASTY: readonly unknown[] = [
  0,
  -1,
  0.5,
  -0.0,
  1e12,
  60_000_000,
  10_000_001,
  1e308,
  -1e308,
  2 ** 53 + 2,
  Number.MAX_SAFE_INTEGER,
  "",
  "x",
  "1e12",
  "\u0000\ud800",
  "é€😀".repeat(50),
  null,
  true,
  [],
  [null],
  [1e12],
  [-1, 1e12, 0.5],
  {},
  { text: 1 },
  { role: "user" },
  Array.from({ length: 40 }, (_, i) => i * 1e9),
  JSON.parse("[".repeat(200) + "]".repeat(200)),
];

export interface DatasetFuzzContext {
  readonly dir: string;
  readonly samples: readonly { name: string; format: string; text: string }[];
  readonly tokenizer: Awaited<ReturnType<typeof loadBuiltinTokenizer>>;
}

export async function datasetFuzzContext(dir: string): Promise<DatasetFuzzContext> {
  const samples = await Promise.all(
    SAMPLE_FILES.map(async ([name, format]) => ({ name, format, text: await Deno.readTextFile(join(EXAMPLES, name)) })),
  );
  return { dir, samples, tokenizer: await loadBuiltinTokenizer() };
}

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)];
}

/** A JSON value with one to three of its leaves or members replaced by nasty values (or removed). */
function mutateValue(r: () => number, value: unknown, depth = 0): unknown {
  if (Array.isArray(value)) {
    if (value.length === 0 || r() < 0.1) return pick(r, NASTY);
    const copy = [...value];
    const at = Math.floor(r() * copy.length);
    if (r() < 0.15) copy.splice(at, 1);
    else copy[at] = mutateValue(r, copy[at], depth + 1);
    return copy;
  }
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value);
    if (keys.length === 0 || r() < 0.1) return pick(r, NASTY);
    const copy: Record<string, unknown> = { ...value as Record<string, unknown> };
    const key = pick(r, keys);
    if (r() < 0.15) delete copy[key];
    else copy[key] = mutateValue(r, copy[key], depth + 1);
    return copy;
  }
  return pick(r, NASTY);
}

/** A file's text: a sample mutated as JSON lines (values), as bytes, or both, or whole lines shuffled. */
export function fuzzDatasetText(r: () => number, sample: string, maxLen: number): string {
  const mode = r();
  if (mode < 0.55) {
    const lines = sample.split("\n").map((line) => {
      if (r() < 0.5) return line;
      try {
        return JSON.stringify(mutateValue(r, JSON.parse(line)));
      } catch {
        return line;
      }
    });
    if (r() < 0.2) lines.push(...lines); // duplicate ids, repeated sessions
    return lines.join(r() < 0.1 ? "\r\n" : "\n");
  }
  if (mode < 0.6) {
    try {
      return JSON.stringify(mutateValue(r, JSON.parse(sample)), null, r() < 0.5 ? 2 : undefined);
    } catch {
      return sample;
    }
  }
  return new TextDecoder().decode(fuzzInput(r, [sample], maxLen));
}

/** Engine messages that reach a user only when a loader let a bad value through to the runtime. */
const UNCLEAR =
  /Invalid array length|Maximum call stack|Cannot read propert|is not a function|is not iterable|\[object Object\]|\bundefined\b|\bNaN\b/;

/** Ms a case may take before it counts as a hang. */
const CASE_LIMIT_MS = 5000;

/**
 * Loads `iterations` fuzzed files. Throws naming the seed, case, format and file content on a crash (an error
 * that is not an InputError with a located message) or a hang.
 */
export async function fuzzDatasetLoaders(
  ctx: DatasetFuzzContext,
  seed: number,
  iterations: number,
  maxLen = 4096,
): Promise<{ loaded: number; rejected: number }> {
  const r = rng(seed);
  const names = DATASET_LOADERS.names();
  let loaded = 0;
  let rejected = 0;
  for (let i = 0; i < iterations; i++) {
    const sample = pick(r, ctx.samples);
    const text = fuzzDatasetText(r, sample.text, maxLen);
    // Detected, the sample's own format (deep checks), or any format (wrong-format messages).
    const how = r();
    const type = how < 0.4 ? undefined : how < 0.85 ? sample.format : pick(r, names);
    const file = join(ctx.dir, `case_${seed}_${i}${r() < 0.5 ? ".jsonl" : ".csv"}`);
    await Deno.writeTextFile(file, text);
    const where = () =>
      `seed ${seed} case ${i} (--custom-dataset-type ${type ?? "detected"}) on ${JSON.stringify(text.slice(0, 2000))}`;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const hang = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`hang (over ${CASE_LIMIT_MS} ms)`)), CASE_LIMIT_MS);
    });
    try {
      const dataset = await Promise.race([
        loadDataset({ inputFile: file, customDatasetType: type, tokenizer: ctx.tokenizer, seed }),
        hang,
      ]);
      for (const c of dataset.conversations) {
        if (c.turns.length === 0) throw new Error(`conversation ${c.id} has no turns`);
      }
      loaded++;
    } catch (err) {
      if (!(err instanceof InputError) || !err.message.startsWith(file)) {
        throw new Error(`${where()}: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`, {
          cause: err,
        });
      }
      const reason = err instanceof DatasetError ? err.reason : err.message;
      if (UNCLEAR.test(reason)) throw new Error(`${where()}: unclear message: ${err.message}`);
      if (err instanceof DatasetError && err.line !== undefined) {
        const lines = text.split("\n").length;
        if (!(err.line >= 1 && err.line <= lines)) {
          throw new Error(`${where()}: line ${err.line} is outside the file's ${lines} lines: ${err.message}`);
        }
      }
      rejected++;
    } finally {
      clearTimeout(timer);
      await Deno.remove(file);
    }
  }
  return { loaded, rejected };
}
