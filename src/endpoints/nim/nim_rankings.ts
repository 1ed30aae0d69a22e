/**
 * NVIDIA NIM reranking (`POST /v1/ranking`). Reference:
 * https://docs.nvidia.com/nim/nemo-retriever/text-reranking/latest/reference.html — request `{model, query: {text},
 * passages: [{text}…]}` (`truncate` through `--extra-inputs`); answer `{"rankings": [{"index", "logit"}…]}` (and
 * `usage` where the server reports it). Title "Rankings Metrics", as AIPerf.
 */
import type { EndpointAdapter } from "../endpoint_adapter.ts";
import { asObject, rankingsAdapter, readRankings } from "../rankings_fields.ts";
import { NIM_RANKINGS_ENDPOINT } from "../endpoint_declarations.ts";

const SAMPLE = '{"rankings":[{"index":1,"logit":2.5},{"index":0,"logit":-1.25}],' +
  '"usage":{"prompt_tokens":12,"total_tokens":12}}';

export const NIM_RANKINGS_ADAPTER: EndpointAdapter = rankingsAdapter({
  endpoint: NIM_RANKINGS_ENDPOINT,
  body: (query, passages, model) => ({
    model,
    query: { text: query },
    passages: passages.map((text) => ({ text })),
  }),
  read: (json) => {
    const obj = asObject(json);
    return readRankings(obj, obj?.rankings);
  },
  sample: SAMPLE,
});
