/**
 * Speculative decoding as `serve-sim --spec-decode-tokens k --spec-decode-acceptance p` simulates it, reported the
 * way vLLM does with `--per-request-spec-decode-metrics detailed` (`metrics.speculative_decoding` on the answer, or on
 * the stream's usage chunk).
 *
 * Each verification step proposes `k` draft tokens; they are accepted one after another, each with probability `p`,
 * up to the first rejection (so a step accepts `j` drafts with probability `p^j (1 − p)`, or `p^k` for all `k`), and
 * emits `j + 1` tokens (the bonus token). Steps go on until the answer's tokens are emitted; the last step accepts
 * no more drafts than the answer still needs, so `accepted + steps = completion tokens` exactly. Draws come from the
 * request's seeded generator: the same request gets the same statistics.
 */
import type { SeededRandom } from "../base/seeded_random.ts";

export interface SpecDecodeSim {
  /** Draft tokens proposed per step (`num_spec_tokens`). */
  readonly k: number;
  /** Drafts accepted in each step, in order. */
  readonly perStepAccepted: readonly number[];
}

/** The steps of an answer of `tokens` tokens; undefined for an answer without tokens (no step ran). */
export function planSpecDecode(tokens: number, k: number, p: number, rng: SeededRandom): SpecDecodeSim | undefined {
  if (tokens <= 0 || k <= 0) return undefined;
  const perStepAccepted: number[] = [];
  let left = tokens;
  while (left > 0) {
    let j = 0;
    while (j < k && (p >= 1 || (p > 0 && rng.next() < p))) j++;
    j = Math.min(j, left - 1);
    perStepAccepted.push(j);
    left -= j + 1;
  }
  return { k, perStepAccepted };
}

/** `,"metrics":{"speculative_decoding":{…}}` in vLLM's field names, or "" without a plan. */
export function specDecodeMetricsField(sim: SpecDecodeSim | undefined): string {
  if (sim === undefined) return "";
  const steps = sim.perStepAccepted.length;
  const accepted = sim.perStepAccepted.reduce((a, b) => a + b, 0);
  const drafted = steps * sim.k;
  const histogram = new Array<number>(sim.k + 1).fill(0);
  for (const j of sim.perStepAccepted) histogram[j]++;
  const stats = {
    num_spec_tokens: sim.k,
    num_spec_steps: steps,
    num_draft_tokens: drafted,
    num_accepted_draft_tokens: accepted,
    mean_acceptance_length: steps === 0 ? 1 : 1 + accepted / steps,
    draft_acceptance_rate: drafted === 0 ? 0 : accepted / drafted,
    acceptance_histogram: histogram,
    per_step_accepted: sim.perStepAccepted,
    per_step_drafted: new Array<number>(steps).fill(sim.k),
  };
  return `,"metrics":{"speculative_decoding":${JSON.stringify(stats)}}`;
}
