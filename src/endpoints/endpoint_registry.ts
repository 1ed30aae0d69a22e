/**
 * The endpoint types infermeter speaks, declared once: `--endpoint-type` choices, `--help` and "unknown type" errors
 * come from here. A new adapter registers with one line and passes the conformance suite in `tests/endpoints/`.
 */
import { Registry } from "../base/registry.ts";
import type { EndpointAdapter } from "./endpoint_adapter.ts";
import { CHAT_ADAPTER } from "./openai/chat.ts";
import { COMPLETIONS_ADAPTER } from "./openai/completions.ts";
import { RAW_ADAPTER } from "./raw/raw_adapter.ts";

/** AIPerf 0.13's endpoint types that infermeter does not speak yet. */
const NOT_YET = "this endpoint type is planned; use chat or completions for now";

export const ENDPOINTS: Registry<EndpointAdapter> = new Registry("endpoint type", [
  CHAT_ADAPTER,
  COMPLETIONS_ADAPTER,
  RAW_ADAPTER,
], {
  unsupported: Object.fromEntries(
    [
      "responses",
      "messages",
      "chat_embeddings",
      "embeddings",
      "cohere_rankings",
      "hf_tei_rankings",
      "huggingface_generate",
      "image_generation",
      "image_edit",
      "video_generation",
      "image_retrieval",
      "nim_embeddings",
      "nim_rankings",
      "solido_rag",
      "template",
      "audio_transcription",
    ].map((name) => [name, NOT_YET]),
  ),
});
