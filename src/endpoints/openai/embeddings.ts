/**
 * OpenAI Embeddings (`POST /v1/embeddings`), as OpenAI, vLLM and NIM serve it.
 * Reference: https://platform.openai.com/docs/api-reference/embeddings — request `{model, input: [texts]}`; answer
 * `data[].embedding` with `usage.prompt_tokens`. Every text of the turn is one input (`--prompt-batch-size` texts per
 * request). Not streamed, no output tokens: its table has latency, throughput and ISL only ("Embeddings Metrics").
 */
import type { Turn } from "../../dataset/conversation.ts";
import type { BuildContext, EndpointAdapter } from "../endpoint_adapter.ts";
import {
  EMBEDDINGS_SAMPLES,
  embeddingsBytesForParse,
  joinedInputs,
  readEmbeddings,
  readEmbeddingsEvent,
} from "./embeddings_fields.ts";
import { type JsonObject, mergeExtras, openAiHeaders } from "./openai_fields.ts";
import { EMBEDDINGS_ENDPOINT } from "../endpoint_declarations.ts";

export const EMBEDDINGS_ADAPTER: EndpointAdapter = {
  ...EMBEDDINGS_ENDPOINT,
  usesHistory: false,
  headers: openAiHeaders,

  buildRequest(turn: Turn, ctx: BuildContext): Record<string, unknown> {
    const body: JsonObject = { model: turn.model ?? ctx.model, input: turn.texts.filter((t) => t.length > 0) };
    return mergeExtras(body, ctx.extraInputs, turn.extra);
  },
  parseEvent: readEmbeddingsEvent,
  parseBody: readEmbeddings,
  bodyForParse: embeddingsBytesForParse,
  inputText: (turn: Turn) => joinedInputs(turn.texts),
  sampleResponses: EMBEDDINGS_SAMPLES,
};
