/**
 * Options of the simulated inference server (`infermeter serve-sim`), their defaults and validation.
 *
 * All times are milliseconds. Validation throws `RangeError` naming the option and the accepted range; the CLI
 * turns that into exit code 2.
 */

/** How serve-sim reports its own per-request timing (`--server-timing`). */
export type SimServerTimingStyle = "none" | "llama.cpp" | "tgi" | "openai";

/** Every `--server-timing` choice. */
export const SIM_SERVER_TIMING_STYLES: readonly SimServerTimingStyle[] = ["none", "llama.cpp", "tgi", "openai"];

export interface SimOptions {
  /** Interface to bind. Loopback by default so a benchmark server is never exposed by accident.
   * @default "127.0.0.1" */
  readonly host: string;
  /** TCP port; 0 picks a free ephemeral port.
   * @default 8000 */
  readonly port: number;
  /** Model names listed by `GET /v1/models`; the first is echoed when a request names no model.
   * @default ["sim-model"] */
  readonly models: readonly string[];
  /** Reject (404 `model_not_found`) requests whose `model` is not in `models`; otherwise any name is accepted.
   * @default false */
  readonly strictModel: boolean;
  /** Require `Authorization: Bearer <apiKey>` on `/v1/*` routes (401 otherwise); undefined = no auth.
   * @default undefined */
  readonly apiKey?: string;
  /** Time to first token.
   * @default 20 */
  readonly ttftMs: number;
  /** Inter-token latency (gap between consecutive tokens).
   * @default 5 */
  readonly itlMs: number;
  /** Prefill time added to TTFT per prompt token (TTFT = ttft + prompt tokens × this), like an engine's prefill.
   * @default 0 */
  readonly prefillMsPerToken: number;
  /** Coefficient of variation of the lognormal factor applied to TTFT (0 = constant).
   * @default 0 */
  readonly ttftJitter: number;
  /** Coefficient of variation of the lognormal factor applied to each inter-token gap (0 = constant).
   * @default 0 */
  readonly itlJitter: number;
  /** Tokens per streamed chunk (SSE event); a chunk is sent when its last token is due.
   * @default 1 */
  readonly tokensPerChunk: number;
  /** Upper clamp of the output length of requests that set no max tokens.
   * @default 1024 */
  readonly maxDefaultTokens: number;
  /** Probability (0–1) that each token after `min_tokens` ends generation early (finish `stop`) when the request
   * sets a max; 0 = always generate exactly the max (finish `length`), like an ignore-EOS benchmark run.
   * @default 0 */
  readonly eosRate: number;
  /** Reasoning tokens emitted (before the content) by every request whose API carries reasoning (chat).
   * @default 0 */
  readonly reasoningTokens: number;
  /** Act as a reasoning model: honour `reasoning_effort` low/medium/high = 100/250/500 reasoning tokens; requests
   * without an effort get `reasoningTokens`, or 250 (medium) when that is 0.
   * @default false */
  readonly reasoning: boolean;
  /** Length of the embedding vectors `/v1/embeddings` returns (a request's `dimensions` may ask for fewer).
   * @default 768 */
  readonly embeddingDimensions: number;
  /** Seconds after start during which `/v1/health/ready` answers 503 (a model still loading, NIM-style).
   * @default 0 */
  readonly loadDelaySeconds: number;
  /** Percentage (0–100) of inference requests answered with HTTP 500.
   * @default 0 */
  readonly errorRate: number;
  /** Percentage (0–100) of well-formed inference requests whose connection is dropped after the first part of the
   * answer (a streamed one after its first event): a server crash or a proxy reset, as the client sees it.
   * @default 0 */
  readonly disconnectRate: number;
  /** Percentage (0–100) of well-formed inference requests held for `stallMs` before any byte of the answer.
   * @default 0 */
  readonly stallRate: number;
  /** How long a stalled request waits before its answer starts, in ms. @default 10000 */
  readonly stallMs: number;
  /** Seed of every random choice (errors, jitter, words, default lengths); undefined = a random seed per start.
   * @default undefined */
  readonly seed?: number;
  /** Add `"sim_sent_at_ms"` (epoch ms, µs precision, taken right before the chunk is enqueued) to streamed chunks.
   * @default false */
  readonly emitSendTimes: boolean;
  /**
   * Report a per-request server timing split the way one server family does: `llama.cpp` (a `timings` object with
   * the measured prefill and decode in the last chunk of a streamed OpenAI answer), `tgi` (`x-queue-time`,
   * `x-inference-time`, `x-total-time` headers) or `openai` (`openai-processing-ms`) on non-streamed answers.
   * @default "none"
   */
  readonly serverTiming: SimServerTimingStyle;
  /** On close, how long in-flight responses may take to finish before they are cut short.
   * @default 1000 */
  readonly shutdownGraceMs: number;
  /** Write every request received to this file as JSONL (`request_journal.ts`); undefined = no journal.
   * @default undefined */
  readonly recordRequests?: string;
  /** Answer the prompts this JSONL file lists with its answers (`sim_answers.ts`); undefined = random words only.
   * @default undefined */
  readonly answers?: string;
  /** Serve a DCGM-exporter-style `/dcgm/metrics` with this many synthetic GPUs; 0 = none.
   * @default 0 */
  readonly dcgmGpus: number;
  /**
   * Report OpenAI's usage details: `prompt_tokens_details.cached_tokens` (a prefix cache over earlier prompts,
   * `prefix_cache.ts`) and `completion_tokens_details` (`reasoning_tokens`, and `accepted_prediction_tokens` /
   * `rejected_prediction_tokens` for a request with a `prediction`), `audio_tokens` 0 in both.
   * @default false
   */
  readonly usageDetails: boolean;
  /**
   * Speculative decoding: draft tokens proposed per verification step; each answer of the chat and completions
   * routes reports vLLM's per-request statistics (`spec_decode_plan.ts`). 0 = off.
   * @default 0 */
  readonly specDecodeTokens: number;
  /** Probability that each draft token is accepted (up to a step's first rejection), with `specDecodeTokens`.
   * @default 0.7 */
  readonly specDecodeAcceptance: number;
  /** Requests that generate at once (`sim_slots.ts`); the others wait in a FIFO queue, the wait counting in their
   * time to first token. 0 = no limit.
   * @default 0 */
  readonly slots: number;
}

export const SIM_DEFAULTS: SimOptions = Object.freeze({
  host: "127.0.0.1",
  port: 8000,
  models: Object.freeze(["sim-model"]),
  strictModel: false,
  apiKey: undefined,
  ttftMs: 20,
  itlMs: 5,
  prefillMsPerToken: 0,
  ttftJitter: 0,
  itlJitter: 0,
  tokensPerChunk: 1,
  maxDefaultTokens: 1024,
  eosRate: 0,
  reasoningTokens: 0,
  reasoning: false,
  errorRate: 0,
  embeddingDimensions: 768,
  loadDelaySeconds: 0,
  disconnectRate: 0,
  stallRate: 0,
  stallMs: 10_000,
  seed: undefined,
  emitSendTimes: false,
  serverTiming: "none",
  shutdownGraceMs: 1000,
  recordRequests: undefined,
  answers: undefined,
  dcgmGpus: 0,
  usageDetails: false,
  specDecodeTokens: 0,
  specDecodeAcceptance: 0.7,
  slots: 0,
});

/** Reasoning tokens per `reasoning_effort` (AIPerf mock server values). */
export const REASONING_EFFORT_TOKENS: Readonly<Record<string, number>> = Object.freeze({
  none: 0,
  low: 100,
  medium: 250,
  high: 500,
});

/** Defaults filled in and every value checked; throws `RangeError` on the first invalid one. */
export function resolveSimOptions(partial: Partial<SimOptions> = {}): SimOptions {
  const o: SimOptions = { ...SIM_DEFAULTS, ...dropUndefined(partial) };
  checkNumber("port", o.port, 0, 65535, true);
  checkNumber("ttftMs", o.ttftMs, 0, 3_600_000);
  checkNumber("prefillMsPerToken", o.prefillMsPerToken, 0, 60_000);
  checkNumber("itlMs", o.itlMs, 0, 3_600_000);
  checkNumber("ttftJitter", o.ttftJitter, 0, 100);
  checkNumber("itlJitter", o.itlJitter, 0, 100);
  checkNumber("tokensPerChunk", o.tokensPerChunk, 1, 1_000_000, true);
  checkNumber("maxDefaultTokens", o.maxDefaultTokens, 16, 10_000_000, true);
  checkNumber("eosRate", o.eosRate, 0, 1);
  checkNumber("reasoningTokens", o.reasoningTokens, 0, 10_000_000, true);
  checkNumber("errorRate", o.errorRate, 0, 100);
  checkNumber("embeddingDimensions", o.embeddingDimensions, 1, 65536, true);
  checkNumber("loadDelaySeconds", o.loadDelaySeconds, 0, 86_400);
  checkNumber("disconnectRate", o.disconnectRate, 0, 100);
  checkNumber("stallRate", o.stallRate, 0, 100);
  checkNumber("stallMs", o.stallMs, 0, 3_600_000);
  checkNumber("shutdownGraceMs", o.shutdownGraceMs, 0, 3_600_000);
  checkNumber("dcgmGpus", o.dcgmGpus, 0, 64, true);
  checkNumber("specDecodeTokens", o.specDecodeTokens, 0, 64, true);
  checkNumber("specDecodeAcceptance", o.specDecodeAcceptance, 0, 1);
  checkNumber("slots", o.slots, 0, 1_000_000, true);
  if (o.seed !== undefined) checkNumber("seed", o.seed, 0, 0xffffffff, true);
  if (typeof o.host !== "string" || o.host.length === 0) throw new RangeError("host must be a non-empty string.");
  if (o.models.length === 0 || o.models.some((m) => typeof m !== "string" || m.length === 0)) {
    throw new RangeError(`models must be one or more non-empty names, got ${JSON.stringify(o.models)}.`);
  }
  if (o.apiKey !== undefined && o.apiKey.length === 0) throw new RangeError("apiKey must not be empty.");
  if (o.recordRequests !== undefined && (typeof o.recordRequests !== "string" || o.recordRequests.length === 0)) {
    throw new RangeError("recordRequests must be a non-empty file path.");
  }
  if (o.answers !== undefined && (typeof o.answers !== "string" || o.answers.length === 0)) {
    throw new RangeError("answers must be a non-empty file path.");
  }
  return Object.freeze({ ...o, models: Object.freeze([...o.models]) });
}

function checkNumber(name: string, value: number, min: number, max: number, integer = false): void {
  if (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max) {
    throw new RangeError(`${name} must be a number from ${min} to ${max}, got ${String(value)}.`);
  }
  if (integer && !Number.isInteger(value)) {
    throw new RangeError(`${name} must be an integer, got ${value}.`);
  }
}

function dropUndefined<T extends object>(value: T): Partial<T> {
  const out: Partial<T> = {};
  for (const key of Object.keys(value) as (keyof T)[]) {
    if (value[key] !== undefined) out[key] = value[key];
  }
  return out;
}
