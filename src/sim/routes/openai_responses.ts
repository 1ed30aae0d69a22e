/**
 * OpenAI Responses (`POST /v1/responses`), for the `responses` endpoint type. Reference:
 * https://platform.openai.com/docs/api-reference/responses and its streaming events.
 *
 * Request: `model`, `input` (a string, or items: messages whose `content` is a string or parts — `input_text` and
 * assistant `output_text` parts count; `input_image` / `input_audio` carry no text tokens), `instructions` (counted
 * with the prompt), `max_output_tokens`, `stream`, `reasoning: {effort}` (the effort named; `"none"` turns it off),
 * and vLLM's `min_tokens` / `ignore_eos`.
 * Answer: a `response` object with a `reasoning` output item (`reasoning_text` content) when there is reasoning, then
 * a `message` item with one `output_text` part; usage `input_tokens`, `output_tokens` (reasoning included),
 * `output_tokens_details.reasoning_tokens`, `total_tokens`. Streamed, the whole event lifecycle, each with its
 * `event:` line and a `sequence_number`: `response.created`, `response.in_progress`, per item
 * `response.output_item.added`, (`response.content_part.added`), the deltas (`response.reasoning_text.delta` /
 * `response.output_text.delta`, one per chunk as the latency model releases them), their `*.done` events,
 * `response.output_item.done`, and `response.completed` with the full response and usage.
 */
import type { GenerationRequest } from "../generation_request.ts";
import { badRequest, isJsonObject, type JsonObject, optionalString, requireObject } from "../request_fields.ts";
import type { ReplyContext, RouteRequest, SimRoute, StreamFraming } from "../sim_route.ts";
import { readOpenAiFields } from "./openai_fields.ts";
import { namedSseEvent as ev } from "../../endpoints/named_sse_event.ts";
import type { GenerationPlan } from "../plan_generation.ts";

/** Usage with its details; the cached tokens come from the prefix cache with `--usage-details`, else 0. */
function usage(plan: GenerationPlan, out: number, reasoning: number): string {
  const promptTokens = plan.promptTokens;
  const cached = plan.details?.cachedTokens ?? 0;
  return `{"input_tokens":${promptTokens},"input_tokens_details":{"cached_tokens":${cached}},"output_tokens":${out},` +
    `"output_tokens_details":{"reasoning_tokens":${reasoning}},"total_tokens":${promptTokens + out}}`;
}

function responseObject(reply: ReplyContext, status: string, output: string, usageJson: string): string {
  return `{"id":"${reply.id}","object":"response","created_at":${reply.created},"status":"${status}",` +
    `"error":null,"incomplete_details":null,"model":${JSON.stringify(reply.model)},"output":[${output}],` +
    `"parallel_tool_calls":true,"tool_choice":"auto","tools":[],"usage":${usageJson}}`;
}

class ResponsesRequest implements RouteRequest {
  readonly generation: GenerationRequest;

  constructor(generation: GenerationRequest) {
    this.generation = generation;
  }

  body(reply: ReplyContext, reasoning: string, content: string): string {
    const { plan } = reply;
    const items: string[] = [];
    const suffix = reply.id.slice(reply.id.indexOf("_") + 1);
    if (plan.reasoningTokens > 0) items.push(reasoningItem(`rs_${suffix}`, reasoning, "completed"));
    items.push(messageItem(`msg_${suffix}`, content, "completed"));
    const out = plan.reasoningTokens + plan.contentTokens;
    return responseObject(reply, "completed", items.join(","), usage(plan, out, plan.reasoningTokens));
  }

  stream(reply: ReplyContext): StreamFraming {
    const { plan } = reply;
    let seq = 0;
    const event = (type: string, fields: string) => ev(type, `{"type":"${type}","sequence_number":${seq++},${fields}}`);
    const stamp = () => reply.emitSendTimes ? `,"sim_sent_at_ms":${performance.timeOrigin + performance.now()}` : "";
    let reasoningText = "";
    let contentText = "";
    let phase: "none" | "reasoning" | "content" = "none";
    const rsId = `rs_${reply.id.slice(reply.id.indexOf("_") + 1)}`;
    const msgId = `msg_${reply.id.slice(reply.id.indexOf("_") + 1)}`;
    const reasoningIndex = 0;
    const messageIndex = plan.reasoningTokens > 0 ? 1 : 0;
    const startReasoning = () =>
      event(
        "response.output_item.added",
        `"output_index":${reasoningIndex},"item":${reasoningItem(rsId, "", "in_progress")}`,
      ) +
      event(
        "response.content_part.added",
        `"item_id":"${rsId}","output_index":${reasoningIndex},"content_index":0,"part":{"type":"reasoning_text","text":""}`,
      );
    const endReasoning = () =>
      event(
        "response.reasoning_text.done",
        `"item_id":"${rsId}","output_index":${reasoningIndex},"content_index":0,"text":"${reasoningText}"`,
      ) +
      event(
        "response.content_part.done",
        `"item_id":"${rsId}","output_index":${reasoningIndex},"content_index":0,` +
          `"part":{"type":"reasoning_text","text":"${reasoningText}"}`,
      ) +
      event(
        "response.output_item.done",
        `"output_index":${reasoningIndex},"item":${reasoningItem(rsId, reasoningText, "completed")}`,
      );
    const startMessage = () =>
      event(
        "response.output_item.added",
        `"output_index":${messageIndex},"item":${messageItem(msgId, "", "in_progress", true)}`,
      ) +
      event(
        "response.content_part.added",
        `"item_id":"${msgId}","output_index":${messageIndex},"content_index":0,` +
          '"part":{"type":"output_text","text":"","annotations":[]}',
      );
    const endMessage = () =>
      event(
        "response.output_text.done",
        `"item_id":"${msgId}","output_index":${messageIndex},"content_index":0,"text":"${contentText}","logprobs":[]`,
      ) +
      event(
        "response.content_part.done",
        `"item_id":"${msgId}","output_index":${messageIndex},"content_index":0,` +
          `"part":{"type":"output_text","text":"${contentText}","annotations":[]}`,
      ) +
      event(
        "response.output_item.done",
        `"output_index":${messageIndex},"item":${messageItem(msgId, contentText, "completed")}`,
      );
    const shell = (status: string) => responseObject(reply, status, "", "null");
    return {
      open: () =>
        event("response.created", `"response":${shell("in_progress")}`) +
        event("response.in_progress", `"response":${shell("in_progress")}`),
      chunk(text: string, reasoning: boolean): string {
        let out = "";
        if (reasoning) {
          if (phase === "none") out += startReasoning();
          phase = "reasoning";
          reasoningText += text;
          return out + event(
            "response.reasoning_text.delta",
            `"item_id":"${rsId}","output_index":${reasoningIndex},"content_index":0,"delta":"${text}"${stamp()}`,
          );
        }
        if (phase === "reasoning") out += endReasoning();
        if (phase !== "content") out += startMessage();
        phase = "content";
        contentText += text;
        return out + event(
          "response.output_text.delta",
          `"item_id":"${msgId}","output_index":${messageIndex},"content_index":0,"delta":"${text}","logprobs":[]${stamp()}`,
        );
      },
      close(sent: number, reasoningSent: number): string {
        let out = "";
        if (phase === "reasoning") out += endReasoning();
        if (phase !== "content") out += startMessage();
        out += endMessage();
        const items: string[] = [];
        if (plan.reasoningTokens > 0) items.push(reasoningItem(rsId, reasoningText, "completed"));
        items.push(messageItem(msgId, contentText, "completed"));
        const full = responseObject(reply, "completed", items.join(","), usage(plan, sent, reasoningSent));
        return out + event("response.completed", `"response":${full}`);
      },
    };
  }
}

function reasoningItem(id: string, text: string, status: string): string {
  const content = text === "" && status === "in_progress" ? "" : `{"type":"reasoning_text","text":"${text}"}`;
  return `{"id":"${id}","type":"reasoning","status":"${status}","summary":[],"content":[${content}]}`;
}

function messageItem(id: string, text: string, status: string, empty = false): string {
  const content = empty ? "" : `{"type":"output_text","text":"${text}","annotations":[],"logprobs":[]}`;
  return `{"id":"${id}","type":"message","status":"${status}","role":"assistant","content":[${content}]}`;
}

export const OPENAI_RESPONSES_ROUTE: SimRoute = {
  name: "responses",
  description: "OpenAI Responses (/v1/responses), with the full streaming event lifecycle.",
  paths: ["/v1/responses"],
  idPrefix: "resp_",

  parse(body: unknown): RouteRequest {
    const json = requireObject(body);
    const fields = readOpenAiFields(json, ["max_output_tokens"]);
    const promptTexts = readInput(json.input);
    const instructions = json.instructions;
    if (typeof instructions === "string") promptTexts.unshift(instructions);
    else if (instructions !== undefined && instructions !== null) {
      throw badRequest("'instructions' must be a string.", "instructions");
    }
    const reasoning = json.reasoning;
    if (reasoning !== undefined && reasoning !== null && !isJsonObject(reasoning)) {
      throw badRequest("'reasoning' must be an object.", "reasoning");
    }
    const effort = isJsonObject(reasoning) ? optionalString(reasoning, "effort", "reasoning.") : undefined;
    const generation: GenerationRequest = {
      model: fields.model,
      stream: fields.stream,
      maxTokens: fields.maxTokens,
      minTokens: fields.minTokens,
      ignoreEos: fields.ignoreEos,
      promptTexts,
      promptTokenIds: 0,
      reasoning: { effort: effort === "none" ? undefined : effort, disabled: effort === "none" },
    };
    return new ResponsesRequest(generation);
  },
};

/** The text of each input item (text parts joined with newlines); a plain string input is one user message. */
function readInput(input: unknown): string[] {
  if (typeof input === "string") return [input];
  if (!Array.isArray(input) || input.length === 0) {
    throw badRequest("'input' must be a string or a non-empty array of input items.", "input");
  }
  const out: string[] = [];
  for (let i = 0; i < input.length; i++) {
    const item: unknown = input[i];
    if (!isJsonObject(item)) throw badRequest(`input[${i}] must be an object.`, `input[${i}]`);
    if (item.type !== undefined && item.type !== "message") continue; // other item types carry no prompt text here
    if (typeof item.role !== "string") {
      throw badRequest(`input[${i}] must have a string 'role'.`, `input[${i}].role`);
    }
    const content = item.content;
    if (typeof content === "string") out.push(content);
    else if (Array.isArray(content)) {
      const texts: string[] = [];
      for (const part of content as unknown[]) {
        if (!isJsonObject(part)) throw badRequest(`input[${i}].content parts must be objects.`, `input[${i}].content`);
        checkPart(part, i);
        if ((part.type === "input_text" || part.type === "output_text") && typeof part.text === "string") {
          texts.push(part.text);
        }
      }
      if (texts.length > 0) out.push(texts.join("\n"));
    } else {
      throw badRequest(`input[${i}].content must be a string or an array of parts.`, `input[${i}].content`);
    }
  }
  return out;
}

/** The part shapes the API validates: a wrong media shape is a 400, as on the real server. */
function checkPart(part: JsonObject, i: number): void {
  const at = `input[${i}].content`;
  if (part.type === "input_image" && typeof part.image_url !== "string" && typeof part.file_id !== "string") {
    throw badRequest(`${at}: input_image needs 'image_url' as a string (a URL or a data URL).`, at);
  }
  if (part.type === "input_audio") {
    const audio = part.input_audio;
    if (!isJsonObject(audio) || typeof audio.data !== "string" || typeof audio.format !== "string") {
      throw badRequest(`${at}: input_audio needs 'input_audio' with string 'data' and 'format'.`, at);
    }
  }
  if (part.type === "text" || part.type === "image_url") {
    throw badRequest(`${at}: '${part.type}' is a chat completions part; the Responses API takes input_* parts.`, at);
  }
}
