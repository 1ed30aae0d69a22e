/**
 * What the OpenAI-style routes share: the request fields both APIs accept and their `usage` object.
 *
 * Request: `model`, `stream`, `stream_options.include_usage` (a final `"choices": []` chunk with usage), the
 * output cap, and vLLM's extensions `min_tokens`, `ignore_eos` (also read from an `nvext` (NVIDIA Dynamo/NIM) or
 * `extra_body` object when not at the top level) and `stream_options.continuous_usage_stats` (usage so far on
 * every chunk). These are the checks vLLM's request models make that matter to a benchmark.
 */
import type { FinishReason, GenerationPlan } from "../plan_generation.ts";
import {
  badRequest,
  isJsonObject,
  type JsonObject,
  optionalBoolean,
  optionalCount,
  optionalObject,
} from "../request_fields.ts";

export interface OpenAiFields {
  readonly model: string | undefined;
  readonly stream: boolean;
  readonly includeUsage: boolean;
  readonly continuousUsage: boolean;
  readonly maxTokens: number | undefined;
  readonly minTokens: number;
  readonly ignoreEos: boolean;
}

/** Reads the shared fields; the cap is the first of `maxTokenKeys` present (e.g. the current name, then the old). */
export function readOpenAiFields(body: JsonObject, maxTokenKeys: readonly string[]): OpenAiFields {
  const model = body.model;
  if (model !== undefined && model !== null && typeof model !== "string") {
    throw badRequest("'model' must be a string.", "model");
  }
  const stream = optionalBoolean(body, "stream") ?? false;
  const streamOptions = optionalObject(body, "stream_options");
  const includeUsage = streamOptions
    ? optionalBoolean(streamOptions, "include_usage", "stream_options.") ?? false
    : false;
  const continuousUsage = streamOptions
    ? optionalBoolean(streamOptions, "continuous_usage_stats", "stream_options.") ?? false
    : false;
  let maxTokens: number | undefined;
  for (const key of maxTokenKeys) {
    maxTokens ??= optionalCount(body, key, 1);
  }
  const nested = [body.nvext, body.extra_body].filter(isJsonObject);
  const minTokens = optionalCount(body, "min_tokens", 0) ??
    firstDefined(nested.map((o) => optionalCount(o, "min_tokens", 0))) ?? 0;
  const ignoreEos = optionalBoolean(body, "ignore_eos") ??
    firstDefined(nested.map((o) => optionalBoolean(o, "ignore_eos"))) ?? false;
  if (maxTokens !== undefined && minTokens > maxTokens) {
    throw badRequest(
      `min_tokens (${minTokens}) must be less than or equal to max_tokens (${maxTokens}).`,
      "min_tokens",
    );
  }
  return {
    model: typeof model === "string" ? model : undefined,
    stream,
    includeUsage,
    continuousUsage,
    maxTokens,
    minTokens,
    ignoreEos,
  };
}

/**
 * The `usage` JSON text after `completionTokens` tokens; reasoning details only when the plan has reasoning. With
 * `--usage-details` (`plan.details`) OpenAI's full shape: `prompt_tokens_details` {cached_tokens, audio_tokens} and
 * `completion_tokens_details` {reasoning_tokens, audio_tokens, accepted_prediction_tokens,
 * rejected_prediction_tokens}, where a prediction's tokens are accepted up to the content tokens sent so far and
 * the rest rejected.
 */
export function usageJson(plan: GenerationPlan, completionTokens: number, reasoningTokens: number): string {
  const p = plan.promptTokens;
  const total = p + completionTokens;
  const counts = `"prompt_tokens":${p},"completion_tokens":${completionTokens},"total_tokens":${total}`;
  const d = plan.details;
  if (d !== undefined) {
    const accepted = Math.min(d.predictionTokens, Math.max(0, completionTokens - reasoningTokens));
    return `{${counts},"prompt_tokens_details":{"cached_tokens":${d.cachedTokens},"audio_tokens":0},` +
      `"completion_tokens_details":{"reasoning_tokens":${reasoningTokens},"audio_tokens":0,` +
      `"accepted_prediction_tokens":${accepted},"rejected_prediction_tokens":${d.predictionTokens - accepted}}}`;
  }
  const details = plan.reasoningTokens > 0
    ? `,"completion_tokens_details":{"reasoning_tokens":${reasoningTokens}}`
    : "";
  return `{${counts}${details}}`;
}

/** The texts of an OpenAI Predicted Outputs `prediction` (`{type: "content", content: string | text parts}`). */
export function readPrediction(body: JsonObject): string[] | undefined {
  const prediction = body.prediction;
  if (prediction === undefined || prediction === null) return undefined;
  if (!isJsonObject(prediction) || prediction.type !== "content") {
    throw badRequest("'prediction' must be an object with type 'content'.", "prediction");
  }
  const content = prediction.content;
  if (typeof content === "string") return [content];
  if (Array.isArray(content)) {
    return content.flatMap((part) => isJsonObject(part) && typeof part.text === "string" ? [part.text] : []);
  }
  throw badRequest("'prediction.content' must be a string or an array of text parts.", "prediction.content");
}

export function finishJson(reason: FinishReason | null): string {
  return reason === null ? "null" : `"${reason}"`;
}

function firstDefined<T>(values: readonly (T | undefined)[]): T | undefined {
  for (const v of values) if (v !== undefined) return v;
  return undefined;
}
