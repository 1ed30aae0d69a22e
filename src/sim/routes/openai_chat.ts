/**
 * OpenAI Chat Completions as vLLM serves it (`POST /v1/chat/completions`), for the `chat` endpoint type.
 * Reference: https://platform.openai.com/docs/api-reference/chat
 *
 * Request: `messages` (each with a string `role`; `content` a string, an array of parts whose text parts count,
 * or null), `max_completion_tokens` over the deprecated `max_tokens`, `reasoning_effort`, vLLM's
 * `chat_template_kwargs.enable_thinking: false` (reasoning off), and the fields of `openai_fields.ts`.
 * Answer: a `chat.completion` with `message.content` (and `message.reasoning_content` when there is reasoning);
 * streamed, `chat.completion.chunk`s: a role delta with the first token, then `delta.reasoning_content` /
 * `delta.content` chunks.
 */
import type { GenerationRequest, ReasoningRequest } from "../generation_request.ts";
import { badRequest, isJsonObject, optionalString, requireObject } from "../request_fields.ts";
import type { ReplyContext, RouteRequest, SimRoute, StreamFraming } from "../sim_route.ts";
import { specDecodeMetricsField } from "../spec_decode_plan.ts";
import { type OpenAiChunkShape, OpenAiChunkStream, type OpenAiStreamOptions } from "./openai_chunk_stream.ts";
import { finishJson, readOpenAiFields, readPrediction, usageJson } from "./openai_fields.ts";

const SHAPE: OpenAiChunkShape = {
  object: "chat.completion.chunk",
  contentOpen: '{"index":0,"delta":{"content":"',
  reasoningOpen: '{"index":0,"delta":{"reasoning_content":"',
  textClose: '"},"logprobs":null,"finish_reason":',
  opening: '{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}',
};

/** The common case, shared rather than allocated per request. */
const DEFAULT_REASONING: ReasoningRequest = Object.freeze({ effort: undefined, disabled: false });

class ChatRequest implements RouteRequest {
  readonly generation: GenerationRequest;
  readonly #stream: OpenAiStreamOptions;

  constructor(generation: GenerationRequest, stream: OpenAiStreamOptions) {
    this.generation = generation;
    this.#stream = stream;
  }

  body(reply: ReplyContext, reasoning: string, content: string): string {
    const { plan } = reply;
    const usage = usageJson(plan, plan.reasoningTokens + plan.contentTokens, plan.reasoningTokens);
    const reasoningField = plan.reasoningTokens > 0 ? `,"reasoning_content":"${reasoning}"` : "";
    return `{"id":"${reply.id}","object":"chat.completion","created":${reply.created},"model":${
      JSON.stringify(reply.model)
    },"choices":[{"index":0,"message":{"role":"assistant","content":"${content}"${reasoningField}},` +
      `"logprobs":null,"finish_reason":${finishJson(plan.finishReason)}}],"usage":${usage}${
        specDecodeMetricsField(plan.specDecode)
      }}`;
  }

  stream(reply: ReplyContext): StreamFraming {
    return new OpenAiChunkStream(reply, SHAPE, this.#stream);
  }
}

export const OPENAI_CHAT_ROUTE: SimRoute = {
  name: "chat",
  description: "OpenAI chat completions, as vLLM answers them.",
  paths: ["/v1/chat/completions"],
  idPrefix: "chatcmpl-",

  parse(body: unknown): RouteRequest {
    const json = requireObject(body);
    const fields = readOpenAiFields(json, ["max_completion_tokens", "max_tokens"]);
    const media: Partial<Record<"image" | "audio" | "video", number>> = {};
    const promptTexts = readMessages(json.messages, media);
    const kwargs = json.chat_template_kwargs;
    const effort = optionalString(json, "reasoning_effort");
    const disabled = isJsonObject(kwargs) && kwargs.enable_thinking === false;
    const generation: GenerationRequest = {
      model: fields.model,
      stream: fields.stream,
      maxTokens: fields.maxTokens,
      minTokens: fields.minTokens,
      ignoreEos: fields.ignoreEos,
      promptTexts,
      promptTokenIds: 0,
      reasoning: effort === undefined && !disabled ? DEFAULT_REASONING : { effort, disabled },
      predictionTexts: readPrediction(json),
      ...(Object.keys(media).length > 0 ? { media } : {}),
    };
    return new ChatRequest(generation, fields);
  },
};

/** Part types carrying media, by kind. */
const MEDIA_PARTS: Readonly<Record<string, "image" | "audio" | "video">> = {
  image_url: "image",
  input_audio: "audio",
  video_url: "video",
};

/**
 * The text of each message (text parts joined with newlines; media parts carry no text tokens here); the media parts
 * are counted into `media` by kind. A `video_url` or `image_url` part must hold `{url: string}`.
 */
function readMessages(messages: unknown, media: Partial<Record<"image" | "audio" | "video", number>>): string[] {
  if (!Array.isArray(messages) || messages.length === 0) {
    throw badRequest("'messages' must be a non-empty array of messages.", "messages");
  }
  const out: string[] = [];
  for (let i = 0; i < messages.length; i++) {
    const message: unknown = messages[i];
    if (!isJsonObject(message) || typeof message.role !== "string") {
      throw badRequest(`messages[${i}] must be an object with a string 'role'.`, `messages[${i}]`);
    }
    const content = message.content;
    if (typeof content === "string") {
      out.push(content);
    } else if (Array.isArray(content)) {
      const texts: string[] = [];
      for (const [j, part] of content.entries()) {
        if (isJsonObject(part) && part.type === "text" && typeof part.text === "string") texts.push(part.text);
        const kind = isJsonObject(part) && typeof part.type === "string" ? MEDIA_PARTS[part.type] : undefined;
        if (kind === undefined) continue;
        const holder = part[part.type as string];
        if ((kind === "video" || kind === "image") && !(isJsonObject(holder) && typeof holder.url === "string")) {
          throw badRequest(
            `messages[${i}].content[${j}].${part.type} must be an object with a string 'url'.`,
            `messages[${i}].content[${j}]`,
          );
        }
        media[kind] = (media[kind] ?? 0) + 1;
      }
      if (texts.length > 0) out.push(texts.join("\n"));
    } else if (content !== undefined && content !== null) {
      throw badRequest(
        `messages[${i}].content must be a string, an array of parts, or null.`,
        `messages[${i}].content`,
      );
    }
  }
  return out;
}
