/**
 * Hugging Face Text Embeddings Inference reranking (`POST /rerank`). Reference:
 * https://huggingface.github.io/text-embeddings-inference/ — request `{query, texts: […]}`; answer a bare list
 * `[{"index", "score"}…]` (or `{"results": […]}` behind some proxies). TEI reports no usage. Title "Ranking Metrics".
 */
import type { Turn } from "../../dataset/conversation.ts";
import type { BuildContext, EndpointAdapter } from "../endpoint_adapter.ts";
import { mergeExtras, openAiHeaders } from "../openai/openai_fields.ts";
import { asObject, rankingInputs, rankingInputText, readRankings } from "../rankings_fields.ts";

const SAMPLE = '[{"index":1,"score":0.875},{"index":0,"score":0.125}]';

function read(json: unknown) {
  if (Array.isArray(json)) return readRankings(undefined, json);
  const obj = asObject(json);
  return readRankings(obj, obj?.results);
}

function parseEvent(data: string) {
  if (data.length === 0 || data === "[DONE]") return undefined;
  try {
    return read(JSON.parse(data));
  } catch (cause) {
    throw new SyntaxError(`the server sent an SSE event that is not JSON: ${data.slice(0, 200)}`, { cause });
  }
}

export const HF_TEI_RANKINGS_ADAPTER: EndpointAdapter = {
  name: "hf_tei_rankings",
  description: "Hugging Face TEI reranking (/rerank): one query and its texts per request.",
  capabilities: {
    path: "/rerank",
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
    return mergeExtras({ query, texts: [...passages] }, ctx.extraInputs, turn.extra);
  },
  parseEvent,
  parseBody: read,
  inputText: rankingInputText,
  sampleResponses: { stream: `data: ${SAMPLE}\n\n`, body: SAMPLE },
};
