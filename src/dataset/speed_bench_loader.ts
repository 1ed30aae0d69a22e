/**
 * NVIDIA SPEED-Bench (speculative decoding benchmark) JSONL files, as AIPerf 0.13 reads them: one family of 32
 * `--custom-dataset-type`s over one row shape,
 *
 * ```jsonl
 * {"question_id": "<32 characters>", "category": "coding", "messages": [{"role": "user", "content": "…"}]}
 * ```
 *
 * - `speed_bench_qualitative` (file `qualitative.jsonl`, 880 rows) and one type per qualitative category (coding,
 *   humanities, math, multilingual, qa, rag, reasoning, roleplay, stem, summarization, writing: 80 rows each);
 * - `speed_bench_throughput_{1k,2k,8k,16k,32k}` (files `throughput_<n>k.jsonl`) and one type per entropy tier of each
 *   (`…_low_entropy`, `…_mixed`, `…_high_entropy`).
 *
 * A category type keeps only the rows of its category (none left is said in the description). Each row is one
 * conversation named by its `question_id`; each message is a turn with its role, in order — a leading system message
 * included (a SPEED-Bench prompt is fixed, so it is not hoisted into a system prompt). A row whose content is the
 * placeholder the Hugging Face copy ships ("FULL BENCHMARK DATA SHOULD BE FETCHED …") is refused: the prompts come from
 * NVIDIA's specdec_bench tool. Auto-detection claims a file only by its split's file name and only for the split-wide
 * type; a category type is chosen with `--custom-dataset-type`.
 */
import type { Conversation, Dataset, Turn } from "./conversation.ts";
import { DatasetError } from "./dataset_error.ts";
import type { DatasetLoader } from "./dataset_loader.ts";
import { SPEED_BENCH_SPECS, type SpeedBenchSpec } from "./dataset_formats.ts";
import { describeJson, isObject, type JsonRecord, readJsonRecords, recordError } from "./json_record.ts";

const PLACEHOLDER = "FULL BENCHMARK DATA SHOULD BE FETCHED FROM THE SOURCE USING SPECDEC_BENCH";

/** Why a record is not a SPEED-Bench row, or undefined when it is one. */
function rowProblem(record: unknown): string | undefined {
  if (!isObject(record)) return `expected a JSON object (got ${describeJson(record)})`;
  const id = record.question_id;
  if (typeof id !== "string" || id.length !== 32) {
    return `"question_id" must be a 32-character string (got ${describeJson(id)})`;
  }
  if (typeof record.category !== "string" || record.category.length === 0) {
    return `"category" must be a non-empty string (got ${describeJson(record.category)})`;
  }
  const messages = record.messages;
  if (!Array.isArray(messages) || messages.length === 0) {
    return `"messages" must be a non-empty list of {"role", "content"} objects (got ${describeJson(messages)})`;
  }
  for (const [i, m] of messages.entries()) {
    if (!isObject(m) || typeof m.role !== "string" || m.role.trim() === "") {
      return `"messages"[${i}] needs a non-empty "role"`;
    }
    if (typeof m.content !== "string" || m.content.trim() === "") {
      return `"messages"[${i}] needs a non-empty "content" string`;
    }
    if (m.content === PLACEHOLDER) {
      return `"messages"[${i}] is the placeholder of the Hugging Face copy; fetch the full prompts with NVIDIA's ` +
        "specdec_bench (its SPEED-Bench preparation script) and point --input-file at that file";
    }
  }
  return undefined;
}

/** Whether a parsed line has SPEED-Bench's row shape (other formats' detection leaves such rows alone, as AIPerf). */
export function isSpeedBenchRow(record: unknown): boolean {
  return rowProblem(record) === undefined;
}

function conversationOf(path: string, at: JsonRecord): Conversation {
  const problem = rowProblem(at.record);
  if (problem !== undefined) throw recordError(path, at, problem);
  const row = at.record as { question_id: string; messages: { role: string; content: string }[] };
  const turns = row.messages.map((m): Turn => ({ texts: [m.content], role: m.role }));
  return { id: row.question_id, turns };
}

async function loadSpeedBench(spec: SpeedBenchSpec, path: string): Promise<Dataset> {
  const byId = new Map<string, { id: string; turns: Turn[] }>();
  let rows = 0;
  for await (const at of readJsonRecords(path)) {
    rows++;
    const conversation = conversationOf(path, at);
    if (spec.category !== undefined && (at.record as { category: string }).category !== spec.category) continue;
    // Rows sharing a question_id are one conversation, their turns in file order (as AIPerf groups them).
    const existing = byId.get(conversation.id);
    if (existing === undefined) byId.set(conversation.id, { id: conversation.id, turns: [...conversation.turns] });
    else existing.turns.push(...conversation.turns);
  }
  if (rows === 0) {
    throw new DatasetError(
      path,
      undefined,
      'has no records; write one SPEED-Bench row ({"question_id", ...}) per line',
    );
  }
  if (byId.size === 0) {
    throw new DatasetError(
      path,
      undefined,
      `has no rows of category "${spec.category}" (${rows} rows read); check that ${spec.name} fits this file`,
    );
  }
  const conversations: Conversation[] = [...byId.values()];
  return { conversations, defaultSampling: "sequential", source: "file", format: spec.name };
}

function fileName(path: string): string {
  return path.replace(/\\/g, "/").split("/").pop() ?? path;
}

function speedBenchLoader(spec: SpeedBenchSpec): DatasetLoader {
  return {
    name: spec.name,
    description: spec.description,
    // Only the split-wide type claims its file: a category type is asked for by name.
    canLoad: (record, path) =>
      spec.category === undefined && path !== undefined && fileName(path) === spec.splitFile &&
      isSpeedBenchRow(record),
    load: (path) => loadSpeedBench(spec, path),
    describe: (dataset) => {
      const turns = dataset.conversations.reduce((n, c) => n + c.turns.length, 0);
      return `${dataset.conversations.length} prompts (${turns} turns)` +
        (spec.category === undefined ? "" : `, category ${spec.category}`);
    },
  };
}

/** The 32 SPEED-Bench types, in AIPerf's order (qualitative and its categories, then each throughput split). */
export const SPEED_BENCH_LOADERS: readonly DatasetLoader[] = SPEED_BENCH_SPECS.map(speedBenchLoader);
