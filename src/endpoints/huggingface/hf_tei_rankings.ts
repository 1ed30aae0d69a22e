/**
 * Hugging Face Text Embeddings Inference reranking (`POST /rerank`). Reference:
 * https://huggingface.github.io/text-embeddings-inference/ — request `{query, texts: […]}`; answer a bare list
 * `[{"index", "score"}…]` (or `{"results": […]}` behind some proxies). TEI reports no usage. Title "Ranking Metrics".
 */
import type { EndpointAdapter } from "../endpoint_adapter.ts";
import { asObject, rankingsAdapter, readRankings } from "../rankings_fields.ts";
import { HF_TEI_RANKINGS_ENDPOINT } from "../endpoint_declarations.ts";

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

export const HF_TEI_RANKINGS_ADAPTER: EndpointAdapter = rankingsAdapter({
  endpoint: HF_TEI_RANKINGS_ENDPOINT,
  body: (query, passages) => ({ query, texts: [...passages] }),
  read,
  parseEvent,
  sample: SAMPLE,
});
