/**
 * How many tokens a simulated response has, how many of them are reasoning, and why it finished.
 *
 * Rules (also printed by `infermeter serve-sim --help`):
 * - With a max (`max_completion_tokens` / `max_tokens`): exactly max tokens, finish `length`. With `eosRate` p > 0
 *   (and no `ignore_eos`), after `max(min_tokens, 1)` tokens each further token ends generation with probability
 *   p (finish `stop`); a response always has at least one token so clients can measure TTFT. A max of 0 (a route
 *   that does not generate) plans no tokens.
 * - Without a max: `clamp(round(prompt_tokens × U(0.8, 1.2)), 16, maxDefaultTokens)` content tokens, at least
 *   `min_tokens` in all, finish `stop` (AIPerf mock server's rule), plus any reasoning tokens.
 * - Reasoning (only where the route's API carries it) comes first and counts within the max:
 *   `min(reasoning budget, total)`.
 */
import type { GenerationRequest, ReasoningRequest } from "./generation_request.ts";
import { REASONING_EFFORT_TOKENS, type SimOptions } from "./sim_options.ts";
import type { SeededRandom } from "../base/seeded_random.ts";
import type { SpecDecodeSim } from "./spec_decode_plan.ts";

export type FinishReason = "stop" | "length";

export interface GenerationPlan {
  readonly promptTokens: number;
  /** Reasoning tokens, emitted before the content. */
  readonly reasoningTokens: number;
  readonly contentTokens: number;
  readonly finishReason: FinishReason;
  /** `--usage-details`: what the usage reports beyond the counts. */
  readonly details?: UsageDetails;
  /** `--spec-decode-tokens`: the speculative-decoding steps the answer reports (chat and completions). */
  readonly specDecode?: SpecDecodeSim;
}

/** The usage details of `--usage-details`. */
export interface UsageDetails {
  /** Prompt tokens found in the prefix cache. */
  readonly cachedTokens: number;
  /** Tokens of the request's `prediction`; 0 without one. */
  readonly predictionTokens: number;
}

export type PlanSettings = Pick<SimOptions, "maxDefaultTokens" | "eosRate" | "reasoningTokens" | "reasoning">;

/** Reasoning tokens of a `--reasoning` model when the request names no effort (OpenAI's default effort, medium). */
const DEFAULT_EFFORT_TOKENS = REASONING_EFFORT_TOKENS.medium;

export function planGeneration(
  request: GenerationRequest,
  promptTokens: number,
  settings: PlanSettings,
  rng: SeededRandom,
): GenerationPlan {
  const reasoningBudget = request.reasoning === undefined ? 0 : reasoningBudgetOf(request.reasoning, settings);
  if (request.maxTokens !== undefined) {
    const max = request.maxTokens;
    let total = max;
    let finishReason: FinishReason = "length";
    if (settings.eosRate > 0 && !request.ignoreEos) {
      const start = Math.max(request.minTokens, 1);
      if (start < max) {
        const extra = geometric(rng, settings.eosRate);
        if (start + extra < max) {
          total = start + extra;
          finishReason = "stop";
        }
      }
    }
    const reasoningTokens = Math.min(reasoningBudget, total);
    return { promptTokens, reasoningTokens, contentTokens: total - reasoningTokens, finishReason };
  }
  const factor = 0.8 + 0.4 * rng.next();
  let content = Math.min(settings.maxDefaultTokens, Math.max(16, Math.round(promptTokens * factor)));
  content = Math.max(content, request.minTokens - reasoningBudget);
  return { promptTokens, reasoningTokens: reasoningBudget, contentTokens: content, finishReason: "stop" };
}

function reasoningBudgetOf(reasoning: ReasoningRequest, settings: PlanSettings): number {
  if (reasoning.disabled) return 0;
  if (!settings.reasoning) return settings.reasoningTokens;
  const effort = reasoning.effort;
  if (effort !== undefined && Object.hasOwn(REASONING_EFFORT_TOKENS, effort)) return REASONING_EFFORT_TOKENS[effort];
  return settings.reasoningTokens > 0 ? settings.reasoningTokens : DEFAULT_EFFORT_TOKENS;
}

/** Failures before the first success of Bernoulli(p) trials, by inversion (one draw, no per-token loop). */
function geometric(rng: SeededRandom, p: number): number {
  if (p >= 1) return 0;
  const u = 1 - rng.next(); // (0, 1]
  return Math.floor(Math.log(u) / Math.log1p(-p));
}

/**
 * The plan of a request answered with a known text of `pieces` pieces (`--answers`): the reasoning as planned, then
 * the whole answer (finish `stop`), or as much of it as the max leaves after the reasoning (finish `length`).
 */
export function answeredPlan(planned: GenerationPlan, pieces: number, maxTokens: number | undefined): GenerationPlan {
  if (maxTokens === undefined || planned.reasoningTokens + pieces <= maxTokens) {
    return { ...planned, contentTokens: pieces, finishReason: "stop" };
  }
  const reasoningTokens = Math.min(planned.reasoningTokens, maxTokens);
  return { ...planned, reasoningTokens, contentTokens: maxTokens - reasoningTokens, finishReason: "length" };
}
