/**
 * Amazon SageMaker Data Capture files (`sagemaker_data_capture`), as AIPerf 0.13 replays them: the JSONL a real-time
 * endpoint writes with data capture on (https://docs.aws.amazon.com/sagemaker/latest/dg/model-monitor-data-capture-endpoint.html),
 * one request per line,
 *
 * ```jsonl
 * {"captureData": {"endpointInput": {"data": "{\"messages\": [...], \"max_tokens\": 64}", "encoding": "JSON"},
 *   "endpointOutput": {"data": "eyJ1c2FnZSI6...", "encoding": "BASE64"}},
 *  "eventMetadata": {"eventId": "…", "inferenceTime": "2024-05-01T12:00:00.125Z"}, "eventVersion": "0"}
 * ```
 *
 * A file, or a directory read recursively (`**\/*.jsonl`, the hourly partitions, sorted by path). Each request body
 * (`data`, JSON text or base64 of it) must be an OpenAI chat body: its `messages` (and `tools`) are sent as captured,
 * its `max_tokens` (else `max_completion_tokens`) is the turn's output cap; the model, streaming and the rest come from
 * the run's options. `inferenceTime` (ISO 8601) is each request's time, aligned so the earliest is 0 and sorted (for
 * `--fixed-schedule`); every request is a conversation of its own. CSV captures are refused.
 */
import type { Conversation, Dataset, Turn } from "./conversation.ts";
import { DatasetError } from "./dataset_error.ts";
import type { DatasetLoader } from "./dataset_loader.ts";
import {
  describeJson,
  firstJsonRecord,
  isObject,
  type JsonRecord,
  readJsonRecords,
  recordError,
} from "./json_record.ts";
import { jsonlFilesUnder } from "./dataset_dir.ts";
import { describeTrace } from "./mooncake_trace_loader.ts";
import { messageText } from "./message_text.ts";
import { SAGEMAKER_DATA_CAPTURE_FORMAT } from "./dataset_formats.ts";

export const SAGEMAKER_DATA_CAPTURE = SAGEMAKER_DATA_CAPTURE_FORMAT.name;

function isCapture(record: unknown): boolean {
  return isObject(record) && "captureData" in record && "eventMetadata" in record;
}

/** A capture entry's body: JSON text, or base64 of it (SageMaker's default encoding). */
function decodeEntry(entry: unknown, what: string): unknown {
  if (!isObject(entry) || entry.data === undefined || entry.data === null) return undefined;
  const encoding = entry.encoding ?? "BASE64";
  if (typeof entry.data !== "string") {
    throw new Error(`${what}.data must be a string (got ${describeJson(entry.data)})`);
  }
  let text: string;
  if (encoding === "JSON") text = entry.data;
  else if (encoding === "BASE64") {
    try {
      text = new TextDecoder().decode(Uint8Array.fromBase64(entry.data));
    } catch {
      throw new Error(`${what}.data is not valid base64`);
    }
  } else if (encoding === "CSV") {
    throw new Error(`${what} is CSV-encoded; only JSON chat bodies can be replayed`);
  } else return undefined;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${what}.data is not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
}

interface Capture {
  readonly at: number;
  readonly turn: Turn;
}

function parseCapture(path: string, rec: JsonRecord): Capture {
  const record = rec.record;
  const fail = (reason: string): never => {
    throw recordError(path, rec, reason);
  };
  if (!isCapture(record)) fail('expected a SageMaker capture record with "captureData" and "eventMetadata"');
  const { captureData, eventMetadata } = record as Record<string, unknown>;
  const meta = isObject(eventMetadata) ? eventMetadata : {};
  const time = meta.inferenceTime;
  if (typeof time !== "string") fail(`"eventMetadata.inferenceTime" is missing (got ${describeJson(time)})`);
  const at = Date.parse(time as string);
  if (!Number.isFinite(at)) fail(`"eventMetadata.inferenceTime" is not an ISO 8601 time: ${JSON.stringify(time)}`);
  if (!isObject(captureData) || !isObject(captureData.endpointInput)) fail('"captureData.endpointInput" is missing');
  let body: unknown;
  try {
    body = decodeEntry((captureData as Record<string, unknown>).endpointInput, "captureData.endpointInput");
  } catch (e) {
    return fail((e as Error).message);
  }
  if (!isObject(body) || !Array.isArray(body.messages)) {
    return fail(
      "the captured request has no 'messages' list; only OpenAI-compatible chat endpoints can be replayed",
    );
  }
  const messages = body.messages as unknown[];
  messages.forEach((m, i) => {
    if (!isObject(m)) fail(`captured "messages"[${i}] is not an object (got ${describeJson(m)})`);
  });
  const written = messages as Record<string, unknown>[];
  const cap = body.max_tokens ?? body.max_completion_tokens;
  if (cap !== undefined && cap !== null && (!Number.isInteger(cap) || (cap as number) < 1)) {
    fail(`the captured max_tokens must be a positive integer (got ${describeJson(cap)})`);
  }
  if (body.tools !== undefined && body.tools !== null && !Array.isArray(body.tools)) {
    fail(`the captured "tools" must be a list (got ${describeJson(body.tools)})`);
  }
  const turn: Turn = {
    texts: [written.map(messageText).filter((t) => t.length > 0).join("\n")],
    messages: written,
    ...(Array.isArray(body.tools) ? { tools: body.tools } : {}),
    ...(typeof cap === "number" ? { maxTokens: cap } : {}),
  };
  return { at, turn };
}

export async function loadSageMakerCapture(path: string): Promise<Dataset> {
  let files: string[];
  try {
    files = (await Deno.stat(path)).isDirectory ? await jsonlFilesUnder(path) : [path];
  } catch (error) {
    if (error instanceof DatasetError) throw error;
    throw new DatasetError(path, undefined, `cannot be read (${(error as Error).message})`);
  }
  if (files.length === 0) throw new DatasetError(path, undefined, "holds no .jsonl capture files");
  const captures: Capture[] = [];
  for (const file of files) {
    for await (const rec of readJsonRecords(file)) captures.push(parseCapture(file, rec));
  }
  if (captures.length === 0) throw new DatasetError(path, undefined, "has no capture records");
  const origin = Math.min(...captures.map((c) => c.at));
  // Stable sort: records of the same instant keep their file order.
  const ordered = captures.map((c, i) => ({ ...c, i })).sort((a, b) => a.at - b.at || a.i - b.i);
  const conversations = ordered.map((c, n): Conversation => ({
    id: `capture_${n}`,
    turns: [{ ...c.turn, timestampMs: c.at - origin }],
  }));
  return { conversations, defaultSampling: "sequential", source: "file", format: SAGEMAKER_DATA_CAPTURE };
}

export const sageMakerCaptureLoader: DatasetLoader = {
  ...SAGEMAKER_DATA_CAPTURE_FORMAT,
  canLoad: isCapture,
  async canLoadDirectory(dir: string): Promise<boolean> {
    const files = await jsonlFilesUnder(dir).catch(() => []);
    if (files.length === 0) return false;
    const first = await firstJsonRecord(files[0]).catch(() => undefined);
    return first !== undefined && isCapture(first.record);
  },
  load: loadSageMakerCapture,
  describe: describeTrace,
};
