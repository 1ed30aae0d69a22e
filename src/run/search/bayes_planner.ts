/**
 * The Bayesian search of `--search-space` (AIPerf's `bayesian` and `optuna` planners): which point to probe next,
 * given the objective and the SLA margins measured so far.
 *
 * - The first `initialPoints` probes fill the space: a scrambled Halton sequence (bases 2, 3, 5, …, shifted by a
 *   seeded random offset), integer dimensions rounded, repeats skipped.
 * - Then each probe maximizes the constrained log expected improvement: a Gaussian process (`gaussian_process.ts`)
 *   on the objective (negated when minimized) gives log EI over the best feasible value so far, and one Gaussian
 *   process per SLA filter on its margin (negative inside the SLA) gives log P(margin < 0); their sum is the
 *   acquisition (Gardner et al. 2014, the constrained EI Optuna's and BoTorch's constraint handling follows). Before
 *   any probe is feasible the acquisition is the probability of feasibility alone. It is maximized over a seeded
 *   candidate set (2,048 quasi-random points, 256 around the best probe), points already probed left out.
 * - A probe with no objective counts, for the model, as the worst seen minus max(10 % of it, 1) (AIPerf's rule); an
 *   unmeasured margin as a sure breach.
 * - It stops on AIPerf's signals: `max_iterations`; `improvement_patience` (10 probes without a better objective);
 *   `plateau_cv` (the last 8 objectives' coefficient of variation under 1 %); with a terminator, `posterior_regret_bound`
 *   (regret) or `emmr`: the model's bound on what is left to gain — the best upper confidence bound (mean + 2 sd) of
 *   any candidate minus the best lower bound of a probed point — is within the measurement noise; and
 *   `search_space_exhausted` when every integer point has been probed.
 *
 * The same seed, space and measurements give the same probes.
 */
import { SeededRandom } from "../../base/seeded_random.ts";
import { GaussianProcess, logExpectedImprovement, normalCdf } from "../../metrics/gaussian_process.ts";

export interface BayesDim {
  /** The parameter's name in probe values (`concurrency`, `rate`, `isl`). */
  readonly name: string;
  readonly lo: number;
  readonly hi: number;
  readonly int: boolean;
}

export interface BayesOptions {
  readonly dims: readonly BayesDim[];
  readonly maxIterations: number;
  readonly initialPoints: number;
  readonly seed: number;
  readonly direction: "maximize" | "minimize";
  readonly terminator?: "regret" | "emmr";
  /** @default 10 */
  readonly improvementPatience?: number;
  /** @default 8 */
  readonly plateauWindow?: number;
  /** @default 0.01 */
  readonly plateauThreshold?: number;
}

export interface BayesObservation {
  /** The objective as measured (not negated); undefined when the probe gave none. */
  readonly objective?: number;
  readonly feasible: boolean;
  /** Each SLA filter's margin (negative inside), undefined when unmeasured. */
  readonly margins: readonly (number | undefined)[];
}

interface Told {
  readonly values: Readonly<Record<string, number>>;
  readonly unit: readonly number[];
  readonly obs: BayesObservation;
}

const PRIMES = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53];
const CANDIDATES = 2048;
const LOCAL_CANDIDATES = 256;
const LOCAL_SD = 0.05;
const PLATEAU_MEAN_EPSILON = 1e-9;

function radicalInverse(i: number, base: number): number {
  let f = 1;
  let r = 0;
  while (i > 0) {
    f /= base;
    r += f * (i % base);
    i = Math.floor(i / base);
  }
  return r;
}

export class BayesPlanner {
  readonly o: BayesOptions;
  readonly history: Told[] = [];
  reason: string | undefined;
  #pending: Record<string, number> | undefined;
  #haltonIndex = 1;
  readonly #shift: number[];
  readonly #rng: SeededRandom;
  #best: number | undefined;
  #sinceImprovement = 0;

  constructor(o: BayesOptions) {
    if (o.dims.length === 0) throw new RangeError("a Bayesian search needs at least one dimension");
    if (o.dims.length > PRIMES.length) throw new RangeError(`at most ${PRIMES.length} search dimensions`);
    if (!(o.initialPoints >= 1 && o.initialPoints < o.maxIterations)) {
      throw new RangeError(`initial points (${o.initialPoints}) must be ≥ 1 and < max iterations (${o.maxIterations})`);
    }
    this.o = o;
    this.#rng = new SeededRandom(o.seed);
    const shift = this.#rng.derive("halton-shift");
    this.#shift = o.dims.map(() => shift.next());
  }

  /** The values of the next probe (by dimension name), or undefined when the search has ended (see `reason`). */
  next(): Readonly<Record<string, number>> | undefined {
    if (this.reason !== undefined) return undefined;
    if (this.#pending !== undefined) return this.#pending;
    this.reason = this.#stopReason();
    if (this.reason !== undefined) return undefined;
    const unit = this.history.length < this.o.initialPoints ? this.#initialPoint() : this.#acquire();
    if (unit === undefined) {
      this.reason = "search_space_exhausted";
      return undefined;
    }
    this.#pending = this.#values(unit);
    return this.#pending;
  }

  /** What the probe `next()` returned measured. */
  tell(values: Readonly<Record<string, number>>, obs: BayesObservation): void {
    this.#pending = undefined;
    this.history.push({ values: { ...values }, unit: this.#unit(values), obs });
    const signed = obs.objective === undefined || !Number.isFinite(obs.objective)
      ? undefined
      : this.#signed(obs.objective);
    if (signed !== undefined && (this.#best === undefined || signed > this.#best)) {
      this.#best = signed;
      this.#sinceImprovement = 0;
    } else this.#sinceImprovement++;
  }

  #signed(objective: number): number {
    return this.o.direction === "maximize" ? objective : -objective;
  }

  #unit(values: Readonly<Record<string, number>>): number[] {
    return this.o.dims.map((d) => (values[d.name] - d.lo) / (d.hi - d.lo));
  }

  #values(unit: readonly number[]): Record<string, number> {
    const out: Record<string, number> = {};
    this.o.dims.forEach((d, i) => {
      const v = d.lo + Math.min(Math.max(unit[i], 0), 1) * (d.hi - d.lo);
      out[d.name] = d.int ? Math.min(Math.max(Math.round(v), Math.ceil(d.lo)), Math.floor(d.hi)) : v;
    });
    return out;
  }

  #probed(values: Readonly<Record<string, number>>): boolean {
    const key = JSON.stringify(this.o.dims.map((d) => values[d.name]));
    return this.history.some((h) => JSON.stringify(this.o.dims.map((d) => h.values[d.name])) === key);
  }

  /** The next Halton point not probed yet (integer rounding can repeat one). */
  #initialPoint(): number[] | undefined {
    for (let tries = 0; tries < 1000; tries++) {
      const i = this.#haltonIndex++;
      const unit = this.o.dims.map((_, d) => (radicalInverse(i, PRIMES[d]) + this.#shift[d]) % 1);
      if (!this.#probed(this.#values(unit))) return unit;
    }
    return this.#acquire();
  }

  #stopReason(): string | undefined {
    const n = this.history.length;
    if (n >= this.o.maxIterations) return "max_iterations";
    if (this.#sinceImprovement >= (this.o.improvementPatience ?? 10)) return "improvement_patience";
    const window = this.o.plateauWindow ?? 8;
    const recent = this.history.slice(-window).map((h) => h.obs.objective)
      .filter((v): v is number => v !== undefined && Number.isFinite(v));
    if (n >= window && recent.length === window) {
      const mean = recent.reduce((a, b) => a + b, 0) / window;
      const variance = recent.reduce((a, v) => a + (v - mean) ** 2, 0) / (window - 1);
      if (
        Math.abs(mean) >= PLATEAU_MEAN_EPSILON &&
        Math.sqrt(variance) / Math.abs(mean) < (this.o.plateauThreshold ?? 0.01)
      ) {
        return "plateau_cv";
      }
    }
    if (this.o.terminator !== undefined && n >= Math.max(this.o.initialPoints, 2) && this.#regretSmall()) {
      return this.o.terminator === "regret" ? "posterior_regret_bound" : "emmr";
    }
    return undefined;
  }

  /** The objective per probe for the model (signed: larger is better), failures as AIPerf's sentinel. */
  #objectives(): number[] | undefined {
    const finite = this.history.map((h) => h.obs.objective).filter((v): v is number =>
      v !== undefined && Number.isFinite(v)
    )
      .map((v) => this.#signed(v));
    if (finite.length === 0) return undefined;
    const worst = Math.min(...finite);
    const sentinel = worst - Math.max(Math.abs(worst) * 0.1, 1);
    return this.history.map((h) =>
      h.obs.objective === undefined || !Number.isFinite(h.obs.objective) ? sentinel : this.#signed(h.obs.objective)
    );
  }

  #candidates(): number[][] {
    const rng = this.#rng.derive(`candidates-${this.history.length}`);
    const shift = this.o.dims.map(() => rng.next());
    const out: number[][] = [];
    for (let i = 1; i <= CANDIDATES; i++) {
      out.push(this.o.dims.map((_, d) => (radicalInverse(i, PRIMES[d]) + shift[d]) % 1));
    }
    const ys = this.#objectives();
    if (ys !== undefined) {
      const feasible = this.history.map((h, i) => [h, ys[i]] as const).filter(([h]) => h.obs.feasible);
      const pool = feasible.length > 0 ? feasible : this.history.map((h, i) => [h, ys[i]] as const);
      const best = pool.reduce((a, b) => (b[1] > a[1] ? b : a))[0];
      for (let i = 0; i < LOCAL_CANDIDATES; i++) {
        out.push(best.unit.map((u) => Math.min(Math.max(u + rng.normal(0, LOCAL_SD), 0), 1)));
      }
    }
    return out;
  }

  /** The candidate with the highest constrained log EI, not probed yet; undefined when none is left. */
  #acquire(): number[] | undefined {
    const xs = this.history.map((h) => h.unit);
    const ys = this.#objectives();
    const objectiveGp = ys === undefined ? undefined : GaussianProcess.fit(xs, ys);
    const filters = Math.max(0, ...this.history.map((h) => h.obs.margins.length));
    const constraintGps: GaussianProcess[] = [];
    for (let f = 0; f < filters; f++) {
      const measured = this.history.map((h) => h.obs.margins[f]).filter((m): m is number =>
        m !== undefined && Number.isFinite(m)
      );
      const breach = Math.max(1, ...measured.map((m) => m + 1));
      constraintGps.push(GaussianProcess.fit(
        xs,
        this.history.map((h) => {
          const m = h.obs.margins[f];
          return m === undefined || !Number.isFinite(m) ? breach : m;
        }),
      ));
    }
    const feasibleYs = ys === undefined ? [] : ys.filter((_, i) => this.history[i].obs.feasible);
    const best = feasibleYs.length > 0 ? Math.max(...feasibleYs) : undefined;
    let chosen: number[] | undefined;
    let chosenScore = -Infinity;
    const seen = new Set<string>();
    for (const unit of this.#candidates()) {
      const values = this.#values(unit);
      const key = JSON.stringify(this.o.dims.map((d) => values[d.name]));
      if (seen.has(key)) continue;
      seen.add(key);
      if (this.#probed(values)) continue;
      const snapped = this.#unit(values);
      let score = 0;
      for (const gp of constraintGps) {
        const p = gp.predict(snapped);
        score += Math.log(Math.max(normalCdf(-p.mean / Math.max(p.sd, 1e-12)), 1e-300));
      }
      if (best !== undefined && objectiveGp !== undefined) {
        const p = objectiveGp.predict(snapped);
        score += logExpectedImprovement(p.mean, p.sd, best);
      } else if (best === undefined && constraintGps.length === 0 && objectiveGp !== undefined) {
        const p = objectiveGp.predict(snapped);
        score += logExpectedImprovement(p.mean, p.sd, Math.max(...ys!));
      }
      if (score > chosenScore) {
        chosenScore = score;
        chosen = snapped;
      }
    }
    return chosen;
  }

  /** The model's bound on the gain left is within the noise of the measurements. */
  #regretSmall(): boolean {
    const ys = this.#objectives();
    if (ys === undefined) return false;
    const xs = this.history.map((h) => h.unit);
    const gp = GaussianProcess.fit(xs, ys);
    const lcb = Math.max(...xs.map((x) => {
      const p = gp.predict(x);
      return p.mean - 2 * p.sd;
    }));
    let ucb = -Infinity;
    for (const unit of this.#candidates()) {
      const p = gp.predict(this.#unit(this.#values(unit)));
      ucb = Math.max(ucb, p.mean + 2 * p.sd);
    }
    return ucb - lcb <= gp.noiseSd;
  }
}
