/**
 * A server's own account of where a request's time went, as the server reports it per request. Read from:
 *
 * - llama.cpp `llama-server` (`tools/server/server.cpp`, the `timings` object of the final chunk or body):
 *   `prompt_n`, `prompt_ms` (prompt processing = prefill), `predicted_n`, `predicted_ms` (generation = decode),
 *   `cache_n` (prompt tokens reused from the KV cache).
 * - Hugging Face TGI (`router/src/server.rs`, `generate`: non-streamed answers only): `x-queue-time`,
 *   `x-inference-time` (prefill + decode), `x-total-time`, `x-validation-time` in whole ms, and `x-compute-time`
 *   (the whole request, in seconds) where the front end adds it.
 * - OpenAI: `openai-processing-ms`, the time the API spent on the request.
 * - SGLang's native API: `meta_info.e2e_latency` (s), `meta_info.queue_time` (s) when present, `cached_tokens`,
 *   `prompt_tokens`, `completion_tokens`.
 *
 * All times are milliseconds of the server's clock: durations only, never compared with client timestamps.
 */

/** Which server convention a timing came from. */
export type ServerTimingSource = "llama.cpp" | "tgi" | "openai" | "sglang";

export interface ServerTiming {
  readonly source: ServerTimingSource;
  /** Waiting before the server started the request (TGI `x-queue-time`, SGLang `queue_time`). */
  readonly queueMs?: number;
  /** Prompt processing (llama.cpp `prompt_ms`). */
  readonly prefillMs?: number;
  /** Token generation after the first token (llama.cpp `predicted_ms`). */
  readonly decodeMs?: number;
  /** Prefill and decode together, when the server does not split them (TGI `x-inference-time`). */
  readonly inferenceMs?: number;
  /** The server's whole handling of the request (TGI `x-total-time`, OpenAI `openai-processing-ms`, SGLang
   * `e2e_latency`). */
  readonly totalMs?: number;
  /** Prompt tokens the server processed (llama.cpp `prompt_n`: those not taken from the cache). */
  readonly promptTokens?: number;
  /** Tokens generated (llama.cpp `predicted_n`). */
  readonly decodeTokens?: number;
  /** Prompt tokens reused from the cache (llama.cpp `cache_n`, SGLang `cached_tokens`). */
  readonly cachedTokens?: number;
}

/** The numeric fields of a ServerTiming, in a fixed order (export, codec). */
export const SERVER_TIMING_FIELDS = [
  "queueMs",
  "prefillMs",
  "decodeMs",
  "inferenceMs",
  "totalMs",
  "promptTokens",
  "decodeTokens",
  "cachedTokens",
] as const;

export const SERVER_TIMING_SOURCES: readonly ServerTimingSource[] = ["llama.cpp", "tgi", "openai", "sglang"];

function num(x: unknown): number | undefined {
  return typeof x === "number" && Number.isFinite(x) && x >= 0 ? x : undefined;
}

function numText(x: string | undefined): number | undefined {
  if (x === undefined) return undefined;
  const v = Number(x.trim());
  return x.trim() !== "" && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/** llama.cpp's `timings` object, or undefined when it is not one. */
export function readLlamaCppTimings(timings: unknown): ServerTiming | undefined {
  if (typeof timings !== "object" || timings === null) return undefined;
  const t = timings as Record<string, unknown>;
  const prefillMs = num(t.prompt_ms);
  const decodeMs = num(t.predicted_ms);
  if (prefillMs === undefined && decodeMs === undefined) return undefined;
  return {
    source: "llama.cpp",
    prefillMs,
    decodeMs,
    promptTokens: num(t.prompt_n),
    decodeTokens: num(t.predicted_n),
    cachedTokens: num(t.cache_n),
  };
}

/** SGLang's `meta_info` object (seconds → ms), or undefined when it carries no timing. */
export function readSglangMetaInfo(meta: unknown): ServerTiming | undefined {
  if (typeof meta !== "object" || meta === null) return undefined;
  const m = meta as Record<string, unknown>;
  const e2e = num(m.e2e_latency);
  const queue = num(m.queue_time);
  if (e2e === undefined && queue === undefined) return undefined;
  return {
    source: "sglang",
    queueMs: queue === undefined ? undefined : queue * 1000,
    totalMs: e2e === undefined ? undefined : e2e * 1000,
    promptTokens: num(m.prompt_tokens),
    decodeTokens: num(m.completion_tokens),
    cachedTokens: num(m.cached_tokens),
  };
}

/**
 * The timing in a parsed JSON chunk or body: llama.cpp's `timings`, else SGLang's `meta_info`. Two property reads
 * when neither is there (every chunk of every other server).
 */
export function readBodyServerTiming(obj: Record<string, unknown>): ServerTiming | undefined {
  const timings = obj.timings;
  if (timings !== undefined) return readLlamaCppTimings(timings);
  const meta = obj.meta_info;
  return meta === undefined ? undefined : readSglangMetaInfo(meta);
}

/** TGI's or OpenAI's timing headers (lower-cased names), or undefined when the answer has none. */
export function readHeaderServerTiming(headers: ReadonlyMap<string, string> | undefined): ServerTiming | undefined {
  if (headers === undefined) return undefined;
  const processing = numText(headers.get("openai-processing-ms"));
  const queue = numText(headers.get("x-queue-time"));
  const inference = numText(headers.get("x-inference-time"));
  const total = numText(headers.get("x-total-time"));
  const compute = numText(headers.get("x-compute-time"));
  if (queue !== undefined || inference !== undefined || total !== undefined || compute !== undefined) {
    return {
      source: "tgi",
      queueMs: queue,
      inferenceMs: inference,
      totalMs: total ?? (compute === undefined ? undefined : compute * 1000),
    };
  }
  return processing === undefined ? undefined : { source: "openai", totalMs: processing };
}

/** A body timing completed with the header one (a server may send both); the body's fields win. */
export function mergeServerTiming(
  body: ServerTiming | undefined,
  header: ServerTiming | undefined,
): ServerTiming | undefined {
  if (body === undefined) return header;
  if (header === undefined) return body;
  const out: Record<string, unknown> = { ...header, ...body };
  for (const f of SERVER_TIMING_FIELDS) if (out[f] === undefined) out[f] = header[f];
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
  return out as unknown as ServerTiming;
}
