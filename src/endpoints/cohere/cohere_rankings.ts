/**
 * Cohere Rerank v2 (`POST /v2/rerank`), also served by vLLM. Reference: https://docs.cohere.com/reference/rerank —
 * request `{model, query, documents: […]}`; answer `{"results": [{"index", "relevance_score"}…]}` (vLLM adds
 * `usage`). Title "Ranking Metrics", as AIPerf.
 */
import type { Turn } from "../../dataset/conversation.ts";
import type { BuildContext, EndpointAdapter } from "../endpoint_adapter.ts";
import { mergeExtras, openAiHeaders, parseSseJson } from "../openai/openai_fields.ts";
import { asObject, rankingInputs, rankingInputText, readRankings } from "../rankings_fields.ts";

const SAMPLE = '{"id":"rerank-1","results":[{"index":1,"relevance_score":0.875},{"index":0,"relevance_score":0.125}],' +
  '"usage":{"prompt_tokens":12,"total_tokens":12}}';

function read(json: unknown) {
  const obj = asObject(json);
  return readRankings(obj, obj?.results);
}

export const COHERE_RANKINGS_ADAPTER: EndpointAdapter = {
  name: "cohere_rankings",
  description: "Cohere Rerank v2 (/v2/rerank), also served by vLLM: one query and its documents per request.",
  capabilities: {
    path: "/v2/rerank",
    method: "POST",
    supportsStreaming: false,
    producesTokens: false,
    tokenizesInput: true,
    supportsReasoning: false,
    syntheticInput: "rankings",
    metricsTitle: "Ranking Metrics",
    serviceKind: "openai",
  },
  usesHistory: false,
  headers: openAiHeaders,
  buildRequest(turn: Turn, ctx: BuildContext): Record<string, unknown> {
    const { query, passages } = rankingInputs(turn);
    return mergeExtras(
      { model: turn.model ?? ctx.model, query, documents: [...passages] },
      ctx.extraInputs,
      turn.extra,
    );
  },
  parseEvent: (data) => {
    const obj = parseSseJson(data);
    return obj ? read(obj) : undefined;
  },
  parseBody: read,
  inputText: rankingInputText,
  sampleResponses: { stream: `data: ${SAMPLE}\n\n`, body: SAMPLE },
};
