/** What a search runs, as a search recipe or `--search-space` expands it (`search_recipes.ts`, `search_space.ts`). */
import type { GoodputSlo } from "../base/goodput_slo.ts";
import type { SlaFilter } from "./sla_filter.ts";
import type { SlaTier } from "./sla_tiers.ts";

/** The option values a recipe reads (a `ProfileConfig` has them all). */
export interface SearchInputs {
  readonly searchRecipe?: string;
  readonly searchStyle?: string;
  readonly searchSla: readonly string[];
  readonly searchMaxIterations?: number;
  readonly ttftSlaMs?: number;
  readonly itlSlaMs?: number;
  readonly tpotSlaMs?: number;
  readonly e2eSlaMs?: number;
  readonly errorRateSla?: number;
  readonly sloAttainmentFraction?: number;
  readonly concurrencyMin?: number;
  readonly concurrencyMax?: number;
  readonly concurrencySteps?: number;
  readonly degradationThreshold?: number;
  readonly degradationMetricTag?: string;
  readonly degradationStat?: string;
  readonly islOslPairs?: string;
  readonly islMin?: number;
  readonly islMax?: number;
  readonly islSteps?: number;
  readonly oslMin?: number;
  readonly oslMax?: number;
  readonly oslSteps?: number;
  readonly searchSpace?: readonly string[];
  readonly searchMetric?: string;
  readonly searchStat?: string;
  readonly searchDirection?: string;
  readonly searchInitialPoints?: number;
  readonly searchRandomSeed?: number;
  readonly searchPlanner?: string;
  readonly optunaSampler?: string;
  readonly optunaAcquisition?: string;
  readonly optunaTerminator?: string;
  readonly searchPercentilePooling?: string;
  readonly searchSlaTier?: readonly string[];
  readonly convergenceMetric?: string;
  readonly streaming: boolean;
}

/** The boundary searches, the grid, and the Bayesian search (`bo`; `optuna` is the same optimizer). */
export type SearchStyle = "smooth_isotonic" | "monotonic" | "grid" | "bo" | "optuna";

/** One dimension of a Bayesian search: the parameter a probe sets, its bounds, whether it is a whole number. */
export interface SearchDimension {
  /** AIPerf's path (`phases.profiling.concurrency`), as `search_history.json` names it. */
  readonly path: string;
  /** The probe value's name (`concurrency`, `rate`, `isl`). */
  readonly name: string;
  readonly lo: number;
  readonly hi: number;
  readonly kind: "int" | "real";
}

/** What a search runs: probes chosen as it goes, or a list fixed in advance. */
export type SearchProbes =
  | {
    readonly kind: "boundary";
    readonly style: "smooth_isotonic" | "monotonic";
    readonly lo: number;
    readonly hi: number;
    readonly maxIterations: number;
  }
  | { readonly kind: "grid"; readonly concurrencies: readonly number[] }
  | {
    /** One bracket per SLO tier (`--search-sla-tier`), each probe judged for every tier. */
    readonly kind: "tiers";
    readonly lo: number;
    readonly hi: number;
    readonly maxIterations: number;
  }
  | {
    readonly kind: "bayesian";
    readonly dims: readonly SearchDimension[];
    readonly maxIterations: number;
    readonly initialPoints: number;
    readonly seed: number;
    /** AIPerf's planner name written in `search_history.json`. */
    readonly planner: "bayesian" | "optuna";
    readonly terminator?: "regret" | "emmr";
    /** A percentile objective is taken over all the runs' requests together (`--search-percentile-pooling`). */
    readonly pooled: boolean;
  }
  | {
    readonly kind: "shapes";
    readonly cells: readonly { readonly isl?: number; readonly osl?: number; readonly concurrency: number }[];
    /**
     * How a cell's directory is named: AIPerf's `<name>_<value>` joined by `__` in this order
     * (`isl_256__concurrency_1`); without it, `shape_<isl>_<osl>_c<concurrency>` (pareto-sweep).
     */
    readonly naming?: readonly ("isl" | "osl" | "concurrency")[];
  };

/** The artifact AIPerf writes under `sweep_aggregate/` for the recipe, if any. */
export type SearchPostProcess =
  | "sla_breach"
  | "degradation_knee"
  | "pareto_sweep"
  | "ttft_curve_fit"
  | "itl_surface_fit";

export interface SearchSpec {
  readonly recipe: string;
  /** The style asked for (or the recipe's default); `grid` for grid recipes. */
  readonly style: SearchStyle;
  /** Every filter a probe must meet; the recipe's first, then `--search-sla` ones in order. */
  readonly filters: readonly SlaFilter[];
  /** What the search optimizes among feasible probes (AIPerf's objective); recipes maximize an average. */
  readonly objective: {
    readonly metric: string;
    readonly stat: string;
    readonly direction?: "maximize" | "minimize";
  };
  /**
   * What the answer names: the highest feasible concurrency, the feasible probe with the best objective (`best`:
   * of a --search-space search, any dimensions), the knee, the frontier, the fitted curve or the surface.
   */
  readonly answer: "concurrency" | "objective" | "knee" | "pareto" | "curve" | "surface" | "best";
  /** The SLO tiers of a tiered search (their filters apply together with `filters`). */
  readonly tiers?: readonly SlaTier[];
  /** One-line notices the search says at its start (an AIPerf option value mapped to what infermeter does). */
  readonly notices?: readonly string[];
  readonly probes: SearchProbes;
  /** Per-request SLOs the probes count good requests by (`--goodput`), for the goodput recipe. */
  readonly slos?: readonly GoodputSlo[];
  readonly degradation?: { readonly threshold: number; readonly metricTag: string; readonly stat: string };
  readonly postProcess?: SearchPostProcess;
}

/** A seed for a search that was given none (recorded in its history). */
export function drawSeed(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0];
}
