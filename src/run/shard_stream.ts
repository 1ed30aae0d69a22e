/**
 * The line protocol of `infermeter shard`: what a shard process writes (stdout, or `--records-out FILE`) and what
 * its coordinator may write to its stdin. One JSON object per line, `t` naming the message:
 *
 * shard → coordinator, in this order:
 * - `hello`   {index, of, pid, timeOriginMs}: every `*At` time in later messages is ms since `timeOriginMs`
 *             (epoch ms); the coordinator shifts by `timeOriginMs - its own origin` to put them on its clock.
 * - `ready`   dataset built, requests prepared: the shard waits for its start time.
 * - `started` {startEpochMs, latenessMs}: when the shard began, and how late after the agreed start it did.
 * - `phase`   {phase, at} once per phase; `r` {r: RequestRecord (record_codec.ts)} once per finished request;
 *             `activity` {activities} about once a second (requests in flight, last data).
 * - `done`    {outcome, peakRssBytes, cpuMs} or `failed` {message}: the last line.
 *
 * coordinator → shard (stdin, when the shard was told `--start-at stdin`): `start` {epochMs}, then maybe `cancel`.
 * A shard whose stdin closes before `start` exits without sending; one whose stdin closes later cancels.
 */
import { decodeRecord, encodeRecord, RecordCodecError } from "../records/record_codec.ts";
import type { Phase, RequestRecord } from "../records/request_record.ts";
import type { ShardOutcome } from "../engine/run_shard.ts";
import type { TransportActivity } from "../transport/http_client.ts";

export type FromShardProcess =
  | {
    readonly t: "hello";
    readonly index: number;
    readonly of: number;
    readonly pid: number;
    readonly timeOriginMs: number;
  }
  | { readonly t: "ready" }
  | { readonly t: "started"; readonly startEpochMs: number; readonly latenessMs: number }
  | { readonly t: "phase"; readonly phase: Phase; readonly at: number }
  | { readonly t: "r"; readonly r: RequestRecord }
  | { readonly t: "activity"; readonly activities: readonly TransportActivity[] }
  | {
    readonly t: "done";
    readonly outcome: ShardOutcome;
    readonly peakRssBytes: number;
    readonly cpuMs?: number;
  }
  | { readonly t: "failed"; readonly message: string };

export type ToShardProcess =
  | { readonly t: "start"; readonly epochMs: number }
  | { readonly t: "cancel" };

/** One message as a line (with its newline). Records go through the exact codec. */
export function encodeShardMessage(m: FromShardProcess | ToShardProcess): string {
  if (m.t === "r") return `{"t":"r","r":${encodeRecord(m.r)}}\n`;
  return JSON.stringify(m) + "\n";
}

/** Parses one line from a shard; throws ShardStreamError (with the line number given) on anything malformed. */
export function decodeShardMessage(line: string, lineNo?: number): FromShardProcess {
  const where = lineNo === undefined ? "" : `line ${lineNo}: `;
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(line);
  } catch (err) {
    throw new ShardStreamError(`${where}not JSON (${(err as Error).message})`);
  }
  if (typeof v !== "object" || v === null || typeof v.t !== "string") {
    throw new ShardStreamError(`${where}a message must be an object with a string 't'`);
  }
  const need = (key: string, type: "number" | "string" | "object") => {
    const ok = type === "number" ? Number.isFinite(v[key]) : type === "string" ? typeof v[key] === "string" : (
      typeof v[key] === "object" && v[key] !== null
    );
    if (!ok) throw new ShardStreamError(`${where}'${v.t}' needs ${type} '${key}'`);
  };
  switch (v.t) {
    case "r":
      try {
        return { t: "r", r: decodeRecord(v.r) };
      } catch (err) {
        if (err instanceof RecordCodecError) throw new ShardStreamError(`${where}record: ${err.message}`);
        throw err;
      }
    case "hello":
      for (const k of ["index", "of", "pid", "timeOriginMs"]) need(k, "number");
      break;
    case "ready":
      break;
    case "started":
      need("startEpochMs", "number");
      need("latenessMs", "number");
      break;
    case "phase":
      if (v.phase !== "warmup" && v.phase !== "profiling") throw new ShardStreamError(`${where}unknown phase`);
      need("at", "number");
      break;
    case "activity":
      if (!Array.isArray(v.activities)) throw new ShardStreamError(`${where}'activity' needs an array`);
      break;
    case "done":
      need("outcome", "object");
      need("peakRssBytes", "number");
      break;
    case "failed":
      need("message", "string");
      break;
    default:
      throw new ShardStreamError(`${where}unknown message '${v.t}'`);
  }
  return v as unknown as FromShardProcess;
}

/** Parses a coordinator line; undefined for anything else (ignored, so a terminal's stray input does no harm). */
export function decodeCoordinatorMessage(line: string): ToShardProcess | undefined {
  try {
    const v = JSON.parse(line);
    if (v?.t === "start" && typeof v.epochMs === "number" && Number.isFinite(v.epochMs)) return v;
    if (v?.t === "cancel") return v;
  } catch {
    // not a message
  }
  return undefined;
}

export class ShardStreamError extends Error {
  override name = "ShardStreamError";
}

/** Splits a byte stream into lines (the last one without a newline included) — for stdout pipes and files. */
export async function* readLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let rest = "";
  for await (const chunk of stream) {
    rest += decoder.decode(chunk, { stream: true });
    let nl: number;
    let from = 0;
    while ((nl = rest.indexOf("\n", from)) !== -1) {
      yield rest.slice(from, nl);
      from = nl + 1;
    }
    rest = rest.slice(from);
  }
  rest += decoder.decode();
  if (rest.length > 0) yield rest;
}
