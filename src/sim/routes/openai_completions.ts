/**
 * OpenAI legacy Completions as vLLM serves it (`POST /v1/completions`), for the `completions` endpoint type.
 * Reference: https://platform.openai.com/docs/api-reference/completions
 *
 * Request: `prompt` as a string, a list of strings, or token ids (a list, or a list of lists), `max_tokens`, and
 * the fields of `openai_fields.ts`. Answers carry no reasoning. Answer: a `text_completion` with `choices[0].text`;
 * streamed, `text_completion` chunks with `choices[0].text`.
 */
import type { GenerationRequest } from "../generation_request.ts";
import { badRequest, requireObject } from "../request_fields.ts";
import type { ReplyContext, RouteRequest, SimRoute, StreamFraming } from "../sim_route.ts";
import { type OpenAiChunkShape, OpenAiChunkStream, type OpenAiStreamOptions } from "./openai_chunk_stream.ts";
import { finishJson, readOpenAiFields, readPrediction, usageJson } from "./openai_fields.ts";
import { specDecodeMetricsField } from "../spec_decode_plan.ts";

const SHAPE: OpenAiChunkShape = {
  object: "text_completion",
  contentOpen: '{"index":0,"text":"',
  reasoningOpen: '{"index":0,"text":"',
  textClose: '","logprobs":null,"finish_reason":',
};

class CompletionsRequest implements RouteRequest {
  readonly generation: GenerationRequest;
  readonly #stream: OpenAiStreamOptions;

  constructor(generation: GenerationRequest, stream: OpenAiStreamOptions) {
    this.generation = generation;
    this.#stream = stream;
  }

  body(reply: ReplyContext, _reasoning: string, content: string): string {
    const { plan } = reply;
    const usage = usageJson(plan, plan.reasoningTokens + plan.contentTokens, plan.reasoningTokens);
    return `{"id":"${reply.id}","object":"text_completion","created":${reply.created},"model":${
      JSON.stringify(reply.model)
    },"choices":[{"index":0,"text":"${content}","logprobs":null,"finish_reason":${
      finishJson(plan.finishReason)
    }}],"usage":${usage}${specDecodeMetricsField(plan.specDecode)}}`;
  }

  stream(reply: ReplyContext): StreamFraming {
    return new OpenAiChunkStream(reply, SHAPE, this.#stream);
  }
}

export const OPENAI_COMPLETIONS_ROUTE: SimRoute = {
  name: "completions",
  description: "OpenAI legacy text completions, as vLLM answers them.",
  paths: ["/v1/completions"],
  idPrefix: "cmpl-",

  parse(body: unknown): RouteRequest {
    const json = requireObject(body);
    const fields = readOpenAiFields(json, ["max_tokens"]);
    const promptTexts: string[] = [];
    const promptTokenIds = readPrompt(json.prompt, promptTexts);
    const generation: GenerationRequest = {
      model: fields.model,
      stream: fields.stream,
      maxTokens: fields.maxTokens,
      minTokens: fields.minTokens,
      ignoreEos: fields.ignoreEos,
      promptTexts,
      promptTokenIds,
      reasoning: undefined,
      predictionTexts: readPrediction(json),
    };
    return new CompletionsRequest(generation, fields);
  },
};

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
  throw badRequest("'prompt' must be a string, a non-empty list of strings, or token ids.", "prompt");
}

function isTokenId(v: unknown): boolean {
  return typeof v === "number" && Number.isInteger(v) && v >= 0;
}
