/**
 * What is known of each endpoint type before its adapter is loaded: its name, its `--help` line and its capabilities
 * (path, streaming, tokens, media, …), which option checks, planning and `plugins` read. The adapters themselves
 * (`openai/chat.ts`, …) start from their declaration here and are imported only for the run's own type
 * (`endpoint_registry.ts`), so a run does not load the code of the other types.
 */
import type { EndpointCapabilities, EndpointDeclaration } from "./endpoint_adapter.ts";

/** The rankings APIs' capabilities: one query and its passages per request, non-streaming, ISL over all texts. */
function rankingsCapabilities(path: string, metricsTitle: string): EndpointCapabilities {
  return {
    path,
    method: "POST",
    supportsStreaming: false,
    producesTokens: false,
    tokenizesInput: true,
    supportsReasoning: false,
    syntheticInput: "rankings",
    metricsTitle,
    serviceKind: "openai",
  };
}

export const CHAT_ENDPOINT: EndpointDeclaration = {
  name: "chat",
  description: "OpenAI chat completions (/v1/chat/completions): vLLM, SGLang, TensorRT-LLM, NIM, llama.cpp, Ollama.",
  capabilities: {
    path: "/v1/chat/completions",
    method: "POST",
    supportsStreaming: true,
    producesTokens: true,
    tokenizesInput: true,
    supportsReasoning: true,
    metricsTitle: "LLM Metrics",
    serviceKind: "openai",
    media: ["image", "audio", "video"],
    literalMessages: true,
  },
};

export const COMPLETIONS_ENDPOINT: EndpointDeclaration = {
  name: "completions",
  description: "OpenAI text completions (/v1/completions), the legacy API vLLM, SGLang and llama.cpp still serve.",
  capabilities: {
    path: "/v1/completions",
    method: "POST",
    supportsStreaming: true,
    producesTokens: true,
    tokenizesInput: true,
    supportsReasoning: false,
    metricsTitle: "LLM Metrics",
    serviceKind: "openai",
  },
};

export const EMBEDDINGS_ENDPOINT: EndpointDeclaration = {
  name: "embeddings",
  description: "OpenAI embeddings (/v1/embeddings): vLLM, NIM, TEI, OpenAI; each turn's texts are one batch of inputs.",
  capabilities: {
    path: "/v1/embeddings",
    method: "POST",
    supportsStreaming: false,
    producesTokens: false,
    tokenizesInput: true,
    supportsReasoning: false,
    metricsTitle: "Embeddings Metrics",
    serviceKind: "openai",
  },
};

export const NIM_EMBEDDINGS_ENDPOINT: EndpointDeclaration = {
  name: "nim_embeddings",
  description: "NVIDIA NIM embeddings (/v1/embeddings); NIM's input_type and truncate go in --extra-inputs.",
  capabilities: { ...EMBEDDINGS_ENDPOINT.capabilities, metricsTitle: "NIM Embeddings Metrics" },
};

export const CHAT_EMBEDDINGS_ENDPOINT: EndpointDeclaration = {
  name: "chat_embeddings",
  description: "Chat-style embeddings (/v1/embeddings with chat messages), vLLM's multimodal embedding request.",
  capabilities: EMBEDDINGS_ENDPOINT.capabilities, // the same route and metrics; only the body differs
};

export const NIM_RANKINGS_ENDPOINT: EndpointDeclaration = {
  name: "nim_rankings",
  description: "NVIDIA NIM reranking (/v1/ranking): one query and its passages per request.",
  capabilities: rankingsCapabilities("/v1/ranking", "Rankings Metrics"),
};

export const HF_TEI_RANKINGS_ENDPOINT: EndpointDeclaration = {
  name: "hf_tei_rankings",
  description: "Hugging Face TEI reranking (/rerank): one query and its texts per request.",
  capabilities: rankingsCapabilities("/rerank", "Ranking Metrics"),
};

export const COHERE_RANKINGS_ENDPOINT: EndpointDeclaration = {
  name: "cohere_rankings",
  description: "Cohere Rerank v2 (/v2/rerank), also served by vLLM: one query and its documents per request.",
  capabilities: rankingsCapabilities("/v2/rerank", "Ranking Metrics"),
};

export const HUGGINGFACE_GENERATE_ENDPOINT: EndpointDeclaration = {
  name: "huggingface_generate",
  description: "Hugging Face TGI (/generate, streamed /generate_stream).",
  capabilities: {
    path: "/generate",
    streamingPath: "/generate_stream",
    method: "POST",
    supportsStreaming: true,
    producesTokens: true,
    tokenizesInput: true,
    supportsReasoning: false,
    metricsTitle: "LLM Metrics",
    serviceKind: "openai",
  },
};

export const MESSAGES_ENDPOINT: EndpointDeclaration = {
  name: "messages",
  description: "Anthropic Messages (/v1/messages): x-api-key, anthropic-version, thinking and tool use.",
  capabilities: {
    path: "/v1/messages",
    method: "POST",
    supportsStreaming: true,
    producesTokens: true,
    tokenizesInput: true,
    supportsReasoning: true,
    metricsTitle: "LLM Metrics",
    serviceKind: "openai",
  },
};

export const RESPONSES_ENDPOINT: EndpointDeclaration = {
  name: "responses",
  description: "OpenAI Responses API (/v1/responses): OpenAI, vLLM, SGLang; input items, instructions, typed events.",
  capabilities: {
    path: "/v1/responses",
    method: "POST",
    supportsStreaming: true,
    producesTokens: true,
    tokenizesInput: true,
    supportsReasoning: true,
    metricsTitle: "LLM Metrics",
    serviceKind: "openai",
    media: ["image", "audio"],
    refusesLegacyMaxTokens: "the Responses API always uses max_output_tokens",
  },
};

export const TEMPLATE_ENDPOINT: EndpointDeclaration = {
  name: "template",
  description: "A Jinja payload template (--extra-inputs payload_template:…) for any JSON API; the URL names the path.",
  capabilities: {
    path: "",
    method: "POST",
    supportsStreaming: true,
    producesTokens: true,
    tokenizesInput: true,
    supportsReasoning: false,
    metricsTitle: "LLM Metrics",
    serviceKind: "openai",
  },
};

export const IMAGE_GENERATION_ENDPOINT: EndpointDeclaration = {
  name: "image_generation",
  description: "OpenAI image generation (/v1/images/generations): SGLang diffusion, NIM visual GenAI, OpenAI.",
  capabilities: {
    path: "/v1/images/generations",
    method: "POST",
    supportsStreaming: true,
    producesTokens: false,
    tokenizesInput: true,
    supportsReasoning: false,
    metricsTitle: "Image Generation Metrics",
    serviceKind: "openai",
  },
};

export const IMAGE_EDIT_ENDPOINT: EndpointDeclaration = {
  name: "image_edit",
  description: "OpenAI image edit (/v1/images/edits): SGLang diffusion, FLUX.2; multipart upload of each turn's " +
    "image with its prompt.",
  capabilities: {
    path: "/v1/images/edits",
    method: "POST",
    supportsStreaming: false,
    producesTokens: false,
    tokenizesInput: true,
    supportsReasoning: false,
    metricsTitle: "Image Edit Metrics",
    serviceKind: "openai",
    media: ["image"],
    requiresMedia: "image",
    formData: true,
  },
};

export const VIDEO_GENERATION_ENDPOINT: EndpointDeclaration = {
  name: "video_generation",
  description: "OpenAI / SGLang video generation (/v1/videos): a job submitted as a multipart form, then polled " +
    "until completed.",
  capabilities: {
    path: "/v1/videos",
    method: "POST",
    supportsStreaming: false,
    producesTokens: false,
    tokenizesInput: true,
    supportsReasoning: false,
    metricsTitle: "Video Generation Metrics",
    serviceKind: "openai",
    formData: true,
    producesVideos: true,
  },
};

export const AUDIO_TRANSCRIPTION_ENDPOINT: EndpointDeclaration = {
  name: "audio_transcription",
  description: "OpenAI audio transcription (/v1/audio/transcriptions): Whisper-style servers, NIM, SGLang; " +
    "multipart upload of each turn's audio.",
  capabilities: {
    path: "/v1/audio/transcriptions",
    method: "POST",
    supportsStreaming: false,
    producesTokens: false,
    tokenizesInput: false,
    supportsReasoning: false,
    metricsTitle: "Audio Transcription Metrics",
    serviceKind: "openai",
    media: ["audio"],
    requiresMedia: "audio",
    inlineMediaOnly: true,
    formData: true,
  },
};

export const NIM_IMAGE_RETRIEVAL_ENDPOINT: EndpointDeclaration = {
  name: "image_retrieval",
  description: "NVIDIA NIM image retrieval (/v1/infer): NeMo Retriever object detection on each turn's images, " +
    "sent inline.",
  capabilities: {
    path: "/v1/infer",
    method: "POST",
    supportsStreaming: false,
    producesTokens: false,
    tokenizesInput: false,
    supportsReasoning: false,
    metricsTitle: "Image Retrieval Metrics",
    serviceKind: "openai",
    media: ["image"],
    requiresMedia: "image",
    inlineMediaOnly: true,
  },
};

export const SOLIDO_RAG_ENDPOINT: EndpointDeclaration = {
  name: "solido_rag",
  description: "Solido RAG pipeline (/rag/api/prompt): query, filters and inference model; streamed or not.",
  capabilities: {
    path: "/rag/api/prompt",
    method: "POST",
    supportsStreaming: true,
    producesTokens: true,
    tokenizesInput: true,
    supportsReasoning: false,
    metricsTitle: "SOLIDO RAG Metrics",
    serviceKind: "openai",
    reportsUsage: false,
  },
};

export const RAW_ENDPOINT: EndpointDeclaration = {
  name: "raw",
  description: "Request bodies from the dataset sent verbatim to the full --url; text found by " +
    "--extra-inputs response_field:<JMESPath> or auto-detected.",
  capabilities: {
    path: "",
    method: "POST",
    supportsStreaming: true,
    producesTokens: true,
    tokenizesInput: true,
    supportsReasoning: true,
    metricsTitle: "LLM Metrics",
    serviceKind: "openai",
  },
};
