/**
 * The reranking APIs, each with its own shapes; scores are deterministic per query–passage pair.
 * - NIM (`POST /v1/ranking`, `nim_rankings`): `{model, query: {text}, passages: [{text}…], truncate?}` →
 *   `{"rankings": [{"index", "logit"}…]}` sorted by logit, best first
 *   (https://docs.nvidia.com/nim/nemo-retriever/text-reranking/latest/reference.html).
 * - TEI (`POST /rerank`, `hf_tei_rankings`): `{query, texts: […], return_text?}` → `[{"index", "score"}…]` sorted
 *   (https://huggingface.github.io/text-embeddings-inference/).
 * - Cohere v2 as vLLM serves it (`POST /v2/rerank`, `cohere_rankings`): `{model, query, documents: […], top_n?}` →
 *   `{"id", "model", "usage": {"total_tokens"}, "results": [{"index", "document": {"text"}, "relevance_score"}…]}`
 *   (https://docs.cohere.com/reference/rerank).
 */
import { relevanceScore } from "../embedding_vector.ts";
import type { GenerationRequest } from "../generation_request.ts";
import { badRequest, isJsonObject, type JsonObject, optionalCount, requireObject } from "../request_fields.ts";
import type { ReplyContext, RouteRequest, SimRoute, StreamFraming } from "../sim_route.ts";
import { nonGenerating } from "./non_generating.ts";

interface Ranked {
  readonly index: number;
  readonly score: number;
}

class RerankRequest implements RouteRequest {
  readonly generation: GenerationRequest;
  readonly #write: (reply: ReplyContext, ranked: readonly Ranked[]) => string;
  readonly #ranked: readonly Ranked[];

  constructor(
    model: string | undefined,
    query: string,
    passages: readonly string[],
    write: (reply: ReplyContext, ranked: readonly Ranked[]) => string,
    topN?: number,
  ) {
    this.generation = nonGenerating(model, [query, ...passages]);
    const ranked = passages.map((p, index) => ({ index, score: relevanceScore(query, p) }))
      .sort((a, b) => b.score - a.score);
    this.#ranked = topN === undefined ? ranked : ranked.slice(0, topN);
    this.#write = write;
  }

  body(reply: ReplyContext): string {
    return this.#write(reply, this.#ranked);
  }

  stream(): StreamFraming {
    throw badRequest("Rankings are not streamed.", "stream");
  }
}

function stringList(json: JsonObject, key: string): string[] {
  const v = json[key];
  if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === "string")) {
    throw badRequest(`'${key}' must be a non-empty list of strings.`, key);
  }
  return v as string[];
}

function requireString(json: JsonObject, key: string): string {
  if (typeof json[key] !== "string") throw badRequest(`'${key}' must be a string.`, key);
  return json[key] as string;
}

const fixed = (x: number) => x.toFixed(6);

export const NIM_RANKING_ROUTE: SimRoute = {
  name: "nim_rankings",
  description: "NVIDIA NIM reranking (/v1/ranking).",
  paths: ["/v1/ranking"],
  idPrefix: "rank-",
  parse(body: unknown): RouteRequest {
    const json = requireObject(body);
    const query = json.query;
    if (!isJsonObject(query) || typeof query.text !== "string") {
      throw badRequest("'query' must be an object with a string 'text'.", "query");
    }
    const passages = json.passages;
    if (!Array.isArray(passages) || passages.length === 0) {
      throw badRequest("'passages' must be a non-empty list of {text} objects.", "passages");
    }
    const texts = passages.map((p, i) => {
      if (!isJsonObject(p) || typeof p.text !== "string") {
        throw badRequest(`passages[${i}] must be an object with a string 'text'.`, `passages[${i}]`);
      }
      return p.text;
    });
    const model = typeof json.model === "string" ? json.model : undefined;
    return new RerankRequest(
      model,
      query.text,
      texts,
      (_reply, ranked) =>
        `{"rankings":[${ranked.map((r) => `{"index":${r.index},"logit":${fixed(r.score)}}`).join(",")}]}`,
    );
  },
};

export const TEI_RERANK_ROUTE: SimRoute = {
  name: "hf_tei_rankings",
  description: "Hugging Face TEI reranking (/rerank).",
  paths: ["/rerank"],
  idPrefix: "rerank-",
  parse(body: unknown): RouteRequest {
    const json = requireObject(body);
    const query = requireString(json, "query");
    const texts = stringList(json, "texts");
    const returnText = json.return_text === true;
    return new RerankRequest(
      undefined,
      query,
      texts,
      (_reply, ranked) =>
        `[${
          ranked.map((r) =>
            `{"index":${r.index},${returnText ? `"text":${JSON.stringify(texts[r.index])},` : ""}"score":${
              fixed((r.score + 10) / 20)
            }}`
          ).join(",")
        }]`,
    );
  },
};

export const COHERE_RERANK_ROUTE: SimRoute = {
  name: "cohere_rankings",
  description: "Cohere Rerank v2 (/v2/rerank), as vLLM answers it.",
  paths: ["/v2/rerank"],
  idPrefix: "rerank-",
  parse(body: unknown): RouteRequest {
    const json = requireObject(body);
    const query = requireString(json, "query");
    const documents = stringList(json, "documents");
    const topN = optionalCount(json, "top_n", 1);
    const model = typeof json.model === "string" ? json.model : undefined;
    return new RerankRequest(
      model,
      query,
      documents,
      (reply, ranked) =>
        `{"id":"${reply.id}","model":${
          JSON.stringify(reply.model)
        },"usage":{"total_tokens":${reply.plan.promptTokens}},` +
        `"results":[${
          ranked.map((r) =>
            `{"index":${r.index},"document":{"text":${JSON.stringify(documents[r.index])}},"relevance_score":${
              fixed((r.score + 10) / 20)
            }}`
          ).join(",")
        }]}`,
      topN,
    );
  },
};
