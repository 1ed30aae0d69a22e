/**
 * AIPerf's `bailian_trace` JSONL format (Alibaba Qwen Bailian usage traces): one request per line,
 * `{"chat_id": 7, "parent_chat_id": -1, "timestamp": 0.5, "input_length": 40, "output_length": 12, "type": "text",
 * "turn": 1, "hash_ids": [1, 2, 3]}`.
 *
 * `timestamp` is in seconds (→ ms); `parent_chat_id` −1 starts a conversation and other values continue the chain
 * of that chat, so all lines reachable from one root are one conversation, ordered by `turn`. Prompts are
 * synthesized to `input_length` from `hash_ids` blocks of 16 tokens (`--isl-block-size` overrides). `type` is the
 * request type (text, image…), not a dataset format.
 */
import type { Dataset } from "./conversation.ts";
import { DatasetError } from "./dataset_error.ts";
import type { DatasetLoader, LoaderContext } from "./dataset_loader.ts";
import { describeJson, field, isObject, type JsonRecord, readJsonRecords, recordError } from "./json_record.ts";
import { describeTrace, traceConversations, type TraceLine } from "./mooncake_trace_loader.ts";
import { BAILIAN_TRACE_FORMAT } from "./dataset_formats.ts";

export const BAILIAN_TRACE = BAILIAN_TRACE_FORMAT.name;
export const BAILIAN_BLOCK_SIZE = 16;

const INTEGER_FIELDS = ["chat_id", "parent_chat_id", "input_length", "output_length"] as const;

export function canLoadBailianTrace(record: unknown): boolean {
  return isObject(record) && INTEGER_FIELDS.every((k) => Number.isInteger(record[k])) &&
    typeof record.timestamp === "number";
}

interface BailianLine {
  readonly at: JsonRecord;
  readonly chatId: number;
  readonly parent: number;
  readonly turn: number;
  readonly line: TraceLine;
}

function parseLine(path: string, at: JsonRecord): BailianLine {
  const r = at.record;
  if (!isObject(r)) throw recordError(path, at, `expected a JSON object with "chat_id" (got ${describeJson(r)})`);
  for (const k of INTEGER_FIELDS) {
    if (!Number.isInteger(r[k])) throw recordError(path, at, `"${k}" must be an integer (got ${describeJson(r[k])})`);
  }
  const ts = r.timestamp;
  if (typeof ts !== "number" || !(ts >= 0)) {
    throw recordError(path, at, `"timestamp" must be a number of seconds ≥ 0 (got ${describeJson(ts)})`);
  }
  const inputLength = r.input_length as number;
  const outputLength = r.output_length as number;
  if (inputLength < 1) throw recordError(path, at, `"input_length" must be at least 1 (got ${inputLength})`);
  const ids = field(r, "hash_ids") ?? [];
  if (!Array.isArray(ids) || !ids.every((id) => Number.isInteger(id))) {
    throw recordError(path, at, `"hash_ids" must be a list of integers (got ${describeJson(ids)})`);
  }
  const turn = field(r, "turn") ?? 1;
  if (!Number.isInteger(turn)) throw recordError(path, at, `"turn" must be an integer (got ${describeJson(turn)})`);
  return {
    at,
    chatId: r.chat_id as number,
    parent: r.parent_chat_id as number,
    turn: turn as number,
    line: {
      line: at.line,
      turn: { texts: [], timestampMs: ts * 1000, ...(outputLength >= 1 ? { maxTokens: outputLength } : {}) },
      synth: { length: inputLength, hashIds: ids as number[] },
    },
  };
}

export async function loadBailianTrace(path: string, ctx?: LoaderContext): Promise<Dataset> {
  const lines: BailianLine[] = [];
  const byChat = new Map<number, BailianLine>();
  for await (const at of readJsonRecords(path, { signal: ctx?.signal })) {
    const line = parseLine(path, at);
    lines.push(line);
    byChat.set(line.chatId, line);
  }
  if (lines.length === 0) throw new DatasetError(path, undefined, "has no records; write one request per line");
  const root = (line: BailianLine): number => {
    let current = line;
    for (let hops = 0; current.parent !== -1 && hops <= lines.length; hops++) {
      const parent = byChat.get(current.parent);
      if (parent === undefined) return current.chatId; // a chain whose start is outside the trace
      current = parent;
    }
    return current.chatId;
  };
  const sessions = new Map<number, BailianLine[]>();
  for (const line of lines) {
    const key = root(line);
    const list = sessions.get(key);
    if (list === undefined) sessions.set(key, [line]);
    else list.push(line);
  }
  const ordered: TraceLine[] = [];
  for (const [key, list] of sessions) {
    list.sort((a, b) => a.turn - b.turn || a.at.line - b.at.line);
    for (const l of list) ordered.push({ ...l.line, sessionId: `chat_${key}` });
  }
  const conversations = await traceConversations(path, ordered, ctx, BAILIAN_BLOCK_SIZE, "chat_");
  return { conversations, defaultSampling: "sequential", source: "file", format: BAILIAN_TRACE };
}

export const bailianTraceLoader: DatasetLoader = {
  ...BAILIAN_TRACE_FORMAT,
  canLoad: canLoadBailianTrace,
  load: loadBailianTrace,
  describe: describeTrace,
};
