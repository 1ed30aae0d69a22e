/**
 * Anthropic Messages (`POST /v1/messages`). Reference: https://docs.anthropic.com/en/api/messages and
 * https://docs.anthropic.com/en/docs/build-with-claude/streaming — request `{model, messages, system, max_tokens
 * (required; 1024 when no output length is set, as AIPerf), stream}`; credentials in `x-api-key`, with
 * `anthropic-version: 2023-06-01`.
 *
 * Stream vocabulary: `message_start` (usage with `input_tokens` and cache counts), `content_block_start`,
 * `content_block_delta` (`text_delta` → content, `thinking_delta` → reasoning, `input_json_delta` → tool-call text,
 * `signature_delta` ignored), `content_block_stop`, `message_delta` (`stop_reason`, usage with `output_tokens`),
 * `message_stop`, `ping`, `error` (an in-stream error fails the request). The collector merges the two usage events.
 * A whole answer is a `message` whose `content` blocks are `text`, `thinking` and `tool_use` (name + input JSON
 * counted as output, like AIPerf).
 */
import type { Turn } from "../../dataset/conversation.ts";
import type { BuildContext, Delta, EndpointAdapter, HeaderContext, PriorExchange, Usage } from "../endpoint_adapter.ts";
import { asObject, asText, type JsonObject, mergeExtras, parseSseJson } from "../openai/openai_fields.ts";
import { namedSseEvent as ev } from "../named_sse_event.ts";
import { readUsageFields } from "../usage_fields.ts";
import { MESSAGES_ENDPOINT } from "../endpoint_declarations.ts";

/** The API version AIPerf sends; a `-H anthropic-version:…` replaces it. */
export const ANTHROPIC_VERSION = "2023-06-01";
/** `max_tokens` is required by the API; AIPerf's value when the run sets no output length. */
const DEFAULT_MAX_TOKENS = 1024;

function userContent(turn: Turn): string | { type: "text"; text: string }[] {
  if (turn.texts.length === 1) return turn.texts[0];
  return turn.texts.map((text) => ({ type: "text" as const, text }));
}

/**
 * `input_tokens` (plus `cache_read_input_tokens` and `cache_creation_input_tokens` when present: Anthropic counts the
 * cache apart), `output_tokens`. No total: the API reports none, and the two streamed usage events each carry only
 * part of the counts.
 */
function readAnthropicUsage(value: unknown): Usage | undefined {
  return readUsageFields(value);
}

function readError(obj: JsonObject): Delta["error"] | undefined {
  if (obj.type !== "error") return undefined;
  const err = asObject(obj.error);
  return { message: asText(err?.message) ?? JSON.stringify(obj), type: asText(err?.type) ?? "error" };
}

function readEvent(obj: JsonObject): Delta | undefined {
  switch (obj.type) {
    case "message_start":
      return { usage: readAnthropicUsage(asObject(obj.message)?.usage) };
    case "content_block_delta": {
      const delta = asObject(obj.delta);
      if (!delta) return undefined;
      if (delta.type === "text_delta") return { content: asText(delta.text) };
      if (delta.type === "thinking_delta") return { reasoning: asText(delta.thinking) };
      if (delta.type === "input_json_delta") return { toolCalls: asText(delta.partial_json) };
      return undefined;
    }
    case "content_block_start": {
      // A tool call's name arrives here; the model generated it, so it counts as output like its arguments.
      const block = asObject(obj.content_block);
      return block?.type === "tool_use" ? { toolCalls: asText(block.name) } : undefined;
    }
    case "message_delta":
      return { usage: readAnthropicUsage(obj.usage), finishReason: asText(asObject(obj.delta)?.stop_reason) };
    case "error":
      return { error: readError(obj) };
    case "message":
      return readMessage(obj);
    default:
      return undefined;
  }
}

function readMessage(obj: JsonObject): Delta {
  let text = "";
  let thinking = "";
  let tools = "";
  for (const item of Array.isArray(obj.content) ? obj.content : []) {
    const block = asObject(item);
    if (!block) continue;
    if (block.type === "text" && typeof block.text === "string") text += block.text;
    else if (block.type === "thinking" && typeof block.thinking === "string") thinking += block.thinking;
    else if (block.type === "tool_use") {
      if (typeof block.name === "string") tools += block.name;
      if (block.input !== undefined && block.input !== null) tools += JSON.stringify(block.input);
    }
  }
  return {
    content: text.length > 0 ? text : undefined,
    reasoning: thinking.length > 0 ? thinking : undefined,
    toolCalls: tools.length > 0 ? tools : undefined,
    usage: readAnthropicUsage(obj.usage),
    finishReason: asText(obj.stop_reason),
  };
}

export const MESSAGES_ADAPTER: EndpointAdapter = {
  ...MESSAGES_ENDPOINT,
  usesHistory: true,

  headers(ctx: HeaderContext): ReadonlyArray<readonly [string, string]> {
    const headers: [string, string][] = [
      ["Content-Type", "application/json"],
      ["Accept", ctx.streaming ? "text/event-stream" : "application/json"],
      ["anthropic-version", ANTHROPIC_VERSION],
    ];
    if (ctx.apiKey !== undefined) headers.push(["x-api-key", ctx.apiKey]);
    return headers;
  },

  buildRequest(turn: Turn, ctx: BuildContext, history: readonly PriorExchange[]): Record<string, unknown> {
    const messages: JsonObject[] = [];
    for (const prior of history) {
      messages.push({ role: prior.turn.role ?? "user", content: userContent(prior.turn) });
      if (prior.reply !== undefined) messages.push({ role: "assistant", content: prior.reply });
    }
    messages.push({ role: turn.role ?? "user", content: userContent(turn) });
    const body: JsonObject = {
      model: turn.model ?? ctx.model,
      messages,
      max_tokens: ctx.maxTokens ?? DEFAULT_MAX_TOKENS,
    };
    if (ctx.streaming) body.stream = true;
    if (ctx.systemMessage !== undefined) body.system = ctx.systemMessage;
    return mergeExtras(body, ctx.extraInputs, turn.extra);
  },

  parseEvent(data: string): Delta | undefined {
    const obj = parseSseJson(data);
    return obj ? readEvent(obj) : undefined;
  },

  parseBody(json: unknown): Delta {
    const obj = asObject(json);
    if (!obj) return { error: { message: "the response body is not a JSON object", type: "ParseError" } };
    const error = readError(obj);
    return error ? { error } : readMessage(obj);
  },

  // AIPerf's bare-text ISL: every text the body carries (system message, each text part) joined by one space.
  inputText(turn: Turn, ctx: Pick<BuildContext, "systemMessage">): string {
    const text = turn.texts.join(" ");
    return ctx.systemMessage !== undefined ? ctx.systemMessage + " " + text : text;
  },

  chatMessages(turn: Turn, ctx: Pick<BuildContext, "systemMessage">) {
    const messages = ctx.systemMessage !== undefined ? [{ role: "system", content: ctx.systemMessage }] : [];
    messages.push({ role: turn.role ?? "user", content: turn.texts.join("") }); // parts concatenated, as AIPerf
    return messages;
  },

  sampleResponses: {
    stream: [
      ev(
        "message_start",
        '{"type":"message_start","message":{"id":"msg_w","type":"message","role":"assistant","content":[],' +
          '"model":"m","stop_reason":null,"usage":{"input_tokens":3,"output_tokens":1}}}',
      ),
      ev("content_block_start", '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}'),
      ev("ping", '{"type":"ping"}'),
      ev(
        "content_block_delta",
        '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" Hello"}}',
      ),
      ev(
        "content_block_delta",
        '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" world"}}',
      ),
      ev("content_block_stop", '{"type":"content_block_stop","index":0}'),
      ev(
        "message_delta",
        '{"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":2}}',
      ),
      ev("message_stop", '{"type":"message_stop"}'),
    ].join(""),
    body: '{"id":"msg_w","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":' +
      '"Hello world"}],"stop_reason":"max_tokens","stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":2}}',
  },
};
