/**
 * NVIDIA NIM reranking (`POST /v1/ranking`). Reference:
 * https://docs.nvidia.com/nim/nemo-retriever/text-reranking/latest/reference.html — request `{model, query: {text},
 * passages: [{text}…]}` (`truncate` through `--extra-inputs`); answer `{"rankings": [{"index", "logit"}…]}` (and
 * `usage` where the server reports it). Title "Rankings Metrics", as AIPerf.
 */
import type { Turn } from "../../dataset/conversation.ts";
import type { BuildContext, EndpointAdapter } from "../endpoint_adapter.ts";
import { mergeExtras, openAiHeaders, parseSseJson } from "../openai/openai_fields.ts";
import { asObject, rankingInputs, rankingInputText, readRankings } from "../rankings_fields.ts";

const SAMPLE = '{"rankings":[{"index":1,"logit":2.5},{"index":0,"logit":-1.25}],' +
  '"usage":{"prompt_tokens":12,"total_tokens":12}}';

function read(json: unknown) {
  const obj = asObject(json);
  return readRankings(obj, obj?.rankings);
}

export const NIM_RANKINGS_ADAPTER: EndpointAdapter = {
  name: "nim_rankings",
  description: "NVIDIA NIM reranking (/v1/ranking): one query and its passages per request.",
  capabilities: {
    path: "/v1/ranking",
    method: "POST",
    supportsStreaming: false,
    producesTokens: false,
    tokenizesInput: true,
    supportsReasoning: false,
    syntheticInput: "rankings",
    metricsTitle: "Rankings Metrics",
    serviceKind: "openai",
  },
  usesHistory: false,
  headers: openAiHeaders,
  buildRequest(turn: Turn, ctx: BuildContext): Record<string, unknown> {
    const { query, passages } = rankingInputs(turn);
    const body = {
      model: turn.model ?? ctx.model,
      query: { text: query },
      passages: passages.map((text) => ({ text })),
    };
    return mergeExtras(body, ctx.extraInputs, turn.extra);
  },
  parseEvent: (data) => {
    const obj = parseSseJson(data);
    return obj ? read(obj) : undefined;
  },
  parseBody: read,
  inputText: rankingInputText,
  sampleResponses: { stream: `data: ${SAMPLE}\n\n`, body: SAMPLE },
};
