/**
 * RequestRecord ⇄ one line of JSON, for records that cross a process boundary (`infermeter shard` writing to
 * stdout or `--records-out`, read back by the process that merges them). Exact: JSON numbers are written as the
 * shortest text that parses back to the same double, so every timestamp, count and text round-trips bit for bit,
 * and a merge of decoded records equals a merge of the originals. Decoding validates the shape field by field
 * and says which field is wrong, so a truncated or foreign line is an error, never a silently different record.
 */
import type { RawResponse, RecordError, RequestRecord } from "./request_record.ts";
import { SERVER_TIMING_FIELDS, SERVER_TIMING_SOURCES } from "../endpoints/server_timing.ts";
import { USAGE_FIELDS } from "../endpoints/endpoint_adapter.ts";

type Kind =
  | "number"
  | "string"
  | "boolean"
  | "numbers"
  | "usage"
  | "error"
  | "raw"
  | "phase"
  | "serverTiming"
  | "prompt"
  | "lineage"
  | "specDecode";

/** Every field a record may carry and its kind; `true` = required. */
const FIELDS: Readonly<Record<keyof RequestRecord, readonly [Kind, boolean]>> = {
  phase: ["phase", true],
  requestIndex: ["number", true],
  sessionNum: ["number", true],
  conversationId: ["string", true],
  turnIndex: ["number", true],
  isFinalTurn: ["boolean", false],
  xRequestId: ["string", true],
  xCorrelationId: ["string", true],
  workerId: ["string", true],
  lineage: ["lineage", false],
  creditIssuedAt: ["number", true],
  scheduledAt: ["number", false],
  timestampScheduled: ["boolean", false],
  startAt: ["number", true],
  sentAt: ["number", false],
  headersAt: ["number", false],
  endAt: ["number", true],
  responseTimes: ["numbers", true],
  firstOutputAt: ["number", false],
  lastResponseAt: ["number", false],
  status: ["number", false],
  content: ["string", true],
  reasoning: ["string", true],
  usage: ["usage", false],
  serverTiming: ["serverTiming", false],
  finishReason: ["string", false],
  error: ["error", false],
  cancelled: ["boolean", true],
  stopCancelled: ["boolean", false],
  inputTokens: ["number", false],
  inputPrompt: ["prompt", false],
  requestedOutputTokens: ["number", false],
  connectionRetries: ["number", false],
  connectionReused: ["boolean", false],
  bytesSent: ["number", false],
  bytesReceived: ["number", false],
  poolWaitStartAt: ["number", false],
  poolWaitEndAt: ["number", false],
  connectStartAt: ["number", false],
  connectEndAt: ["number", false],
  writeStartAt: ["number", false],
  firstBodyAt: ["number", false],
  lastBodyAt: ["number", false],
  chunksSent: ["number", false],
  chunksReceived: ["number", false],
  bodyBytesSent: ["number", false],
  bodyBytesReceived: ["number", false],
  rawResponses: ["raw", false],
  sentBody: ["string", false],
  videoInferenceTimeS: ["number", false],
  videoPeakMemoryMb: ["number", false],
  specDecode: ["specDecode", false],
};

const USAGE_KEYS: readonly string[] = USAGE_FIELDS;

/** A record as one JSON line (no newline). Throws on a non-finite number, which JSON cannot carry. */
export function encodeRecord(record: RequestRecord): string {
  return JSON.stringify(record, (key, value) => {
    if (typeof value === "number" && !Number.isFinite(value)) {
      throw new RangeError(`record ${record.requestIndex}: field '${key}' is ${value}, which JSON cannot carry`);
    }
    return value;
  });
}

/** A record from one JSON line or its parsed value; throws RecordCodecError naming the first wrong field. */
export function decodeRecord(input: string | unknown): RequestRecord {
  let value: unknown = input;
  if (typeof input === "string") {
    try {
      value = JSON.parse(input);
    } catch (err) {
      throw new RecordCodecError(`not JSON: ${(err as Error).message}`);
    }
  }
  if (!isObject(value)) throw new RecordCodecError("a record must be a JSON object");
  const out: Record<string, unknown> = {};
  for (const [key, [kind, required]] of Object.entries(FIELDS) as [string, readonly [Kind, boolean]][]) {
    const v = value[key];
    if (v === undefined) {
      if (required) throw new RecordCodecError(`field '${key}' is missing`);
      continue;
    }
    const problem = check(kind, v);
    if (problem !== undefined) throw new RecordCodecError(`field '${key}' ${problem}`);
    out[key] = v;
  }
  for (const key of Object.keys(value)) {
    if (!(key in FIELDS)) throw new RecordCodecError(`unknown field '${key}'`);
  }
  return out as unknown as RequestRecord;
}

export class RecordCodecError extends Error {
  override name = "RecordCodecError";
}

function check(kind: Kind, v: unknown): string | undefined {
  switch (kind) {
    case "number":
      return typeof v === "number" ? undefined : "must be a number";
    case "string":
      return typeof v === "string" ? undefined : "must be a string";
    case "boolean":
      return typeof v === "boolean" ? undefined : "must be true or false";
    case "phase":
      return v === "warmup" || v === "profiling" ? undefined : "must be 'warmup' or 'profiling'";
    case "numbers":
      return Array.isArray(v) && v.every((x) => typeof x === "number") ? undefined : "must be an array of numbers";
    case "usage":
      if (!isObject(v)) return "must be an object";
      for (const k of Object.keys(v)) {
        if (!(USAGE_KEYS as readonly string[]).includes(k)) return `has an unknown key '${k}'`;
        if (typeof v[k] !== "number") return `.${k} must be a number`;
      }
      return undefined;
    case "error": {
      if (!isObject(v)) return "must be an object";
      const e = v as Partial<RecordError> & Record<string, unknown>;
      if (typeof e.type !== "string" || typeof e.message !== "string") return "needs string 'type' and 'message'";
      if (e.code !== undefined && typeof e.code !== "number") return ".code must be a number";
      if (e.group !== undefined && typeof e.group !== "string") return ".group must be a string";
      return undefined;
    }
    case "serverTiming": {
      if (!isObject(v)) return "must be an object";
      if (!(SERVER_TIMING_SOURCES as readonly unknown[]).includes(v.source)) {
        return `.source must be one of ${SERVER_TIMING_SOURCES.join(", ")}`;
      }
      for (const k of Object.keys(v)) {
        if (k === "source") continue;
        if (!(SERVER_TIMING_FIELDS as readonly string[]).includes(k)) return `has an unknown key '${k}'`;
        const x = v[k];
        if (typeof x !== "number" || !(x >= 0)) return `.${k} must be a number ≥ 0`;
      }
      return undefined;
    }
    case "raw":
      return Array.isArray(v) &&
          v.every((x) => isObject(x) && typeof (x as Partial<RawResponse>).t === "number" && typeof x.text === "string")
        ? undefined
        : "must be an array of {t: number, text: string}";
    case "prompt": {
      if (!isObject(v) || !Array.isArray(v.texts) || !v.texts.every((t) => typeof t === "string")) {
        return "needs 'texts', an array of strings";
      }
      const m = v.messages;
      if (m === undefined) return undefined;
      return Array.isArray(m) &&
          m.every((x) => isObject(x) && typeof x.role === "string" && typeof x.content === "string")
        ? undefined
        : ".messages must be an array of {role: string, content: string}";
    }
    case "lineage":
      return isObject(v) && Number.isInteger(v.agentDepth) && (v.agentDepth as number) >= 1 &&
          typeof v.parentCorrelationId === "string" && typeof v.rootCorrelationId === "string"
        ? undefined
        : "must be {agentDepth: integer ≥ 1, parentCorrelationId: string, rootCorrelationId: string}";
    case "specDecode":
      return isObject(v) && typeof v.engine === "string" && isObject(v.acceptanceHistogram) &&
          ["meanAcceptanceLength", "draftAcceptanceRate", "numAcceptedDraftTokens", "numDraftTokens", "numSpecSteps"]
            .every((k) => typeof v[k] === "number")
        ? undefined
        : "must be a speculative-decoding record {engine, meanAcceptanceLength, draftAcceptanceRate, …}";
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
