/**
 * Solido RAG (`POST /rag/api/prompt`), for `solido_rag`: request `{"query": [texts…], "filters", "inference_model"}`
 * (the shape AIPerf 0.13 sends; `max_tokens`, from `--extra-inputs`, caps the answer); answer `{"content",
 * "sources"}`, or, when the request accepts `text/event-stream` (or sends `"stream": true`), one SSE event per chunk
 * `{"content": <piece>}` and a last `{"content": "", "sources": […]}`. The pipeline reports no token usage.
 */
import type { GenerationRequest } from "../generation_request.ts";
import { badRequest, optionalBoolean, optionalCount, optionalString, requireObject } from "../request_fields.ts";
import type { ReplyContext, RouteRequest, SimRoute, StreamFraming } from "../sim_route.ts";

/** The documents the simulated retrieval step "found". */
const SOURCES = `[{"title":"Solido Design Environment User Guide","page":12,"score":0.82},` +
  `{"title":"Variation-Aware Design Notes","page":3,"score":0.71}]`;

class SolidoRequest implements RouteRequest {
  readonly generation: GenerationRequest;

  constructor(generation: GenerationRequest) {
    this.generation = generation;
  }

  body(_reply: ReplyContext, _reasoning: string, content: string): string {
    return `{"content":"${content}","sources":${SOURCES}}`;
  }

  stream(): StreamFraming {
    return {
      open: () => "",
      chunk: (text: string) => `data: {"content":"${text}"}\n\n`,
      close: () => `data: {"content":"","sources":${SOURCES}}\n\n`,
    };
  }
}

export const SOLIDO_RAG_ROUTE: SimRoute = {
  name: "solido_rag",
  description: "Solido RAG pipeline (/rag/api/prompt), streamed when the request accepts text/event-stream.",
  paths: ["/rag/api/prompt"],
  idPrefix: "rag-",

  parse(body: unknown, _path: string, headers?: Headers): RouteRequest {
    const json = requireObject(body);
    const query = json.query;
    if (!Array.isArray(query) || query.length === 0 || !query.every((q) => typeof q === "string")) {
      throw badRequest("'query' must be a non-empty list of strings.", "query");
    }
    const model = optionalString(json, "inference_model");
    const accepts = headers?.get("accept") ?? "";
    const stream = optionalBoolean(json, "stream") ?? accepts.includes("text/event-stream");
    return new SolidoRequest({
      model,
      stream,
      maxTokens: optionalCount(json, "max_tokens", 1),
      minTokens: 0,
      ignoreEos: false,
      promptTexts: query as string[],
      promptTokenIds: 0,
      reasoning: undefined,
    });
  },
};
