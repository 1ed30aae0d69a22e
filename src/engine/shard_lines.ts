/**
 * The JSON-lines codec of the shard protocol (shard_event.ts): what `infermeter shard` writes (stdout, or
 * `--records-out FILE`) and reads on stdin, and what a Kubernetes shard's record chunks hold. One JSON object per
 * line, `t` naming it:
 *
 * shard → coordinator: `hello` {index, of, pid, timeOriginMs}, `pinned` {core, ok, reason?}, `ready`, `started`
 * {startEpochMs, latenessMs}, `phase` {phase, at}, `r` {r: RequestRecord (record_codec.ts)} once per finished
 * request, `activity` {activities}, and last `done` {outcome, peakRssBytes?, cpuMs?, stoppedBy?} or `failed`
 * {message}; `clock` {offsetMs, uncertaintyMs} where the transport measured the clocks (pods). Coordinator → shard:
 * `start` {epochMs}, `cancel`.
 */
import { decodeRecord, encodeRecord, RecordCodecError } from "../records/record_codec.ts";
import type { ShardChannel, ShardControl, ShardEvent, ShardLink } from "./shard_event.ts";

/** An event as lines (each with its newline): a `records` event is one `r` line per record, exact codec. */
export function encodeEventLines(e: ShardEvent): string {
  switch (e.type) {
    case "records": {
      let out = "";
      for (const r of e.records) out += `{"t":"r","r":${encodeRecord(r)}}\n`;
      return out;
    }
    case "hello":
      return JSON.stringify({ t: "hello", index: e.index, of: e.of, pid: e.pid, timeOriginMs: e.timeOriginMs }) + "\n";
    default: {
      const { type, ...rest } = e;
      return JSON.stringify({ t: type, ...rest }) + "\n";
    }
  }
}

export function encodeControlLine(c: ShardControl): string {
  return c.type === "start" ? `{"t":"start","epochMs":${c.epochMs}}\n` : `{"t":"cancel"}\n`;
}

/** Parses one line from a shard; throws ShardStreamError (with the line number given) on anything malformed. */
export function decodeEventLine(line: string, lineNo?: number): ShardEvent {
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
  const need = (key: string, type: "number" | "string" | "object" | "boolean", optional = false) => {
    if (optional && v[key] === undefined) return;
    const value = v[key];
    const ok = type === "number"
      ? Number.isFinite(value)
      : type === "object"
      ? typeof value === "object" && value !== null
      : type === "string"
      ? typeof value === "string"
      : typeof value === "boolean";
    if (!ok) throw new ShardStreamError(`${where}'${v.t}' needs ${type} '${key}'`);
  };
  const { t, ...rest } = v;
  switch (t) {
    case "r":
      try {
        return { type: "records", records: [decodeRecord(v.r)] };
      } catch (err) {
        if (err instanceof RecordCodecError) throw new ShardStreamError(`${where}record: ${err.message}`);
        throw err;
      }
    case "hello":
      for (const k of ["index", "of", "pid", "timeOriginMs"]) need(k, "number");
      break;
    case "pinned":
      need("core", "number");
      need("ok", "boolean");
      need("reason", "string", true);
      break;
    case "ready":
      break;
    case "clock":
      need("offsetMs", "number");
      need("uncertaintyMs", "number");
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
      need("peakRssBytes", "number", true);
      need("cpuMs", "number", true);
      need("stoppedBy", "string", true);
      break;
    case "failed":
      need("message", "string");
      break;
    default:
      throw new ShardStreamError(`${where}unknown message '${t}'`);
  }
  return { type: t, ...rest } as unknown as ShardEvent;
}

/** Parses a coordinator line; undefined for anything else (ignored, so a terminal's stray input does no harm). */
export function decodeControlLine(line: string): ShardControl | undefined {
  try {
    const v = JSON.parse(line);
    if (v?.t === "start" && typeof v.epochMs === "number" && Number.isFinite(v.epochMs)) {
      return { type: "start", epochMs: v.epochMs };
    }
    if (v?.t === "cancel") return { type: "cancel" };
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

/** Decodes a whole line stream (a file, a gzip chunk) into events; throws ShardStreamError on a bad line. */
export async function* readEventLines(
  stream: ReadableStream<Uint8Array>,
  firstLineNo = 1,
): AsyncGenerator<ShardEvent> {
  let n = firstLineNo - 1;
  for await (const line of readLines(stream)) {
    n++;
    if (line.trim() === "") continue;
    yield decodeEventLine(line, n);
  }
}

/** Lines queued and written in order, one write in flight at a time (a slow reader never reorders lines). */
export class LineWriter {
  readonly #out: { write(p: Uint8Array): Promise<number> };
  readonly #encoder = new TextEncoder();
  #queued: string[] = [];
  #chain: Promise<void> = Promise.resolve();
  #failed = false;
  constructor(out: { write(p: Uint8Array): Promise<number> }) {
    this.#out = out;
  }
  push(text: string): void {
    this.#queued.push(text);
  }
  /** Writes what is queued; a failed write (the reader is gone) drops the rest without throwing. */
  flush(): Promise<void> {
    if (this.#queued.length > 0) {
      const bytes = this.#encoder.encode(this.#queued.join(""));
      this.#queued = [];
      this.#chain = this.#chain.then(async () => {
        if (this.#failed) return;
        try {
          let off = 0;
          while (off < bytes.length) off += await this.#out.write(bytes.subarray(off));
        } catch {
          this.#failed = true;
        }
      });
    }
    return this.#chain;
  }
}

/**
 * The shard's end over a byte sink (stdout, a file) and, optionally, a control stream (stdin). Events are queued
 * and written at once, in order; a control stream that ends after the first control message is a `cancel`
 * (the coordinator is gone), and one that ends before any is a `cancel` too (nothing will start the shard).
 */
export function lineChannel(
  out: { write(p: Uint8Array): Promise<number> },
  control?: ReadableStream<Uint8Array>,
): ShardChannel {
  const writer = new LineWriter(out);
  return {
    send(e) {
      writer.push(encodeEventLines(e));
      void writer.flush();
    },
    onControl(handler) {
      if (control === undefined) return;
      (async () => {
        // Read with next(), not for-await: leaving a for-await loop would cancel the stream for later reads.
        const lines = readLines(control);
        for (;;) {
          const { value, done } = await lines.next();
          if (done) break;
          const c = decodeControlLine(value);
          if (c !== undefined) handler(c);
          if (c?.type === "cancel") return;
        }
        handler({ type: "cancel" });
      })().catch(() => handler({ type: "cancel" }));
    },
    close: () => writer.flush(),
  };
}

/** What a line link needs of a child process (Deno.ChildProcess has it). */
export interface LineChild {
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stdin: WritableStream<Uint8Array>;
  readonly status: Promise<{ readonly code: number; readonly signal: string | null }>;
  kill(signal?: Deno.Signal): void;
}

/**
 * The coordinator's end of a shard process: events from its stdout, control to its stdin. The stream ends with
 * the process; `ended` says how when it was not a clean exit (a signal, an exit code, a malformed line).
 */
export function processLink(child: LineChild): ShardLink {
  const stdin = child.stdin.getWriter();
  const encoder = new TextEncoder();
  let handler: ((e: ShardEvent) => void) | undefined;
  let begin!: () => void;
  const begun = new Promise<void>((r) => begin = r);
  const ended = (async (): Promise<string | undefined> => {
    await begun;
    let broken: string | undefined;
    let lastBroken = false;
    let n = 0;
    for await (const line of readLines(child.stdout)) {
      n++;
      if (broken !== undefined) {
        // A malformed line with more after it: the stream is corrupt, not cut off.
        lastBroken = false;
        try {
          child.kill("SIGKILL");
        } catch { /* already gone */ }
        break;
      }
      if (line.length === 0) continue;
      try {
        handler!(decodeEventLine(line, n));
      } catch (err) {
        if (!(err instanceof ShardStreamError)) throw err;
        broken = err.message;
        lastBroken = true;
      }
    }
    const status = await child.status;
    await stdin.close().catch(() => {});
    const exit = status.signal !== null
      ? `was killed by ${status.signal}`
      : status.code !== 0
      ? `exited with code ${status.code}`
      : undefined;
    // A process killed mid-write leaves a cut-off last line: the kill is the cause, not the line.
    if (lastBroken && exit !== undefined) return exit;
    return broken === undefined ? exit : `sent a malformed ${broken}`;
  })();
  return {
    onEvent(h) {
      handler = h;
      begin();
    },
    control(c) {
      stdin.write(encoder.encode(encodeControlLine(c))).catch(() => {});
    },
    ended,
    abort() {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
    },
  };
}
