/**
 * The boundary searches of a search recipe: which concurrency to probe next, given the verdicts so far, until the
 * highest concurrency that meets every SLA filter is pinned between a feasible and an infeasible probe.
 *
 * - `monotonic` (AIPerf's `MonotonicSLASearchPlanner`, perf_analyzer's `--binary-search`): from `lo`, double while
 *   probes pass (the last step is `hi`); then bisect [feasible max, infeasible min] until the gap is 1 or under 5 % of
 *   the infeasible value.
 * - `smooth_isotonic` (AIPerf's default): the same doubling bracket; then three probes evenly inside it, and from then
 *   on each probe is where a curve through the SLA margins measured so far crosses zero — the margins made
 *   non-decreasing by isotonic regression (one noisy probe cannot bend it), joined by PCHIP (`isotonic_fit.ts`), the
 *   binding filter being the one that crosses first. A fit that finds no crossing, or whose last probe narrowed the
 *   bracket by less than a quarter (a step-shaped "cliff" the curve cannot place), is replaced by a bisection step,
 *   so the search never takes more than a bisection's number of steps plus the three.
 *
 * A verdict that contradicts the bracket (a pass above a failure) is recorded as non-monotonic and leaves the bracket
 * as it was, as AIPerf does. The planners are pure: probes are run, and judged, by `run_search.ts`.
 */
import { firstRoot, isotonicFit, pchip, strictify } from "../../metrics/isotonic_fit.ts";

/** AIPerf's `SLA_PRECISION_DEFAULT`: the bracket is narrow enough when its gap is under 5 % of its top. */
export const SLA_PRECISION = 0.05;

/** What a probe's judgement tells a planner. */
export interface ProbeResult {
  readonly feasible: boolean;
  /** Each filter's margin (negative inside the SLA, positive past it), by filter index; missing when unmeasured. */
  readonly margins: readonly (number | undefined)[];
}

export interface BoundaryPlanner {
  /** The next concurrency to probe, or undefined when the search has ended (see `reason`). */
  next(): number | undefined;
  /** The verdict of the probe `next()` returned; true when it contradicts the bracket. */
  tell(value: number, result: ProbeResult): boolean;
  readonly feasibleMax: number | undefined;
  readonly infeasibleMin: number | undefined;
  /** Why the search ended (AIPerf's convergence reasons), undefined while it goes on. */
  readonly reason: string | undefined;
}

export interface PlannerOptions {
  readonly lo: number;
  readonly hi: number;
  readonly maxIterations: number;
}

/** The gap of [feasibleMax, infeasibleMin] is down to 1, or under 5 % of the top. */
function precise(fm: number, im: number): boolean {
  const gap = im - fm;
  return gap <= 1 || gap / Math.max(im, 1) < SLA_PRECISION;
}

function midpoint(fm: number, im: number): number {
  return Math.min(Math.max(fm + Math.floor((im - fm) / 2), fm + 1), im - 1);
}

/** The bracket both planners keep, and the doubling that finds it. */
abstract class BracketPlanner implements BoundaryPlanner {
  feasibleMax: number | undefined;
  infeasibleMin: number | undefined;
  reason: string | undefined;
  protected readonly o: PlannerOptions;
  protected iterations = 0;
  protected phase: "bracket" | "inside" = "bracket";
  protected pending: number | undefined;
  readonly #prefix: string;

  constructor(o: PlannerOptions, prefix: string) {
    if (!(o.lo >= 1 && o.hi > o.lo)) throw new RangeError(`a search needs 1 ≤ lo < hi (got ${o.lo}, ${o.hi})`);
    this.o = o;
    this.#prefix = prefix;
    this.pending = o.lo;
  }

  next(): number | undefined {
    if (this.reason === undefined && this.iterations >= this.o.maxIterations) this.reason = "max_iterations";
    return this.reason === undefined ? this.pending : undefined;
  }

  tell(value: number, result: ProbeResult): boolean {
    this.iterations++;
    this.record(value, result);
    let contradicts = false;
    if (result.feasible) {
      if (this.infeasibleMin !== undefined && value >= this.infeasibleMin) contradicts = true;
      else if (this.feasibleMax === undefined || value > this.feasibleMax) this.feasibleMax = value;
    } else {
      if (this.feasibleMax !== undefined && value <= this.feasibleMax) contradicts = true;
      else if (this.infeasibleMin === undefined || value < this.infeasibleMin) this.infeasibleMin = value;
    }
    if (this.phase === "bracket") this.#bracketStep(value, result.feasible);
    else this.insideStep();
    return contradicts;
  }

  #bracketStep(value: number, feasible: boolean): void {
    if (!feasible) {
      if (this.feasibleMax === undefined) {
        this.end("no_pass_in_range");
        return;
      }
      this.phase = "inside";
      this.insideStep();
      return;
    }
    if (value >= this.o.hi) {
      this.feasibleMax = this.o.hi;
      this.end("no_failure_in_range");
      return;
    }
    this.pending = Math.min(value * 2, this.o.hi);
  }

  protected end(reason: string): void {
    this.reason = `${this.#prefix}_${reason}`;
    this.pending = undefined;
  }

  /** Remembers what the probe measured (the smooth planner fits it). */
  protected record(_value: number, _result: ProbeResult): void {}

  /** Chooses the next probe inside [feasibleMax, infeasibleMin], or ends. */
  protected abstract insideStep(): void;
}

export class MonotonicPlanner extends BracketPlanner {
  constructor(o: PlannerOptions) {
    super(o, "monotonic");
  }

  protected insideStep(): void {
    const fm = this.feasibleMax!;
    const im = this.infeasibleMin!;
    if (precise(fm, im)) this.end("precision_reached");
    else this.pending = midpoint(fm, im);
  }
}

/** Probes placed evenly inside the bracket before the first fit (AIPerf: PCHIP needs 4+ points). */
const FIT_INTERNAL_PROBES = 3;

export class SmoothIsotonicPlanner extends BracketPlanner {
  readonly #margins = new Map<number, readonly (number | undefined)[]>();
  #queue: number[] = [];
  #queued = false;
  /** The bracket gap before the last fitted probe, to see whether fits still narrow it. */
  #gapBeforeFit: number | undefined;
  #lastWasFallback = false;
  /** The filter whose curve crossed first at the last fit (its index). */
  bindingFilter: number | undefined;

  constructor(o: PlannerOptions) {
    super(o, "smooth_isotonic");
  }

  protected override record(value: number, result: ProbeResult): void {
    this.#margins.set(value, result.margins);
  }

  protected insideStep(): void {
    const fm = this.feasibleMax!;
    const im = this.infeasibleMin!;
    if (precise(fm, im)) {
      this.end(this.#lastWasFallback ? "pchip_fallback_bisection" : "precision_reached");
      return;
    }
    if (!this.#queued) {
      this.#queued = true;
      const inside = new Set<number>();
      for (let k = 1; k <= FIT_INTERNAL_PROBES; k++) {
        inside.add(Math.round(fm + (im - fm) * k / (FIT_INTERNAL_PROBES + 1)));
      }
      this.#queue = [...inside].filter((v) => v > fm && v < im && !this.#margins.has(v));
    }
    this.#queue = this.#queue.filter((v) => v > fm && v < im);
    if (this.#queue.length > 0) {
      this.pending = this.#queue.shift();
      return;
    }
    const gap = im - fm;
    const stalled = this.#gapBeforeFit !== undefined && gap > this.#gapBeforeFit * 0.75;
    const fitted = stalled ? undefined : this.#fit(fm, im);
    this.#lastWasFallback = fitted === undefined;
    this.#gapBeforeFit = fitted === undefined ? undefined : gap;
    this.pending = fitted ?? midpoint(fm, im);
  }

  /** Where the first filter's fitted margin curve crosses zero inside (fm, im), as a new probe. */
  #fit(fm: number, im: number): number | undefined {
    const xs = [...this.#margins.keys()].sort((a, b) => a - b);
    const filters = Math.max(0, ...[...this.#margins.values()].map((m) => m.length));
    let best: number | undefined;
    for (let f = 0; f < filters; f++) {
      const points = xs.flatMap((x) => {
        const m = this.#margins.get(x)![f];
        return m === undefined || !Number.isFinite(m) ? [] : [[x, m] as const];
      });
      if (points.length < 2) continue;
      const curve = pchip(points.map((p) => p[0]), strictify(isotonicFit(points.map((p) => p[1]))));
      const root = firstRoot(curve, fm, im);
      if (root !== undefined && (best === undefined || root < best)) {
        best = root;
        this.bindingFilter = f;
      }
    }
    if (best === undefined) return undefined;
    return Math.min(Math.max(Math.round(best), fm + 1), im - 1);
  }
}

/** The planner of a style. */
export function boundaryPlanner(style: "monotonic" | "smooth_isotonic", o: PlannerOptions): BoundaryPlanner {
  return style === "monotonic" ? new MonotonicPlanner(o) : new SmoothIsotonicPlanner(o);
}
