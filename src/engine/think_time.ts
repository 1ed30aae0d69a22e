/**
 * Think times drawn around a median (an agent orchestrator's rounds, `Conversation.thinkTime`): lognormal,
 * `median · exp(N(0, σ))`, clamped to the spread's bounds. Each draw comes from its own stream seeded by the run's
 * seed, the session number, the conversation and the turn, so it is the same whichever shard or order runs it.
 */
import { SeededRandom } from "../base/seeded_random.ts";
import type { ThinkTimeSpread } from "../dataset/conversation.ts";

export function thinkTimeDraw(
  spread: ThinkTimeSpread,
  medianMs: number,
  seed: number,
  sessionNumber: number,
  conversationId: string,
  turnIndex: number,
): number {
  if (medianMs <= 0) return medianMs;
  const rng = new SeededRandom(seed).derive(`think-time:${sessionNumber}:${conversationId}:${turnIndex}`);
  // The exponent is capped so a pathological σ cannot overflow to infinity; a non-finite draw keeps the median.
  let ms = medianMs * Math.exp(Math.min(rng.normal(0, spread.sigma), 700));
  if (!Number.isFinite(ms)) ms = medianMs;
  if (spread.minMs !== undefined) ms = Math.max(ms, spread.minMs);
  if (spread.maxMs !== undefined) ms = Math.min(ms, spread.maxMs);
  return ms;
}
