/**
 * What the rankings (rerank) adapters share: the query and passages of a turn, the ISL rule, and the check that an
 * answer ranked something.
 *
 * A turn's texts named `query` (or `queries`, GenAI-Perf's spelling) and `passages` are used as AIPerf does; a turn
 * without names (a plain input file) sends its first text as the query and the rest as passages. The ISL is the
 * query and every passage, since the server tokenizes each query–passage pair.
 */
import type { Turn } from "../dataset/conversation.ts";
import type { Delta } from "./endpoint_adapter.ts";
import { asObject, type JsonObject, readApiError, readUsage } from "./openai/openai_fields.ts";

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
