/**
 * Where each request's time went, from the server's own per-request timing (`metadata.server_timing` in
 * `profile_export.jsonl`) beside the client's measurements of the same request:
 *
 * - client TTFT = server queue + server prefill + (network + client), per request:
 *   `network + client = TTFT − queue − prefill` (queue 0 when the server reports none);
 * - client decode = `request_latency − TTFT` (first to last content chunk) beside the server's decode time, and
 *   their difference; the client's `inter_token_latency` beside the server's time per generated token
 *   (`decode_ms / decode_tokens`, llama.cpp's `predicted_per_token_ms`);
 * - for a server that reports only totals (TGI, OpenAI headers on non-streamed answers):
 *   `network + client = request_latency − server total`.
 *
 * Successful requests only; statistics exact (numpy linear percentiles). A server's durations come from its own
 * clock and are never compared with client timestamps, only with client durations.
 */
import { recordsPathOf } from "./run_files.ts";
import type { HtmlSection } from "./report_html.ts";
import { ReportError } from "./report_error.ts";
import { type PeerRecord, readPeerRecords, ttftMs } from "./peers/peer_records.ts";
import { mean, percentile } from "./peers/peer_stats.ts";

/** One line of the decomposition. */
export interface SplitRow {
  readonly part: string;
  /** How the value is obtained, in words. */
  readonly definition: string;
  readonly count: number;
  readonly avg: number | null;
  readonly p50: number | null;
  readonly p99: number | null;
}

export interface ServerTimingSplit {
  /** Server conventions seen (`llama.cpp`, `tgi`, …). */
  readonly sources: readonly string[];
  readonly requests: number;
  readonly withTiming: number;
  readonly ttft: readonly SplitRow[];
  readonly decode: readonly SplitRow[];
  readonly total: readonly SplitRow[];
}

function row(part: string, definition: string, values: readonly number[]): SplitRow {
  const n = (x: number | undefined) => (x === undefined ? null : x);
  return {
    part,
    definition,
    count: values.length,
    avg: n(mean(values)),
    p50: n(percentile(values, 50)),
    p99: n(percentile(values, 99)),
  };
}

/** The decomposition of a run's successful requests; undefined when none carries a server timing. Pure. */
export function serverTimingSplit(records: readonly PeerRecord[]): ServerTimingSplit | undefined {
  const ok = records.filter((r) => r.ok && r.serverTiming !== undefined);
  if (ok.length === 0) return undefined;
  const clientTtft: number[] = [];
  const queue: number[] = [];
  const prefill: number[] = [];
  const ttftRest: number[] = [];
  const clientDecode: number[] = [];
  const serverDecode: number[] = [];
  const decodeRest: number[] = [];
  const clientItl: number[] = [];
  const serverPerToken: number[] = [];
  const clientLatency: number[] = [];
  const serverTotal: number[] = [];
  const serverInference: number[] = [];
  const latencyRest: number[] = [];
  for (const r of ok) {
    const s = r.serverTiming!;
    const ttft = ttftMs(r);
    if (s.queueMs !== undefined) queue.push(s.queueMs);
    if (ttft !== undefined && s.prefillMs !== undefined) {
      clientTtft.push(ttft);
      prefill.push(s.prefillMs);
      ttftRest.push(ttft - (s.queueMs ?? 0) - s.prefillMs);
    }
    if (ttft !== undefined && r.latencyMs !== undefined && s.decodeMs !== undefined) {
      const decode = r.latencyMs - ttft;
      clientDecode.push(decode);
      serverDecode.push(s.decodeMs);
      decodeRest.push(decode - s.decodeMs);
      if (r.outputTokens !== undefined && r.outputTokens >= 2) clientItl.push(decode / (r.outputTokens - 1));
      if (s.decodeTokens !== undefined && s.decodeTokens > 0) serverPerToken.push(s.decodeMs / s.decodeTokens);
    }
    if (r.latencyMs !== undefined && s.totalMs !== undefined) {
      clientLatency.push(r.latencyMs);
      serverTotal.push(s.totalMs);
      latencyRest.push(r.latencyMs - s.totalMs);
    }
    if (s.inferenceMs !== undefined) serverInference.push(s.inferenceMs);
  }
  const keep = (rows: SplitRow[]) => rows.filter((x) => x.count > 0);
  return {
    sources: [...new Set(ok.map((r) => r.serverTiming!.source))],
    requests: records.length,
    withTiming: ok.length,
    ttft: keep([
      row("Client TTFT", "first content chunk − request start (client clock)", clientTtft),
      row("Server queue", "server: waiting before the request started", queue),
      row("Server prefill", "server: prompt processing (llama.cpp prompt_ms)", prefill),
      row(
        "Network + client",
        "client TTFT − server queue − server prefill, per request: the network, the client, and server time the " +
          "server does not report (llama.cpp reports no queue: waiting for a slot or a batch lands here)",
        ttftRest,
      ),
    ]),
    decode: keep([
      row("Client decode", "request_latency − TTFT (first to last content chunk)", clientDecode),
      row("Server decode", "server: generation time (llama.cpp predicted_ms)", serverDecode),
      row("Client − server decode", "client decode − server decode, per request", decodeRest),
      row("Client ITL", "(request_latency − TTFT) / (output tokens − 1)", clientItl),
      row(
        "Server time per token",
        "server decode / tokens generated (llama.cpp predicted_per_token_ms)",
        serverPerToken,
      ),
    ]),
    total: keep([
      row("Client latency", "request_latency (client clock)", clientLatency),
      row("Server inference", "server: prefill + decode (TGI x-inference-time)", serverInference),
      row("Server total", "server: whole handling (TGI x-total-time, OpenAI openai-processing-ms)", serverTotal),
      row("Network + client", "client latency − server total, per request", latencyRest),
    ]),
  };
}

function fmt(x: number | null): string {
  return x === null ? "n/a" : x.toFixed(3);
}

/** The console table: each part's count, average, p50 and p99 in ms. */
export function serverTimingSplitTable(split: ServerTimingSplit): string {
  const lines = [
    `Server timing split (${split.sources.join(", ")}: ${split.withTiming} of ${split.requests} requests reported ` +
    "their own timing; ms)",
  ];
  const all = [...split.ttft, ...split.decode, ...split.total];
  const width = Math.max(...all.map((r) => r.part.length), 12);
  const head = `  ${"".padEnd(width)}  ${"count".padStart(6)}  ${"avg".padStart(10)}  ${"p50".padStart(10)}  ${
    "p99".padStart(10)
  }`;
  for (
    const [title, rows] of [["TTFT", split.ttft], ["Decode", split.decode], ["Whole request", split.total]] as const
  ) {
    if (rows.length === 0) continue;
    lines.push(`${title}:`, head);
    for (const r of rows) {
      lines.push(
        `  ${r.part.padEnd(width)}  ${String(r.count).padStart(6)}  ${fmt(r.avg).padStart(10)}  ${
          fmt(r.p50).padStart(10)
        }  ${fmt(r.p99).padStart(10)}`,
      );
    }
  }
  return lines.join("\n");
}

/** The `server_timing_split.json` object. */
export function serverTimingSplitJson(split: ServerTimingSplit): Record<string, unknown> {
  return {
    schema_version: 1,
    producer: "infermeter",
    unit: "ms",
    sources: split.sources,
    requests: split.requests,
    requests_with_server_timing: split.withTiming,
    ttft: split.ttft,
    decode: split.decode,
    whole_request: split.total,
  };
}

/** The same for report.html, in the page's section model. */
export function serverTimingSplitSections(split: ServerTimingSplit): HtmlSection[] {
  const table = (caption: string, rows: readonly SplitRow[]): HtmlSection => ({
    kind: "table",
    table: {
      caption,
      header: ["Part", "Count", "Avg (ms)", "p50 (ms)", "p99 (ms)", "How"],
      leftColumns: [0, 5],
      rows: rows.map((r) => [r.part, String(r.count), fmt(r.avg), fmt(r.p50), fmt(r.p99), r.definition]),
    },
  });
  const out: HtmlSection[] = [
    { kind: "heading", text: "Where the time went (the server's own timing)" },
    {
      kind: "note",
      text: `${split.withTiming} of ${split.requests} requests carried the server's timing (${
        split.sources.join(", ")
      }). Client TTFT = server queue + server prefill + (network + client).`,
    },
  ];
  if (split.ttft.length > 0) out.push(table("Time to first token", split.ttft));
  if (split.decode.length > 0) out.push(table("Decode", split.decode));
  if (split.total.length > 0) out.push(table("Whole request", split.total));
  return out;
}

/** The file written in the run directory. */
export const SERVER_TIMING_SPLIT_FILE = "server_timing_split.json";

/**
 * The split of the records at `recordsPath` (a run's per-request JSONL), or undefined when no request reported a
 * server timing or there is no such regular file.
 * @throws {ReportError} when the records cannot be read.
 */
export async function readServerTimingSplit(recordsPath: string): Promise<ServerTimingSplit | undefined> {
  // Most servers report no timing: a first pass over the file's bytes stops at the first `"server_timing"` (a key
  // has no line break, so this is the line test; nothing is decoded, and a long run's file leaves no garbage).
  let carries = false;
  try {
    // A device or pipe in its place (a full disk simulated with /dev/full) would never end: read files only.
    if (!(await Deno.stat(recordsPath)).isFile) return undefined;
    carries = await fileContains(recordsPath, SERVER_TIMING_KEY);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    if (e instanceof ReportError) throw e;
    throw new ReportError(`${recordsPath}: cannot read it (${e instanceof Error ? e.message : String(e)}).`);
  }
  if (!carries) return undefined;
  return serverTimingSplit((await readPeerRecords("", recordsPath)).records);
}

const SERVER_TIMING_KEY = new TextEncoder().encode('"server_timing"');

/**
 * Whether the file at `path` holds the bytes `needle` (read through one 1 MiB buffer). Candidates are found by the
 * needle's byte that is rarest in the first read (in JSON, a quote is everywhere; a `v` is not).
 */
export async function fileContains(path: string, needle: Uint8Array): Promise<boolean> {
  if (needle.length === 0) return true;
  using file = await Deno.open(path, { read: true });
  const buf = new Uint8Array(Math.max(1 << 20, 2 * needle.length));
  // Bytes kept from the last read: a needle may straddle two reads.
  let kept = 0, anchor = -1;
  for (;;) {
    const n = await file.read(buf.subarray(kept));
    if (n === null) return false;
    const end = kept + n;
    if (anchor < 0) anchor = rarestByte(needle, buf.subarray(0, end));
    const b = needle[anchor];
    for (let at = buf.indexOf(b, anchor); at >= 0 && at - anchor + needle.length <= end; at = buf.indexOf(b, at + 1)) {
      const from = at - anchor;
      let k = 0;
      while (k < needle.length && buf[from + k] === needle[k]) k++;
      if (k === needle.length) return true;
    }
    kept = Math.min(needle.length - 1, end);
    buf.copyWithin(0, end - kept, end);
  }
}

/** The index in `needle` of its byte least frequent in `sample`. */
function rarestByte(needle: Uint8Array, sample: Uint8Array): number {
  const counts = new Uint32Array(256);
  for (let i = 0; i < sample.length; i++) counts[sample[i]]++;
  let best = 0;
  for (let k = 1; k < needle.length; k++) if (counts[needle[k]] < counts[needle[best]]) best = k;
  return best;
}

/**
 * Reads the run's records and, when any carries a server timing, writes `server_timing_split.json` beside them.
 * Undefined when no request reported one (nothing is written).
 * @throws {ReportError} when the records cannot be read or the file cannot be written.
 */
export async function writeServerTimingSplit(
  dir: string,
): Promise<{ path: string; consoleTable: string; split: ServerTimingSplit } | undefined> {
  const base = dir.replace(/\/+$/, "");
  const split = await readServerTimingSplit(await recordsPathOf(base));
  if (split === undefined) return undefined;
  const path = `${base}/${SERVER_TIMING_SPLIT_FILE}`;
  try {
    await Deno.writeTextFile(path, JSON.stringify(serverTimingSplitJson(split), null, 2) + "\n");
  } catch (e) {
    throw new ReportError(`${path}: cannot write it (${e instanceof Error ? e.message : String(e)}).`);
  }
  return { path, consoleTable: serverTimingSplitTable(split), split };
}
