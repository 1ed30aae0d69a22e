/**
 * Chat-style embeddings (`POST /v1/embeddings` with chat `messages`), the request vLLM needs for multimodal embedding
 * models (VLM2Vec and the like): the body is a chat request (system message included, never streamed), the answer an
 * embeddings list. Reference: https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html (Embeddings API,
 * chat-like input).
 */
import type { Turn } from "../../dataset/conversation.ts";
import type { BuildContext, EndpointAdapter } from "../endpoint_adapter.ts";
import { CHAT_ADAPTER } from "./chat.ts";
import {
  EMBEDDINGS_SAMPLES,
  embeddingsBytesForParse,
  readEmbeddings,
  readEmbeddingsEvent,
} from "./embeddings_fields.ts";
import { openAiHeaders } from "./openai_fields.ts";
import { CHAT_EMBEDDINGS_ENDPOINT } from "../endpoint_declarations.ts";

export const CHAT_EMBEDDINGS_ADAPTER: EndpointAdapter = {
  ...CHAT_EMBEDDINGS_ENDPOINT,
  usesHistory: false,
  headers: openAiHeaders,

  buildRequest(turn: Turn, ctx: BuildContext): Record<string, unknown> {
    return CHAT_ADAPTER.buildRequest(turn, { ...ctx, streaming: false, maxTokens: undefined }, []);
  },
  parseEvent: readEmbeddingsEvent,
  parseBody: readEmbeddings,
  bodyForParse: embeddingsBytesForParse,
  inputText: (turn, ctx) => CHAT_ADAPTER.inputText(turn, ctx),
  chatMessages: (turn, ctx) => CHAT_ADAPTER.chatMessages!(turn, ctx),
  sampleResponses: EMBEDDINGS_SAMPLES,
};
