/**
 * Cohere Rerank v2 (`POST /v2/rerank`), also served by vLLM. Reference: https://docs.cohere.com/reference/rerank —
 * request `{model, query, documents: […]}`; answer `{"results": [{"index", "relevance_score"}…]}` (vLLM adds
 * `usage`). Title "Ranking Metrics", as AIPerf.
 */
import type { EndpointAdapter } from "../endpoint_adapter.ts";
import { asObject, rankingsAdapter, readRankings } from "../rankings_fields.ts";
import { COHERE_RANKINGS_ENDPOINT } from "../endpoint_declarations.ts";

const SAMPLE = '{"id":"rerank-1","results":[{"index":1,"relevance_score":0.875},{"index":0,"relevance_score":0.125}],' +
  '"usage":{"prompt_tokens":12,"total_tokens":12}}';

export const COHERE_RANKINGS_ADAPTER: EndpointAdapter = rankingsAdapter({
  endpoint: COHERE_RANKINGS_ENDPOINT,
  body: (query, passages, model) => ({ model, query, documents: [...passages] }),
  read: (json) => {
    const obj = asObject(json);
    return readRankings(obj, obj?.results);
  },
  sample: SAMPLE,
});
