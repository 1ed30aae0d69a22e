/**
 * Anthropic Messages (`POST /v1/messages`), for `messages`. Reference: https://docs.anthropic.com/en/api/messages
 * and https://docs.anthropic.com/en/docs/build-with-claude/streaming.
 *
 * Request: `model`, `messages` (each with a string `role` and `content` as a string or blocks, whose `text` blocks
 * count), `system` (a string or text blocks), `max_tokens` (required), `stream`, `thinking: {type: "disabled"}`
 * (reasoning off). The key is read from `x-api-key`.
 * Answer: a `message` with `thinking` and `text` content blocks, `stop_reason` `max_tokens` or `end_turn`, usage
 * `input_tokens` / `output_tokens` (thinking included, as the API counts it). Streamed: `message_start` (input tokens),
 * `content_block_start`, `ping`, `content_block_delta` (`thinking_delta`, then a `signature_delta` and a new block of
 * `text_delta`s), `content_block_stop`, `message_delta` (stop reason, output tokens), `message_stop`; each SSE event
 * has its `event:` line.
 */
import type { GenerationRequest } from "../generation_request.ts";
import { badRequest, isJsonObject, optionalBoolean, optionalCount, requireObject } from "../request_fields.ts";
import type { ReplyContext, RouteRequest, SimRoute, StreamFraming } from "../sim_route.ts";
import { namedSseEvent as ev } from "../../endpoints/named_sse_event.ts";
import type { GenerationPlan } from "../plan_generation.ts";

const SIGNATURE = "c2ltdWxhdGVk";

function stopReason(reason: string | null): string {
  return reason === "stop" ? "end_turn" : "max_tokens";
}

/**
 * The input side of Anthropic's usage. With `--usage-details` the prefix cache's tokens are reported as cache reads
 * and `input_tokens` is the rest (Anthropic counts the cache apart); no cache writes are reported.
 */
function inputUsage(plan: GenerationPlan): string {
  const d = plan.details;
  if (d === undefined) return `"input_tokens":${plan.promptTokens}`;
  return `"input_tokens":${plan.promptTokens - d.cachedTokens},"cache_creation_input_tokens":0,` +
    `"cache_read_input_tokens":${d.cachedTokens}`;
}

class MessagesRequest implements RouteRequest {
  readonly generation: GenerationRequest;

  constructor(generation: GenerationRequest) {
    this.generation = generation;
  }

  body(reply: ReplyContext, reasoning: string, content: string): string {
    const { plan } = reply;
    const blocks: string[] = [];
    if (plan.reasoningTokens > 0) {
      blocks.push(`{"type":"thinking","thinking":"${reasoning}","signature":"${SIGNATURE}"}`);
    }
    blocks.push(`{"type":"text","text":"${content}"}`);
    const out = plan.reasoningTokens + plan.contentTokens;
    return `{"id":"${reply.id}","type":"message","role":"assistant","model":${JSON.stringify(reply.model)},` +
      `"content":[${blocks.join(",")}],"stop_reason":"${stopReason(plan.finishReason)}","stop_sequence":null,` +
      `"usage":{${inputUsage(plan)},"output_tokens":${out}}}`;
  }

  stream(reply: ReplyContext): StreamFraming {
    const { plan } = reply;
    let block = 0;
    let inThinking = plan.reasoningTokens > 0;
    const start = (index: number, thinking: boolean) =>
      ev(
        "content_block_start",
        `{"type":"content_block_start","index":${index},"content_block":${
          thinking ? '{"type":"thinking","thinking":""}' : '{"type":"text","text":""}'
        }}`,
      );
    return {
      open: () =>
        ev(
          "message_start",
          `{"type":"message_start","message":{"id":"${reply.id}","type":"message","role":"assistant","model":${
            JSON.stringify(reply.model)
          },"content":[],"stop_reason":null,"stop_sequence":null,"usage":{${inputUsage(plan)},` +
            `"output_tokens":1}}}`,
        ) + start(0, inThinking) + ev("ping", '{"type":"ping"}'),
      chunk(text: string, reasoning: boolean): string {
        let out = "";
        if (inThinking && !reasoning) {
          out += ev(
            "content_block_delta",
            `{"type":"content_block_delta","index":${block},"delta":{"type":"signature_delta","signature":"${SIGNATURE}"}}`,
          );
          out += ev("content_block_stop", `{"type":"content_block_stop","index":${block}}`);
          block++;
          inThinking = false;
          out += start(block, false);
        }
        const delta = reasoning
          ? `{"type":"thinking_delta","thinking":"${text}"}`
          : `{"type":"text_delta","text":"${text}"}`;
        return out + ev("content_block_delta", `{"type":"content_block_delta","index":${block},"delta":${delta}}`);
      },
      close(sent: number): string {
        return ev("content_block_stop", `{"type":"content_block_stop","index":${block}}`) +
          ev(
            "message_delta",
            `{"type":"message_delta","delta":{"stop_reason":"${
              stopReason(plan.finishReason)
            }","stop_sequence":null},"usage":{"output_tokens":${sent}}}`,
          ) + ev("message_stop", '{"type":"message_stop"}');
      },
    };
  }
}

export const ANTHROPIC_MESSAGES_ROUTE: SimRoute = {
  name: "messages",
  description: "Anthropic Messages (/v1/messages), with its SSE event vocabulary and x-api-key.",
  paths: ["/v1/messages"],
  idPrefix: "msg_",
  credential: (headers) => headers.get("x-api-key") ?? undefined,

  parse(body: unknown): RouteRequest {
    const json = requireObject(body);
    if (typeof json.model !== "string") throw badRequest("model: Field required", "model");
    const maxTokens = optionalCount(json, "max_tokens", 1);
    if (maxTokens === undefined) throw badRequest("max_tokens: Field required", "max_tokens");
    const texts = readMessages(json.messages);
    const system = json.system;
    if (typeof system === "string") texts.unshift(system);
    else if (Array.isArray(system)) texts.unshift(...blockTexts(system));
    const thinking = json.thinking;
    const disabled = isJsonObject(thinking) && thinking.type === "disabled";
    const generation: GenerationRequest = {
      model: json.model,
      stream: optionalBoolean(json, "stream") ?? false,
      maxTokens,
      minTokens: 0,
      ignoreEos: false,
      promptTexts: texts,
      promptTokenIds: 0,
      reasoning: { effort: undefined, disabled },
    };
    return new MessagesRequest(generation);
  },
};

function blockTexts(blocks: readonly unknown[]): string[] {
  const out: string[] = [];
  for (const b of blocks) if (isJsonObject(b) && b.type === "text" && typeof b.text === "string") out.push(b.text);
  return out;
}

function readMessages(messages: unknown): string[] {
  if (!Array.isArray(messages) || messages.length === 0) {
    throw badRequest("messages: at least one message is required", "messages");
  }
  const out: string[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m: unknown = messages[i];
    if (!isJsonObject(m) || (m.role !== "user" && m.role !== "assistant")) {
      throw badRequest(`messages.${i}.role: must be 'user' or 'assistant'`, `messages.${i}.role`);
    }
    if (typeof m.content === "string") out.push(m.content);
    else if (Array.isArray(m.content)) out.push(blockTexts(m.content).join("\n"));
    else throw badRequest(`messages.${i}.content: must be a string or a list of blocks`, `messages.${i}.content`);
  }
  return out;
}
