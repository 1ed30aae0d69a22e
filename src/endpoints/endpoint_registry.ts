/**
 * The endpoint types infermeter speaks, declared once: `--endpoint-type` choices, `--help` and "unknown type" errors
 * come from here. Each entry is the type's declaration (`endpoint_declarations.ts`: name, help line, capabilities)
 * and the import of its adapter, loaded only when a run uses that type. The imports are literal, so `deno compile`
 * and the bundler include every adapter. A new adapter registers with one line and passes the conformance suite in
 * `tests/endpoints/`.
 */
import { Registry } from "../base/registry.ts";
import type { AdapterSettings, EndpointAdapter, EndpointDeclaration } from "./endpoint_adapter.ts";
import {
  AUDIO_TRANSCRIPTION_ENDPOINT,
  CHAT_EMBEDDINGS_ENDPOINT,
  CHAT_ENDPOINT,
  COHERE_RANKINGS_ENDPOINT,
  COMPLETIONS_ENDPOINT,
  EMBEDDINGS_ENDPOINT,
  HF_TEI_RANKINGS_ENDPOINT,
  HUGGINGFACE_GENERATE_ENDPOINT,
  IMAGE_EDIT_ENDPOINT,
  IMAGE_GENERATION_ENDPOINT,
  MESSAGES_ENDPOINT,
  NIM_EMBEDDINGS_ENDPOINT,
  NIM_IMAGE_RETRIEVAL_ENDPOINT,
  NIM_RANKINGS_ENDPOINT,
  RAW_ENDPOINT,
  RESPONSES_ENDPOINT,
  SOLIDO_RAG_ENDPOINT,
  TEMPLATE_ENDPOINT,
  VIDEO_GENERATION_ENDPOINT,
} from "./endpoint_declarations.ts";

/** A registered endpoint type: its declaration, and its adapter imported on use. */
export interface RegisteredEndpoint extends EndpointDeclaration {
  /** The adapter (the same object on every call). */
  load(): Promise<EndpointAdapter>;
}

export const ENDPOINTS: Registry<RegisteredEndpoint> = new Registry("endpoint type", [
  { ...CHAT_ENDPOINT, load: async () => (await import("./openai/chat.ts")).CHAT_ADAPTER },
  { ...COMPLETIONS_ENDPOINT, load: async () => (await import("./openai/completions.ts")).COMPLETIONS_ADAPTER },
  { ...EMBEDDINGS_ENDPOINT, load: async () => (await import("./openai/embeddings.ts")).EMBEDDINGS_ADAPTER },
  { ...NIM_EMBEDDINGS_ENDPOINT, load: async () => (await import("./nim/nim_embeddings.ts")).NIM_EMBEDDINGS_ADAPTER },
  {
    ...CHAT_EMBEDDINGS_ENDPOINT,
    load: async () => (await import("./openai/chat_embeddings.ts")).CHAT_EMBEDDINGS_ADAPTER,
  },
  { ...NIM_RANKINGS_ENDPOINT, load: async () => (await import("./nim/nim_rankings.ts")).NIM_RANKINGS_ADAPTER },
  {
    ...HF_TEI_RANKINGS_ENDPOINT,
    load: async () => (await import("./huggingface/hf_tei_rankings.ts")).HF_TEI_RANKINGS_ADAPTER,
  },
  {
    ...COHERE_RANKINGS_ENDPOINT,
    load: async () => (await import("./cohere/cohere_rankings.ts")).COHERE_RANKINGS_ADAPTER,
  },
  {
    ...HUGGINGFACE_GENERATE_ENDPOINT,
    load: async () => (await import("./huggingface/huggingface_generate.ts")).HUGGINGFACE_GENERATE_ADAPTER,
  },
  { ...MESSAGES_ENDPOINT, load: async () => (await import("./anthropic/messages.ts")).MESSAGES_ADAPTER },
  { ...RESPONSES_ENDPOINT, load: async () => (await import("./openai/responses.ts")).RESPONSES_ADAPTER },
  { ...TEMPLATE_ENDPOINT, load: async () => (await import("./template/template.ts")).TEMPLATE_ADAPTER },
  {
    ...IMAGE_GENERATION_ENDPOINT,
    load: async () => (await import("./openai/image_generation.ts")).IMAGE_GENERATION_ADAPTER,
  },
  { ...IMAGE_EDIT_ENDPOINT, load: async () => (await import("./openai/image_edit.ts")).IMAGE_EDIT_ADAPTER },
  {
    ...VIDEO_GENERATION_ENDPOINT,
    load: async () => (await import("./openai/video_generation.ts")).VIDEO_GENERATION_ADAPTER,
  },
  {
    ...AUDIO_TRANSCRIPTION_ENDPOINT,
    load: async () => (await import("./openai/audio_transcription.ts")).AUDIO_TRANSCRIPTION_ADAPTER,
  },
  {
    ...NIM_IMAGE_RETRIEVAL_ENDPOINT,
    load: async () => (await import("./nim/nim_image_retrieval.ts")).NIM_IMAGE_RETRIEVAL_ADAPTER,
  },
  { ...SOLIDO_RAG_ENDPOINT, load: async () => (await import("./solido/solido_rag.ts")).SOLIDO_RAG_ADAPTER },
  { ...RAW_ENDPOINT, load: async () => (await import("./raw/raw_adapter.ts")).RAW_ADAPTER },
]);

/**
 * The adapter of `type` ready for this run: configured with the run's settings where the adapter needs it (a
 * payload template), else the registered one.
 * @throws {RangeError} for an unknown or unsupported type; {Error} naming the option when configuration fails.
 */
export async function resolveAdapter(type: string, settings: AdapterSettings): Promise<EndpointAdapter> {
  const adapter = await ENDPOINTS.get(type).load();
  return adapter.configure ? await adapter.configure(settings) : adapter;
}
