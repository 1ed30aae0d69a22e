/**
 * Reads the fields the simulated server acts on from a chat or completions request body and rejects malformed
 * ones with 400s (the checks vLLM's request models make that matter to a benchmark).
 *
 * Wire formats: OpenAI Chat Completions (`messages`, `max_completion_tokens` over the deprecated `max_tokens`,
 * `stream`, `stream_options.include_usage`, `reasoning_effort`) and legacy Completions (`prompt` as a string, a
 * list of strings, or token ids; `max_tokens`). vLLM extensions: `min_tokens`, `ignore_eos`,
 * `stream_options.continuous_usage_stats`, `chat_template_kwargs.enable_thinking`; `min_tokens` and `ignore_eos`
 * are also read from an `nvext` (NVIDIA Dynamo/NIM) or `extra_body` object when not at the top level.
 */
import { SimRequestError } from "./sim_error.ts";

export type SimEndpoint = "chat" | "completions";

export interface GenerationRequest {
  readonly endpoint: SimEndpoint;
  /** `model` as sent, undefined when absent. */
  readonly model: string | undefined;
  readonly stream: boolean;
  /** `stream_options.include_usage`: a final `"choices": []` chunk with usage. */
  readonly includeUsage: boolean;
  /** `stream_options.continuous_usage_stats` (vLLM): usage so far on every chunk. */
  readonly continuousUsage: boolean;
  /** Output cap; undefined = none sent. */
  readonly maxTokens: number | undefined;
  /** @default 0 */
  readonly minTokens: number;
  readonly ignoreEos: boolean;
  /** Texts whose token counts sum to `prompt_tokens`. */
  readonly promptTexts: readonly string[];
  /** Prompt tokens sent as ids (completions), counted as they are. */
  readonly promptTokenIds: number;
  /** `reasoning_effort` as sent (chat). */
  readonly reasoningEffort: string | undefined;
  /** `chat_template_kwargs.enable_thinking === false` turns reasoning off (vLLM/Qwen convention). */
  readonly thinkingDisabled: boolean;
}

type Json = Record<string, unknown>;

/** Parse a JSON body already decoded; throws `SimRequestError` (400) naming the offending field. */
export function parseGenerationRequest(endpoint: SimEndpoint, body: unknown): GenerationRequest {
  if (!isObject(body)) throw bad("The request body must be a JSON object.");
  const model = body.model;
  if (model !== undefined && model !== null && typeof model !== "string") {
    throw bad("'model' must be a string.", "model");
  }
  const stream = optionalBoolean(body, "stream") ?? false;
  const streamOptions = body.stream_options;
  if (streamOptions !== undefined && streamOptions !== null && !isObject(streamOptions)) {
    throw bad("'stream_options' must be an object.", "stream_options");
  }
  const includeUsage = streamOptions
    ? optionalBoolean(streamOptions, "include_usage", "stream_options.") ?? false
    : false;
  const continuousUsage = streamOptions
    ? optionalBoolean(streamOptions, "continuous_usage_stats", "stream_options.") ?? false
    : false;

  let maxTokens: number | undefined;
  if (endpoint === "chat") {
    maxTokens = optionalCount(body, "max_completion_tokens", 1) ?? optionalCount(body, "max_tokens", 1);
  } else {
    maxTokens = optionalCount(body, "max_tokens", 1);
  }
  const nested = [body.nvext, body.extra_body].filter(isObject);
  const minTokens = optionalCount(body, "min_tokens", 0) ??
    firstDefined(nested.map((o) => optionalCount(o, "min_tokens", 0))) ?? 0;
  const ignoreEos = optionalBoolean(body, "ignore_eos") ??
    firstDefined(nested.map((o) => optionalBoolean(o, "ignore_eos"))) ?? false;
  if (maxTokens !== undefined && minTokens > maxTokens) {
    throw bad(`min_tokens (${minTokens}) must be less than or equal to max_tokens (${maxTokens}).`, "min_tokens");
  }

  const promptTexts: string[] = [];
  let promptTokenIds = 0;
  let reasoningEffort: string | undefined;
  let thinkingDisabled = false;
  if (endpoint === "chat") {
    readMessages(body.messages, promptTexts);
    const effort = body.reasoning_effort;
    if (effort !== undefined && effort !== null) {
      if (typeof effort !== "string") throw bad("'reasoning_effort' must be a string.", "reasoning_effort");
      reasoningEffort = effort;
    }
    const kwargs = body.chat_template_kwargs;
    if (isObject(kwargs) && kwargs.enable_thinking === false) thinkingDisabled = true;
  } else {
    promptTokenIds = readPrompt(body.prompt, promptTexts);
  }

  return {
    endpoint,
    model: typeof model === "string" ? model : undefined,
    stream,
    includeUsage,
    continuousUsage,
    maxTokens,
    minTokens,
    ignoreEos,
    promptTexts,
    promptTokenIds,
    reasoningEffort,
    thinkingDisabled,
  };
}

function readMessages(messages: unknown, out: string[]): void {
  if (!Array.isArray(messages) || messages.length === 0) {
    throw bad("'messages' must be a non-empty array of messages.", "messages");
  }
  for (let i = 0; i < messages.length; i++) {
    const message: unknown = messages[i];
    if (!isObject(message) || typeof message.role !== "string") {
      throw bad(`messages[${i}] must be an object with a string 'role'.`, `messages[${i}]`);
    }
    const content = message.content;
    if (typeof content === "string") {
      out.push(content);
    } else if (Array.isArray(content)) {
      // Text parts joined with newlines; media parts carry no text tokens here.
      const texts: string[] = [];
      for (const part of content) {
        if (isObject(part) && part.type === "text" && typeof part.text === "string") texts.push(part.text);
      }
      if (texts.length > 0) out.push(texts.join("\n"));
    } else if (content !== undefined && content !== null) {
      throw bad(`messages[${i}].content must be a string, an array of parts, or null.`, `messages[${i}].content`);
    }
  }
}

/** Collects prompt strings into `out`; returns the number of prompt tokens given as ids. */
function readPrompt(prompt: unknown, out: string[]): number {
  if (typeof prompt === "string") {
    out.push(prompt);
    return 0;
  }
  if (Array.isArray(prompt) && prompt.length > 0) {
    if (prompt.every((p) => typeof p === "string")) {
      out.push(...(prompt as string[]));
      return 0;
    }
    if (prompt.every(isTokenId)) return prompt.length;
    if (prompt.every((p) => Array.isArray(p) && p.length > 0 && p.every(isTokenId))) {
      let n = 0;
      for (const p of prompt as unknown[][]) n += p.length;
      return n;
    }
  }
  throw bad("'prompt' must be a string, a non-empty list of strings, or token ids.", "prompt");
}

function optionalBoolean(o: Json, key: string, prefix = ""): boolean | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "boolean") throw bad(`'${prefix}${key}' must be a boolean.`, prefix + key);
  return v;
}

function optionalCount(o: Json, key: string, min: number): number | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < min) {
    throw bad(`'${key}' must be an integer of at least ${min}, got ${JSON.stringify(v)}.`, key);
  }
  return v;
}

function firstDefined<T>(values: readonly (T | undefined)[]): T | undefined {
  for (const v of values) if (v !== undefined) return v;
  return undefined;
}

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isTokenId(v: unknown): boolean {
  return typeof v === "number" && Number.isInteger(v) && v >= 0;
}

function bad(message: string, param: string | null = null): SimRequestError {
  return new SimRequestError(400, "invalid_request_error", message, param);
}
