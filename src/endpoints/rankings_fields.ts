/**
 * What the rankings (rerank) adapters share: the query and passages of a turn, the ISL rule, and the check that an
 * answer ranked something.
 *
 * A turn's texts named `query` (or `queries`, GenAI-Perf's spelling) and `passages` are used as AIPerf does; a turn
 * without names (a plain input file) sends its first text as the query and the rest as passages. The ISL is the
 * query and every passage, since the server tokenizes each query–passage pair.
 */
import type { Turn } from "../dataset/conversation.ts";
import type { BuildContext, Delta, EndpointAdapter, EndpointDeclaration } from "./endpoint_adapter.ts";
import {
  asObject,
  type JsonObject,
  mergeExtras,
  openAiHeaders,
  parseSseJson,
  readApiError,
  readUsage,
} from "./openai/openai_fields.ts";

export interface RankingInputs {
  readonly query: string;
  readonly passages: readonly string[];
}

export function rankingInputs(turn: Turn): RankingInputs {
  const named = turn.named;
  const queries = named?.query ?? named?.queries;
  if (queries !== undefined && queries.length > 0) {
    return { query: queries[0], passages: named?.passages ?? [] };
  }
  return { query: turn.texts[0] ?? "", passages: turn.texts.slice(1) };
}

export function rankingInputText(turn: Turn): string {
  const { query, passages } = rankingInputs(turn);
  return [query, ...passages].join("\n");
}

/**
 * An answer whose ranked list is at `list` (already extracted by the adapter): an error when it is missing or
 * empty, since an answer that ranked nothing measured nothing.
 */
export function readRankings(obj: JsonObject | undefined, list: unknown): Delta {
  if (!obj && !Array.isArray(list)) {
    return { error: { message: "the response body is not a JSON object", type: "ParseError" } };
  }
  const usage = obj ? readUsage(obj.usage) : undefined;
  const error = obj ? readApiError(obj) : undefined;
  if (error) return { error, usage };
  if (!Array.isArray(list) || list.length === 0) {
    return { usage, error: { message: "the response ranks no passages", type: "ParseError" } };
  }
  if (!list.every((item) => asObject(item) !== undefined)) {
    return {
      usage,
      error: { message: "the response's ranking list holds an item that is not an object", type: "ParseError" },
    };
  }
  return { usage };
}

export { asObject };

/** What differs between the rankings APIs: where they listen, their body's shape, and where the ranked list is. */
export interface RankingsApi {
  /** Its name, help line and capabilities (`endpoint_declarations.ts`). */
  readonly endpoint: EndpointDeclaration;
  /** The request body without `--extra-inputs` and the turn's extras (merged after it). */
  readonly body: (query: string, passages: readonly string[], model: string) => Record<string, unknown>;
  /** A parsed answer to a normalized delta (usually `readRankings` over the API's list). */
  readonly read: (json: unknown) => Delta;
  /** An SSE event; by default a JSON object read with `read`. */
  readonly parseEvent?: (data: string) => Delta | undefined;
  readonly sample: string;
}

/** A rankings adapter: one query and its passages per request, non-streaming, ISL over all texts. */
export function rankingsAdapter(api: RankingsApi): EndpointAdapter {
  return {
    ...api.endpoint,
    usesHistory: false,
    headers: openAiHeaders,
    buildRequest(turn: Turn, ctx: BuildContext): Record<string, unknown> {
      const { query, passages } = rankingInputs(turn);
      return mergeExtras(api.body(query, passages, turn.model ?? ctx.model), ctx.extraInputs, turn.extra);
    },
    parseEvent: api.parseEvent ?? ((data) => {
      const obj = parseSseJson(data);
      return obj ? api.read(obj) : undefined;
    }),
    parseBody: api.read,
    inputText: rankingInputText,
    sampleResponses: { stream: `data: ${api.sample}\n\n`, body: api.sample },
  };
}
