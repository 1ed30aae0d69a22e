/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`).
 * Reference: https://platform.openai.com/docs/api-reference/chat — request `{model, messages, stream,
 * max_completion_tokens | max_tokens, stream_options}`; streaming chunks `chat.completion.chunk` with
 * `choices[0].delta.{content, reasoning_content | reasoning, tool_calls}`; the final usage chunk has
 * `choices: []`. vLLM puts reasoning in `reasoning_content` (or `reasoning` in newer versions).
 *
 * A conversation's earlier turns go first as user messages, each followed by the server's real reply as an
 * assistant message (AIPerf's default context mode), then the current turn.
 */
import type { Turn } from "../../dataset/conversation.ts";
import { messageText } from "../../dataset/message_text.ts";
import type { BuildContext, Delta, EndpointAdapter, PriorExchange } from "../endpoint_adapter.ts";
import { readBodyServerTiming } from "../server_timing.ts";
import { readSpecDecodePayload } from "../spec_decode.ts";
import {
  asObject,
  asText,
  isDoneEvent,
  type JsonObject,
  mergeExtras,
  openAiHeaders,
  parseSseJson,
  readApiError,
  readReasoning,
  readToolCallText,
  readUsage,
} from "./openai_fields.ts";
import { CHAT_ENDPOINT } from "../endpoint_declarations.ts";
import { ChatChunkReader } from "./chat_chunk_reader.ts";

/**
 * A single text alone is a plain string (some servers refuse parts then); otherwise content parts: the texts, then
 * `image_url` per image, `input_audio` (`{data, format}`, base64 without the data-URL header) per audio and
 * `video_url` (vLLM's extension) per video, as AIPerf renders them.
 */
function userContent(turn: Turn): string | JsonObject[] {
  const media = turn.media ?? [];
  if (turn.texts.length === 1 && media.length === 0) return turn.texts[0];
  const parts: JsonObject[] = turn.texts.map((text) => ({ type: "text", text }));
  for (const kind of ["image", "audio", "video"] as const) {
    for (const item of media) {
      if (item.kind !== kind) continue;
      const url = item.url ?? item.dataUrl!;
      if (kind === "image") parts.push({ type: "image_url", image_url: { url } });
      else if (kind === "video") parts.push({ type: "video_url", video_url: { url } });
      else {
        const m = /^data:audio\/([^;,]+)[^,]*,(.*)$/s.exec(url);
        parts.push({ type: "input_audio", input_audio: { data: m ? m[2] : url, format: m ? m[1] : "wav" } });
      }
    }
  }
  return parts;
}

/** A turn's messages: the ones written in the dataset as they are, else its user message. */
function pushTurn(messages: JsonObject[], turn: Turn): void {
  if (turn.messages !== undefined) {
    for (const m of turn.messages) messages.push({ ...m });
    return;
  }
  messages.push({ role: turn.role ?? "user", content: userContent(turn) });
}

function readChoice(obj: JsonObject, key: "delta" | "message"): Delta {
  const usage = readUsage(obj.usage);
  const error = readApiError(obj);
  const choices = Array.isArray(obj.choices) ? obj.choices : [];
  const choice = asObject(choices[0]);
  const part = choice ? asObject(choice[key]) : undefined;
  if (!part) {
    return {
      usage,
      error,
      finishReason: asText(choice?.finish_reason),
      serverTiming: readBodyServerTiming(obj),
      specDecode: readSpecDecodePayload(obj),
    };
  }
  const finishReason = asText(choice?.finish_reason);
  return {
    content: asText(part.content),
    reasoning: readReasoning(part),
    toolCalls: readToolCallText(part.tool_calls, part.function_call),
    usage,
    finishReason,
    error,
    // Servers put their timing on the last chunk (with the finish reason) or a choice-less one: token chunks skip it.
    serverTiming: finishReason === undefined ? undefined : readBodyServerTiming(obj),
    specDecode: readSpecDecodePayload(obj),
  };
}

function readChunk(obj: JsonObject): Delta {
  return readChoice(obj, "delta");
}

function parseChatEvent(data: string): Delta | undefined {
  const obj = parseSseJson(data);
  return obj ? readChunk(obj) : undefined;
}

/** A whole body's JSON object; undefined for JSON that is not an object (the ordinary reading says what is wrong). */
function parseBodyObject(text: string): JsonObject | undefined {
  return asObject(JSON.parse(text));
}

function parseChatBody(json: unknown): Delta {
  const obj = asObject(json);
  if (!obj) return { error: { message: "the response body is not a JSON object", type: "ParseError" } };
  // Some servers answer a streaming request with a plain completion (and vice versa); accept both shapes.
  const first = Array.isArray(obj.choices) ? asObject(obj.choices[0]) : undefined;
  return readChoice(
    obj,
    first && asObject(first.message) === undefined && asObject(first.delta) ? "delta" : "message",
  );
}

const CHUNK = '{"id":"w","object":"chat.completion.chunk","created":0,"model":"m","choices":';

export const CHAT_ADAPTER: EndpointAdapter = {
  ...CHAT_ENDPOINT,
  usesHistory: true,

  headers: openAiHeaders,

  buildRequest(turn: Turn, ctx: BuildContext, history: readonly PriorExchange[]): Record<string, unknown> {
    const messages: JsonObject[] = [];
    if (ctx.systemMessage !== undefined) messages.push({ role: "system", content: ctx.systemMessage });
    for (const prior of history) {
      pushTurn(messages, prior.turn);
      if (prior.reply !== undefined) messages.push({ role: "assistant", content: prior.reply });
    }
    pushTurn(messages, turn);
    const body: JsonObject = { model: turn.model ?? ctx.model, messages, stream: ctx.streaming };
    if (turn.tools !== undefined) body.tools = turn.tools;
    if (ctx.maxTokens !== undefined) {
      body[ctx.useLegacyMaxTokens ? "max_tokens" : "max_completion_tokens"] = ctx.maxTokens;
    }
    // AIPerf always asks for the usage chunk when streaming chat, so server counts are available; with
    // --per-chunk-usage, on every chunk.
    if (ctx.streaming) {
      body.stream_options = ctx.perChunkUsage === true
        ? { include_usage: true, continuous_usage_stats: true }
        : { include_usage: true };
    }
    return mergeExtras(body, ctx.extraInputs, turn.extra);
  },

  isStreamEnd: isDoneEvent,
  parseEvent: parseChatEvent,
  eventReader: () => new ChatChunkReader(parseSseJson, readChunk, readUsage).read,
  bodyReader: () => new ChatChunkReader(parseBodyObject, parseChatBody, readUsage, "message").read,

  parseBody: parseChatBody,

  // AIPerf's bare-text ISL: every text the body carries (system message, each text part) joined by one space.
  inputText(turn: Turn, ctx: Pick<BuildContext, "systemMessage">): string {
    const text = turn.texts.join(" ");
    return ctx.systemMessage !== undefined ? ctx.systemMessage + " " + text : text;
  },

  chatMessages(turn: Turn, ctx: Pick<BuildContext, "systemMessage">) {
    const messages = ctx.systemMessage !== undefined ? [{ role: "system", content: ctx.systemMessage }] : [];
    if (turn.messages !== undefined) {
      for (const m of turn.messages) messages.push({ role: String(m.role ?? "user"), content: messageText(m) });
      return messages;
    }
    messages.push({ role: turn.role ?? "user", content: turn.texts.join("") }); // parts concatenated, as AIPerf
    return messages;
  },

  sampleResponses: {
    stream: [
      `${CHUNK}[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
      `${CHUNK}[{"index":0,"delta":{"content":" Hello"},"finish_reason":null}]}`,
      `${CHUNK}[{"index":0,"delta":{"content":" world"},"finish_reason":"length"}]}`,
      `${CHUNK}[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`,
      "[DONE]",
    ].map((data) => `data: ${data}\n\n`).join(""),
    body: '{"id":"w","object":"chat.completion","created":0,"model":"m","choices":[{"index":0,"message":' +
      '{"role":"assistant","content":"Hello world"},"finish_reason":"length"}],' +
      '"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}',
  },
};
