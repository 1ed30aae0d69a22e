/**
 * The multi-tier SLO search (`--search-sla-tier`, AIPerf's `MultiTierPlanner`): one bracket [feasible max,
 * infeasible min] per tier over concurrency, every probe judged for every tier.
 *
 * - Bracket: from `lo`, double while every tier passes (the last step is `hi`; passing there ends every tier with
 *   `no_failure_in_range`). The first failure of any tier starts the bisection; when no tier has passed at all,
 *   every tier ends with `no_pass_in_range`.
 * - Bisection: the midpoint of the widest open bracket among the tiers not done; a tier with one bound only gets its
 *   other one by doubling its feasible max (or halving its infeasible min).
 * - A tier is done when its gap is 1 or under 5 % of its top (`multi_tier_precision_reached`); a verdict against its
 *   bracket marks it non-monotonic, and an inverted bracket drops its stale infeasible bound. The search ends when
 *   every tier is done (`multi_tier_all_converged`) or at `max_iterations`.
 *
 * AIPerf also infers an order between tiers (a stricter one failing implies…) to skip probes; infermeter probes each
 * tier's own bracket, which can cost a probe more and never changes a boundary.
 */
import { SLA_PRECISION } from "./sla_planners.ts";

export interface TierBracket {
  readonly label: string;
  feasibleMax?: number;
  infeasibleMin?: number;
  converged: boolean;
  reason?: string;
  probeCount: number;
  nonMonotonic: boolean;
  /** The index of the probe that set `infeasibleMin` (its first failing filter is the tier's binding one). */
  infeasibleProbe?: number;
}

export class MultiTierPlanner {
  readonly brackets: TierBracket[];
  reason: string | undefined;
  readonly #lo: number;
  readonly #hi: number;
  readonly #maxIterations: number;
  #phase: "bracket" | "bisect" = "bracket";
  #next: number;
  #iterations = 0;

  constructor(labels: readonly string[], o: { lo: number; hi: number; maxIterations: number }) {
    if (labels.length < 2) throw new RangeError("a multi-tier search needs at least 2 tiers");
    if (!(o.lo >= 1 && o.hi > o.lo)) throw new RangeError(`a search needs 1 ≤ lo < hi (got ${o.lo}, ${o.hi})`);
    this.brackets = labels.map((label) => ({ label, converged: false, probeCount: 0, nonMonotonic: false }));
    this.#lo = o.lo;
    this.#hi = o.hi;
    this.#maxIterations = o.maxIterations;
    this.#next = o.lo;
  }

  /** The next concurrency, or undefined when the search has ended (see `reason`). */
  next(): number | undefined {
    if (this.reason !== undefined) return undefined;
    if (this.#iterations >= this.#maxIterations) {
      this.reason = "max_iterations";
      return undefined;
    }
    if (this.brackets.every((b) => b.converged)) {
      this.reason = "multi_tier_all_converged";
      return undefined;
    }
    if (this.#phase === "bracket") return this.#next;
    const probe = this.#widestMidpoint() ?? this.#missingBound();
    if (probe === undefined) this.reason = "multi_tier_all_converged";
    return probe;
  }

  /** Each tier's verdict (in tier order) on the probe at `value`, the probe's index in the search. */
  tell(value: number, verdicts: readonly boolean[], probeIndex: number): void {
    this.#iterations++;
    this.brackets.forEach((b, i) => {
      if (b.converged) return;
      b.probeCount++;
      if (verdicts[i]) {
        if (b.infeasibleMin !== undefined && value >= b.infeasibleMin) b.nonMonotonic = true;
        if (b.feasibleMax === undefined || value > b.feasibleMax) b.feasibleMax = value;
      } else {
        if (b.feasibleMax !== undefined && value <= b.feasibleMax) b.nonMonotonic = true;
        if (b.infeasibleMin === undefined || value < b.infeasibleMin) {
          b.infeasibleMin = value;
          b.infeasibleProbe = probeIndex;
        }
      }
    });
    this.#checkConvergence();
    if (this.#phase !== "bracket") return;
    if (!verdicts.every((v) => v)) {
      if (this.brackets.every((b) => b.feasibleMax === undefined)) {
        for (const b of this.brackets) this.#end(b, "no_pass_in_range");
        this.reason = "multi_tier_all_converged";
      } else this.#phase = "bisect";
      return;
    }
    const next = Math.max(value * 2, value + 1);
    if (value >= this.#hi) {
      for (const b of this.brackets) {
        if (b.converged) continue;
        b.feasibleMax = Math.max(b.feasibleMax ?? this.#hi, this.#hi);
        this.#end(b, "no_failure_in_range");
      }
      this.reason = "multi_tier_all_converged";
      return;
    }
    this.#next = Math.min(next, this.#hi);
  }

  #end(b: TierBracket, reason: string): void {
    b.converged = true;
    b.reason = reason;
  }

  #checkConvergence(): void {
    for (const b of this.brackets) {
      if (b.converged || b.feasibleMax === undefined || b.infeasibleMin === undefined) continue;
      if (b.feasibleMax >= b.infeasibleMin) {
        b.nonMonotonic = true;
        b.infeasibleMin = undefined;
        b.infeasibleProbe = undefined;
        continue;
      }
      const gap = b.infeasibleMin - b.feasibleMax;
      if (gap <= 1 || gap / b.infeasibleMin < SLA_PRECISION) this.#end(b, "multi_tier_precision_reached");
    }
  }

  #widestMidpoint(): number | undefined {
    const open = this.brackets.filter((b) =>
      !b.converged && b.feasibleMax !== undefined && b.infeasibleMin !== undefined && b.infeasibleMin > b.feasibleMax
    );
    if (open.length === 0) return undefined;
    const widest = open.reduce((a, b) => b.infeasibleMin! - b.feasibleMax! > a.infeasibleMin! - a.feasibleMax! ? b : a);
    const gap = widest.infeasibleMin! - widest.feasibleMax!;
    if (gap <= 1) {
      this.#end(widest, "multi_tier_precision_reached");
      return this.#widestMidpoint();
    }
    return widest.feasibleMax! + Math.floor(gap / 2);
  }

  #missingBound(): number | undefined {
    for (const b of this.brackets) {
      if (b.converged) continue;
      if (b.feasibleMax !== undefined && b.infeasibleMin === undefined) {
        const candidate = Math.min(b.feasibleMax * 2, this.#hi);
        if (candidate > b.feasibleMax) return candidate;
        b.feasibleMax = this.#hi;
        this.#end(b, "no_failure_in_range");
        continue;
      }
      if (b.infeasibleMin !== undefined && b.feasibleMax === undefined) {
        const candidate = Math.max(Math.floor(b.infeasibleMin / 2), this.#lo);
        if (candidate < b.infeasibleMin) return candidate;
        this.#end(b, "no_pass_in_range");
      }
    }
    return undefined;
  }

  /** AIPerf's per-tier status: converged, partial, no_pass_in_range or no_failure_in_range. */
  static status(b: TierBracket): string {
    if (!b.converged) return "partial";
    if (b.reason === "no_pass_in_range" || b.reason === "no_failure_in_range") return b.reason;
    return "converged";
  }
}
