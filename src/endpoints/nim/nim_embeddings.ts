/**
 * NVIDIA NIM embeddings (`POST /v1/embeddings`): the OpenAI embeddings API, a superset of it in NIM (`input_type`
 * `query`/`passage` and `truncate` for asymmetric retrieval models go in through `--extra-inputs`).
 * Reference: https://docs.nvidia.com/nim/nemo-retriever/text-embedding/latest/reference.html
 */
import type { EndpointAdapter } from "../endpoint_adapter.ts";
import { EMBEDDINGS_ADAPTER } from "../openai/embeddings.ts";
import { NIM_EMBEDDINGS_ENDPOINT } from "../endpoint_declarations.ts";

export const NIM_EMBEDDINGS_ADAPTER: EndpointAdapter = {
  ...EMBEDDINGS_ADAPTER,
  ...NIM_EMBEDDINGS_ENDPOINT,
};
