/**
 * A response's `usage` object → `Usage`, with the vendor synonyms AIPerf 0.13 recognises (its `Usage` model):
 *
 * - prompt: `prompt_tokens` (OpenAI, vLLM, DeepSeek, Mistral), `input_tokens` (Anthropic, Responses API),
 *   `promptTokenCount` (Gemini), `inputTokens` (Bedrock), `input_token_count` (watsonx). Anthropic and Bedrock count
 *   `input_tokens` without the cache: when their cache fields are present the prompt is input + cache read + cache
 *   write, so `promptTokens` means every token processed as input for every vendor.
 * - completion: `completion_tokens`, `output_tokens`, `candidatesTokenCount`, `outputTokens`, `generated_token_count`;
 *   total: `total_tokens`, `totalTokenCount`, `totalTokens`.
 * - reasoning: `completion_tokens_details.reasoning_tokens` (or `output_tokens_details`), else Gemini's
 *   `thoughtsTokenCount`; accepted / rejected prediction tokens and audio tokens from the same details (audio
 *   tokens of the prompt from `prompt_tokens_details`).
 * - cache read: `prompt_tokens_details.cached_tokens` (or `input_tokens_details`), else `cache_read_input_tokens`,
 *   `prompt_cache_hit_tokens`, `cachedContentTokenCount`, `cacheReadInputTokens`, `cached_tokens`; cache write:
 *   `cache_creation_input_tokens`, `cacheWriteInputTokens`; cache miss: `prompt_cache_miss_tokens`.
 * - Gemini's `usageMetadata` and Cohere's `meta.tokens` / `tokens` envelopes are read as if at the top level.
 */
import type { Usage } from "./endpoint_adapter.ts";

type JsonObject = Record<string, unknown>;

function asObject(value: unknown): JsonObject | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value as JsonObject : undefined;
}

/**
 * A count as the server sent it, checked later (engine/usage_check.ts): absent or null → undefined, any number as it
 * is (negative, fractional or infinite included), anything else → NaN, so a wrong value is reported, never dropped.
 */
function asNumber(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === "number" ? value : NaN;
}

const PROMPT_DETAILS = ["prompt_tokens_details", "input_tokens_details"];
const COMPLETION_DETAILS = ["completion_tokens_details", "output_tokens_details"];
const PROMPT = ["prompt_tokens", "input_tokens", "promptTokenCount", "inputTokens", "input_token_count"];
const COMPLETION = [
  "completion_tokens",
  "output_tokens",
  "candidatesTokenCount",
  "outputTokens",
  "generated_token_count",
];
const TOTAL = ["total_tokens", "totalTokenCount", "totalTokens"];
const CACHE_READ = [
  "cache_read_input_tokens",
  "prompt_cache_hit_tokens",
  "cachedContentTokenCount",
  "cacheReadInputTokens",
  "cached_tokens",
];
const CACHE_WRITE = ["cache_creation_input_tokens", "cacheWriteInputTokens"];
/** Vendors whose input count leaves the cache out, and the cache fields that say so. */
const DISJOINT_INPUT = new Set(["input_tokens", "inputTokens"]);
const DISJOINT_CACHE = [
  "cache_read_input_tokens",
  "cache_creation_input_tokens",
  "cacheReadInputTokens",
  "cacheWriteInputTokens",
];

/** The value of the first key present (AIPerf: present, even when not a number, ends the search). */
function first(u: JsonObject, keys: readonly string[]): number | undefined {
  for (const key of keys) if (key in u) return asNumber(u[key]);
  return undefined;
}

function inDetails(u: JsonObject, detailKeys: readonly string[], field: string): number | undefined {
  for (const key of detailKeys) {
    const details = asObject(u[key]);
    if (details !== undefined && field in details) return asNumber(details[field]);
  }
  return undefined;
}

function promptTokens(u: JsonObject): number | undefined {
  for (const key of PROMPT) {
    if (!(key in u)) continue;
    const value = asNumber(u[key]);
    if (value !== undefined && DISJOINT_INPUT.has(key) && DISJOINT_CACHE.some((k) => k in u)) {
      return value + DISJOINT_CACHE.reduce((n, k) => n + (asNumber(u[k]) ?? 0), 0);
    }
    return value;
  }
  return undefined;
}

/** Envelopes some vendors put around the counts, lifted to the top level (existing keys win). */
function unwrapped(u: JsonObject): JsonObject {
  const meta = asObject(u.meta);
  const lifted = [asObject(u.usageMetadata), asObject(meta?.tokens), asObject(u.tokens)];
  if (lifted.every((o) => o === undefined) && meta?.cached_tokens === undefined) return u;
  const out: JsonObject = { ...u };
  for (const o of lifted) for (const [k, v] of Object.entries(o ?? {})) if (!(k in out)) out[k] = v;
  if (meta !== undefined && "cached_tokens" in meta && !("cached_tokens" in out)) {
    out.cached_tokens = meta.cached_tokens;
  }
  return out;
}

/** `usage` → `Usage`; undefined when the object carries no prompt, completion or total count. */
export function readUsageFields(value: unknown): Usage | undefined {
  const raw = asObject(value);
  if (raw === undefined) return undefined;
  const u = unwrapped(raw);
  const fields: Record<string, number | undefined> = {
    promptTokens: promptTokens(u),
    completionTokens: first(u, COMPLETION),
    totalTokens: first(u, TOTAL),
    reasoningTokens: inDetails(u, COMPLETION_DETAILS, "reasoning_tokens") ?? first(u, ["thoughtsTokenCount"]),
    promptCacheReadTokens: inDetails(u, PROMPT_DETAILS, "cached_tokens") ?? first(u, CACHE_READ),
    promptCacheWriteTokens: first(u, CACHE_WRITE),
    promptCacheMissTokens: first(u, ["prompt_cache_miss_tokens"]),
    acceptedPredictionTokens: inDetails(u, COMPLETION_DETAILS, "accepted_prediction_tokens"),
    rejectedPredictionTokens: inDetails(u, COMPLETION_DETAILS, "rejected_prediction_tokens"),
    promptAudioTokens: inDetails(u, PROMPT_DETAILS, "audio_tokens"),
    completionAudioTokens: inDetails(u, COMPLETION_DETAILS, "audio_tokens"),
    toolUsePromptTokens: first(u, ["toolUsePromptTokenCount"]),
    promptAudioSeconds: first(u, ["prompt_audio_seconds"]),
  };
  if (fields.promptTokens === undefined && fields.completionTokens === undefined && fields.totalTokens === undefined) {
    return undefined;
  }
  // A loop over keys rather than `Object.entries`: this runs for every response, and the pairs array it built
  // was a measurable share of what the engine thread allocates per 1-token request.
  const usage: Record<string, number> = {};
  for (const k in fields) {
    const v = fields[k];
    if (v !== undefined) usage[k] = v;
  }
  return usage as Usage;
}
