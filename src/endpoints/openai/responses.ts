/**
 * OpenAI Responses (`POST /v1/responses`). Reference: https://platform.openai.com/docs/api-reference/responses —
 * request `{model, input, instructions, max_output_tokens, stream}`: `input` is an array of message items whose
 * `content` is a string or parts (`input_text`, `input_image` with `image_url` as a plain string, `input_audio`
 * `{data, format}` as in chat); the system prompt is the top-level `instructions`, not an input item. There is one
 * output-cap field, so `--use-legacy-max-tokens` is refused. With `--use-server-token-count` a streamed request
 * also asks `stream_options.include_usage` (AIPerf), though usage always arrives in `response.completed`.
 *
 * Stream vocabulary (typed events, `type` in the payload): `response.output_text.delta` → content,
 * `response.reasoning_text.delta` → reasoning, `response.function_call_arguments.delta` → tool-call text,
 * `response.output_text.done` → the part's whole text, counted only when no delta carried it (a server that sends
 * text only in done events), `response.completed` → usage (`input_tokens`, `output_tokens`,
 * `output_tokens_details.reasoning_tokens`); `response.failed`, `error` and `response.incomplete` (for any reason but
 * the `max_output_tokens` cap the benchmark asked for) fail the request with the server's message. Every other event
 * (created, in_progress, output_item.*, content_part.*, annotations, refusal deltas, summaries, unknown ones) is
 * skipped. A whole answer is a `response` object whose `output[]` holds `message` items (`output_text` parts),
 * `reasoning` items (`summary_text` / `reasoning_text`) and `function_call` items (name + arguments, as AIPerf).
 *
 * A conversation's earlier turns go first as user message items, each followed by the server's real reply as an
 * assistant message item, then the current turn (AIPerf's default context mode).
 */
import type { Turn } from "../../dataset/conversation.ts";
import type { BuildContext, Delta, EndpointAdapter, PriorExchange } from "../endpoint_adapter.ts";
import {
  asObject,
  asText,
  type JsonObject,
  mergeExtras,
  openAiHeaders,
  parseSseJson,
  readApiError,
  readUsage,
} from "./openai_fields.ts";
import { namedSseEvent as ev } from "../named_sse_event.ts";
import { RESPONSES_ENDPOINT } from "../endpoint_declarations.ts";

/**
 * A single text alone is a plain string (as AIPerf, since some servers refuse parts then); otherwise the texts as
 * `input_text` parts, then `input_image` per image, `input_audio` per audio. The API takes no video.
 */
function inputContent(turn: Turn): string | JsonObject[] {
  const media = turn.media ?? [];
  if (turn.texts.length === 1 && media.length === 0) return turn.texts[0];
  const parts: JsonObject[] = turn.texts.map((text) => ({ type: "input_text", text }));
  for (const kind of ["image", "audio"] as const) {
    for (const item of media) {
      if (item.kind !== kind) continue;
      const url = item.url ?? item.dataUrl!;
      if (kind === "image") parts.push({ type: "input_image", image_url: url });
      else {
        const m = /^data:audio\/([^;,]+)[^,]*,(.*)$/s.exec(url);
        parts.push({ type: "input_audio", input_audio: { data: m ? m[2] : url, format: m ? m[1] : "wav" } });
      }
    }
  }
  return parts;
}

/** The message of a failed or incomplete response object (`response.failed` event, or a whole body). */
function responseFailure(response: JsonObject | undefined, event: string): Delta["error"] | undefined {
  if (!response) return { message: `the server sent ${event} without a response object`, type: event };
  const status = response.status;
  if (status === "failed") {
    const err = asObject(response.error);
    return {
      message: asText(err?.message) ?? `the response failed (${JSON.stringify(response.error ?? null)})`,
      type: asText(err?.code) ?? "response.failed",
    };
  }
  if (status === "incomplete") {
    const reason = asText(asObject(response.incomplete_details)?.reason);
    // Stopping at max_output_tokens is the length the benchmark asked for: a complete answer, finish reason length.
    if (reason === "max_output_tokens") return undefined;
    return { message: `the response is incomplete: ${reason ?? "no reason given"}`, type: "response.incomplete" };
  }
  return undefined;
}

function readEvent(obj: JsonObject): Delta | undefined {
  switch (obj.type) {
    case "response.output_text.delta":
      return { content: asText(obj.delta) };
    case "response.reasoning_text.delta":
      return { reasoning: asText(obj.delta) };
    case "response.function_call_arguments.delta":
      return { toolCalls: asText(obj.delta) };
    case "response.output_text.done": {
      const text = asText(obj.text);
      return text === undefined ? undefined : { finalContent: text };
    }
    case "response.completed": {
      const response = asObject(obj.response);
      return { usage: readUsage(response?.usage), finishReason: finishReason(response) };
    }
    case "response.incomplete": {
      const response = asObject(obj.response);
      return {
        usage: readUsage(response?.usage),
        finishReason: finishReason(response),
        error: responseFailure(response, "response.incomplete"),
      };
    }
    case "response.failed": {
      const response = asObject(obj.response);
      return { usage: readUsage(response?.usage), error: responseFailure(response, "response.failed") };
    }
    case "error":
    case "response.error":
      return {
        error: {
          message: asText(obj.message) ?? readApiError(obj)?.message ?? JSON.stringify(obj),
          type: asText(obj.code) ?? "error",
        },
      };
    default:
      return undefined;
  }
}

function finishReason(response: JsonObject | undefined): string | undefined {
  if (!response) return undefined;
  if (response.status === "completed") return "stop";
  if (asObject(response.incomplete_details)?.reason === "max_output_tokens") return "length";
  return undefined;
}

/** A whole `response` object: text of `message` items, reasoning of `reasoning` items, `function_call` text. */
function readResponse(obj: JsonObject): Delta {
  let text = "";
  let reasoning = "";
  let tools = "";
  for (const raw of Array.isArray(obj.output) ? obj.output : []) {
    const item = asObject(raw);
    if (!item) continue;
    if (item.type === "message") {
      for (const p of Array.isArray(item.content) ? item.content : []) {
        const part = asObject(p);
        if (part?.type === "output_text" && typeof part.text === "string") text += part.text;
      }
    } else if (item.type === "reasoning") {
      for (const key of ["content", "summary"]) {
        for (const p of Array.isArray(item[key]) ? item[key] as unknown[] : []) {
          const part = asObject(p);
          if ((part?.type === "reasoning_text" || part?.type === "summary_text") && typeof part.text === "string") {
            reasoning += part.text;
          }
        }
      }
    } else if (item.type === "function_call") {
      if (typeof item.name === "string") tools += item.name;
      if (typeof item.arguments === "string") tools += item.arguments;
    }
  }
  // The SDKs' convenience field, for servers that send only it.
  if (text === "" && typeof obj.output_text === "string") text = obj.output_text;
  return {
    content: asText(text),
    reasoning: asText(reasoning),
    toolCalls: asText(tools),
    usage: readUsage(obj.usage),
    finishReason: finishReason(obj),
    error: obj.status === undefined ? readApiError(obj) : responseFailure(obj, "a response body"),
  };
}

export const RESPONSES_ADAPTER: EndpointAdapter = {
  ...RESPONSES_ENDPOINT,
  usesHistory: true,

  headers: openAiHeaders,

  buildRequest(turn: Turn, ctx: BuildContext, history: readonly PriorExchange[]): Record<string, unknown> {
    const input: JsonObject[] = [];
    for (const prior of history) {
      input.push({ type: "message", role: prior.turn.role ?? "user", content: inputContent(prior.turn) });
      if (prior.reply !== undefined) input.push({ type: "message", role: "assistant", content: prior.reply });
    }
    input.push({ type: "message", role: turn.role ?? "user", content: inputContent(turn) });
    const body: JsonObject = { model: turn.model ?? ctx.model, input, stream: ctx.streaming };
    if (ctx.systemMessage !== undefined) body.instructions = ctx.systemMessage;
    if (ctx.maxTokens !== undefined) body.max_output_tokens = ctx.maxTokens;
    mergeExtras(body, ctx.extraInputs, turn.extra);
    // After the extras, keeping an include_usage the user set (AIPerf).
    if (ctx.streaming && ctx.useServerTokenCount) {
      const so = asObject(body.stream_options);
      if (!so) body.stream_options = { include_usage: true };
      else if (!("include_usage" in so)) body.stream_options = { ...so, include_usage: true };
    }
    return body;
  },

  parseEvent(data: string): Delta | undefined {
    const obj = parseSseJson(data);
    if (!obj) return undefined;
    // A plain API error object (`{"error": {...}}`) sent in the stream.
    if (typeof obj.type !== "string") {
      return obj.object === "response" ? readResponse(obj) : { error: readApiError(obj) };
    }
    return readEvent(obj);
  },

  parseBody(json: unknown): Delta {
    const obj = asObject(json);
    if (!obj) return { error: { message: "the response body is not a JSON object", type: "ParseError" } };
    // A server that streams though asked not to: its last event is read as one.
    return typeof obj.type === "string" ? readEvent(obj) ?? {} : readResponse(obj);
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

  requestedOutputTokens(body: Readonly<Record<string, unknown>>): number | undefined {
    const v = body.max_output_tokens;
    return typeof v === "number" ? v : undefined;
  },

  sampleResponses: {
    stream: [
      ev(
        "response.created",
        '{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response",' +
          '"created_at":0,"status":"in_progress","model":"m","output":[],"usage":null}}',
      ),
      ev(
        "response.output_item.added",
        '{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"msg_1",' +
          '"type":"message","status":"in_progress","role":"assistant","content":[]}}',
      ),
      ev(
        "response.output_text.delta",
        '{"type":"response.output_text.delta","sequence_number":2,"item_id":"msg_1","output_index":0,' +
          '"content_index":0,"delta":" Hello","logprobs":[]}',
      ),
      ev(
        "response.output_text.delta",
        '{"type":"response.output_text.delta","sequence_number":3,"item_id":"msg_1","output_index":0,' +
          '"content_index":0,"delta":" world","logprobs":[]}',
      ),
      ev(
        "response.completed",
        '{"type":"response.completed","sequence_number":4,"response":{"id":"resp_1","object":"response",' +
          '"created_at":0,"status":"completed","model":"m","output":[{"id":"msg_1","type":"message",' +
          '"status":"completed","role":"assistant","content":[{"type":"output_text","text":" Hello world",' +
          '"annotations":[]}]}],"usage":{"input_tokens":3,"input_tokens_details":{"cached_tokens":0},' +
          '"output_tokens":2,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":5}}}',
      ),
    ].join(""),
    body: '{"id":"resp_1","object":"response","created_at":0,"status":"completed","model":"m","output":[' +
      '{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text",' +
      '"text":"Hello world","annotations":[]}]}],"usage":{"input_tokens":3,"input_tokens_details":' +
      '{"cached_tokens":0},"output_tokens":2,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":5}}',
  },
};
