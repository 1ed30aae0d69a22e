/**
 * ShareGPT (AIPerf 0.13's `sharegpt` public dataset): `ShareGPT_V3_unfiltered_cleaned_split.json`, an array of
 * `{"id", "conversations": [{"from": "human"|"gpt"|…, "value"}]}`. Every adjacent human → gpt pair becomes a turn of
 * one conversation (without `from` roles: the first two values are one pair), asking for as many output tokens as
 * the recorded answer had. A conversation is dropped when it has fewer than two messages, no pair, or any pair whose
 * prompt has < 4 or > 1024 tokens, whose answer has < 4 tokens (unless `--osl` is given), or whose prompt and answer
 * together exceed 2048 tokens. Sent in file order by default (sequential).
 */
import type { SeededRandom } from "../base/seeded_random.ts";
import type { Conversation, Dataset, Turn } from "./conversation.ts";
import { DatasetError } from "./dataset_error.ts";
import { readJsonArray } from "./json_array_stream.ts";
import type { Tokenizer } from "../tokenizer/tokenizer.ts";

/** What a public dataset reader is given. */
export interface PublicDatasetContext {
  readonly tokenizer: Tokenizer;
  /** `--osl` was given: ShareGPT then keeps pairs with short answers (AIPerf). */
  readonly outputTokensGiven: boolean;
  /**
   * At most this many conversations from a dataset AIPerf streams (its cap: the request count, else the conversation
   * count); undefined = all.
   */
  readonly limit?: number;
  /** The run's seed stream (readers that synthesize text derive from it). */
  readonly rng?: SeededRandom;
  /** The run's option values by key (agent-trace options, `--model`, `--dataset-filter`, `--fixed-schedule`). */
  readonly options?: Readonly<Record<string, unknown>>;
  /** Conversations asked for explicitly (`--conversation-num`, `--num-dataset-entries`). */
  readonly entries?: number;
  /** Where notices go. */
  readonly warn?: (message: string) => void;
  readonly signal?: AbortSignal;
}

const MIN_LEN = 4;
const MAX_PROMPT = 1024;
const MAX_TOTAL = 2048;

/** The (prompt, answer) pairs of one entry's messages. */
export function shareGptPairs(messages: unknown): [string, string][] {
  if (!Array.isArray(messages)) return [];
  const dicts = messages.filter((m): m is Record<string, unknown> => typeof m === "object" && m !== null);
  if (dicts.length < 2) return [];
  if (!dicts.some((m) => m.from === "human" || m.from === "gpt")) {
    const [p, c] = [dicts[0].value, dicts[1].value];
    return typeof p === "string" && p && typeof c === "string" && c ? [[p, c]] : [];
  }
  const roles = dicts.filter((m) => m.from === "human" || m.from === "gpt");
  const pairs: [string, string][] = [];
  for (let i = 0; i < roles.length - 1;) {
    if (roles[i].from === "human" && roles[i + 1].from === "gpt") {
      const [p, c] = [roles[i].value, roles[i + 1].value];
      if (typeof p === "string" && p && typeof c === "string" && c) pairs.push([p, c]);
      i += 2;
    } else i++;
  }
  return pairs;
}

export async function loadShareGpt(path: string, ctx: PublicDatasetContext): Promise<Dataset> {
  const { tokenizer } = ctx;
  const conversations: Conversation[] = [];
  try {
    for await (const entry of readJsonArray(path)) {
      const pairs = shareGptPairs((entry as { conversations?: unknown } | null)?.conversations);
      if (pairs.length === 0) continue;
      const turns: Turn[] = [];
      for (const [prompt, answer] of pairs) {
        const isl = tokenizer.count(prompt);
        const osl = tokenizer.count(answer);
        const valid = isl >= MIN_LEN && isl <= MAX_PROMPT && (ctx.outputTokensGiven || osl >= MIN_LEN) &&
          isl + osl <= MAX_TOTAL;
        if (!valid) break;
        turns.push({ texts: [prompt], maxTokens: osl, inputTokens: isl });
      }
      if (turns.length !== pairs.length) continue;
      conversations.push({ id: `sharegpt_${String(conversations.length).padStart(6, "0")}`, turns });
    }
  } catch (err) {
    if (err instanceof SyntaxError) throw new DatasetError(path, undefined, err.message);
    throw err;
  }
  if (conversations.length === 0) {
    throw new DatasetError(path, undefined, "has no ShareGPT conversation within the length limits");
  }
  return { conversations, defaultSampling: "sequential", source: "file", format: "sharegpt" };
}
