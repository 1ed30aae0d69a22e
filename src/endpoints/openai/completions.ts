/**
 * OpenAI Completions (`POST /v1/completions`, legacy text completions that vLLM, SGLang, TRT-LLM and
 * llama.cpp still serve). Reference: https://platform.openai.com/docs/api-reference/completions — request
 * `{model, prompt, stream, max_tokens}`; chunks `text_completion` with `choices[0].text`.
 * A single prompt is sent as a bare string (AIPerf checklist item 7), several as a list. The API has no
 * conversation: each turn is sent as its own prompt.
 */
import type { Turn } from "../../dataset/conversation.ts";
import type { BuildContext, Delta, EndpointAdapter } from "../endpoint_adapter.ts";
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
  readUsage,
} from "./openai_fields.ts";
import { COMPLETIONS_ENDPOINT } from "../endpoint_declarations.ts";
import { ChatChunkReader } from "./chat_chunk_reader.ts";

function readChoice(obj: JsonObject): Delta {
  const choices = Array.isArray(obj.choices) ? obj.choices : [];
  const choice = asObject(choices[0]);
  const finishReason = choice ? asText(choice.finish_reason) : undefined;
  return {
    content: choice ? asText(choice.text) : undefined,
    reasoning: choice ? readReasoning(choice) : undefined,
    usage: readUsage(obj.usage),
    finishReason,
    error: readApiError(obj),
    // Servers put their timing on the last chunk (with the finish reason) or a choice-less one: token chunks skip it.
    serverTiming: choice !== undefined && finishReason === undefined ? undefined : readBodyServerTiming(obj),
    specDecode: readSpecDecodePayload(obj),
  };
}

/** A whole body's JSON object; undefined for JSON that is not an object (the ordinary reading says what is wrong). */
function parseBodyObject(text: string): JsonObject | undefined {
  return asObject(JSON.parse(text));
}

const CHUNK = '{"id":"w","object":"text_completion","created":0,"model":"m","choices":';

export const COMPLETIONS_ADAPTER: EndpointAdapter = {
  ...COMPLETIONS_ENDPOINT,
  usesHistory: false,

  headers: openAiHeaders,

  buildRequest(turn: Turn, ctx: BuildContext): Record<string, unknown> {
    const prompt = turn.texts.length === 1 ? turn.texts[0] : [...turn.texts];
    const body: JsonObject = { model: turn.model ?? ctx.model, prompt, stream: ctx.streaming };
    if (ctx.maxTokens !== undefined) body.max_tokens = ctx.maxTokens;
    // Asked for on every stream, as AIPerf 0.13 does: vLLM sends its per-request statistics (speculative decoding)
    // on the usage chunk only.
    if (ctx.streaming) body.stream_options = { include_usage: true };
    return mergeExtras(body, ctx.extraInputs, turn.extra);
  },

  isStreamEnd: isDoneEvent,
  parseEvent(data: string): Delta | undefined {
    const obj = parseSseJson(data);
    return obj ? readChoice(obj) : undefined;
  },
  eventReader: () => new ChatChunkReader(parseSseJson, readChoice, readUsage, "text").read,
  bodyReader: () => new ChatChunkReader(parseBodyObject, readChoice, readUsage, "text").read,

  parseBody(json: unknown): Delta {
    const obj = asObject(json);
    if (!obj) return { error: { message: "the response body is not a JSON object", type: "ParseError" } };
    return readChoice(obj);
  },

  // The API has no system message and the body sends none, so it is not part of the ISL (AIPerf: completions does
  // not consume the system message).
  inputText: (turn: Turn): string => turn.texts.join(" "), // a list prompt: AIPerf joins its strings by a space

  sampleResponses: {
    stream: [
      `${CHUNK}[{"index":0,"text":" Hello","finish_reason":null}]}`,
      `${CHUNK}[{"index":0,"text":" world","finish_reason":"length"}]}`,
      `${CHUNK}[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`,
      "[DONE]",
    ].map((data) => `data: ${data}\n\n`).join(""),
    body: '{"id":"w","object":"text_completion","created":0,"model":"m","choices":[{"index":0,"text":"Hello world",' +
      '"finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}',
  },
};
