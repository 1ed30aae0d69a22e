/**
 * The endpoint types infermeter speaks, declared once: `--endpoint-type` choices, `--help` and "unknown type" errors
 * come from here. A new adapter registers with one line and passes the conformance suite in `tests/endpoints/`.
 */
import { Registry } from "../base/registry.ts";
import type { AdapterSettings, EndpointAdapter } from "./endpoint_adapter.ts";
import { MESSAGES_ADAPTER } from "./anthropic/messages.ts";
import { COHERE_RANKINGS_ADAPTER } from "./cohere/cohere_rankings.ts";
import { HF_TEI_RANKINGS_ADAPTER } from "./huggingface/hf_tei_rankings.ts";
import { HUGGINGFACE_GENERATE_ADAPTER } from "./huggingface/huggingface_generate.ts";
import { NIM_EMBEDDINGS_ADAPTER } from "./nim/nim_embeddings.ts";
import { NIM_RANKINGS_ADAPTER } from "./nim/nim_rankings.ts";
import { CHAT_ADAPTER } from "./openai/chat.ts";
import { CHAT_EMBEDDINGS_ADAPTER } from "./openai/chat_embeddings.ts";
import { COMPLETIONS_ADAPTER } from "./openai/completions.ts";
import { RESPONSES_ADAPTER } from "./openai/responses.ts";
import { RAW_ADAPTER } from "./raw/raw_adapter.ts";
import { EMBEDDINGS_ADAPTER } from "./openai/embeddings.ts";
import { IMAGE_GENERATION_ADAPTER } from "./openai/image_generation.ts";
import { TEMPLATE_ADAPTER } from "./template/template.ts";
import { AUDIO_TRANSCRIPTION_ADAPTER } from "./openai/audio_transcription.ts";
import { IMAGE_EDIT_ADAPTER } from "./openai/image_edit.ts";
import { VIDEO_GENERATION_ADAPTER } from "./openai/video_generation.ts";
import { NIM_IMAGE_RETRIEVAL_ADAPTER } from "./nim/nim_image_retrieval.ts";
import { SOLIDO_RAG_ADAPTER } from "./solido/solido_rag.ts";

export const ENDPOINTS: Registry<EndpointAdapter> = new Registry("endpoint type", [
  CHAT_ADAPTER,
  COMPLETIONS_ADAPTER,
  EMBEDDINGS_ADAPTER,
  NIM_EMBEDDINGS_ADAPTER,
  CHAT_EMBEDDINGS_ADAPTER,
  NIM_RANKINGS_ADAPTER,
  HF_TEI_RANKINGS_ADAPTER,
  COHERE_RANKINGS_ADAPTER,
  HUGGINGFACE_GENERATE_ADAPTER,
  MESSAGES_ADAPTER,
  RESPONSES_ADAPTER,
  TEMPLATE_ADAPTER,
  IMAGE_GENERATION_ADAPTER,
  IMAGE_EDIT_ADAPTER,
  VIDEO_GENERATION_ADAPTER,
  AUDIO_TRANSCRIPTION_ADAPTER,
  NIM_IMAGE_RETRIEVAL_ADAPTER,
  SOLIDO_RAG_ADAPTER,
  RAW_ADAPTER,
]);

/**
 * The adapter of `type` ready for this run: configured with the run's settings where the adapter needs it (a
 * payload template), else the registered one.
 * @throws {RangeError} for an unknown or unsupported type; {Error} naming the option when configuration fails.
 */
export async function resolveAdapter(type: string, settings: AdapterSettings): Promise<EndpointAdapter> {
  const adapter = ENDPOINTS.get(type);
  return adapter.configure ? await adapter.configure(settings) : adapter;
}
