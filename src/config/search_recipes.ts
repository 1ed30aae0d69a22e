/**
 * AIPerf 0.13's search recipes (`--search-recipe`): named presets that turn a few SLA flags into a search over
 * concurrency. Each recipe checks its inputs with AIPerf's words (a missing SLA flag, streaming required, inverted
 * bounds) and expands into a {@link SearchSpec}: the SLA filters, the probes to run (a boundary search, a grid, ISL/OSL
 * shapes, or with `--search-style bo|optuna` a Bayesian search over concurrency), the objective and the artifact AIPerf
 * writes for it; `--search-space` (no recipe) expands in `search_space.ts`, and `--search-sla-tier` makes either a
 * tiered search. Expansion is a configuration rule: it reads only option values
 * and sends nothing, so a bad search fails before the first probe, as a usage error.
 *
 * Where infermeter differs from AIPerf (each said in the README's search section): the Bayesian-optimized recipes
 * (`max-throughput-*-sla`, `max-goodput-under-slo`) find the same SLA boundary with the bracket-and-bisect search
 * unless `--search-style bo|optuna`, and answer the feasible probe with the best objective; `--search-sla` filters alone are enough for
 * `max-concurrency-under-sla`; `--concurrency-steps` also sets the grid style's step count.
 */
import { Registry, type RegistryEntry } from "../base/registry.ts";
import { METRIC_REGISTRY } from "../metrics/metric_registry.ts";
import { ConfigError } from "./config_error.ts";
import { parseSlaFilter, type SlaFilter, type SlaStat } from "./sla_filter.ts";
import { expandSearchSpace } from "./search_space.ts";
import { parseSlaTiers } from "./sla_tiers.ts";

export type {
  SearchDimension,
  SearchInputs,
  SearchPostProcess,
  SearchProbes,
  SearchSpec,
  SearchStyle,
} from "./search_spec.ts";
import type { SearchInputs, SearchProbes, SearchSpec, SearchStyle } from "./search_spec.ts";
import { drawSeed } from "./search_spec.ts";

export interface SearchRecipe extends RegistryEntry {
  /** @throws {ConfigError} naming what is missing or conflicting, in AIPerf's words. */
  expand(inputs: SearchInputs, concurrencyList: readonly number[] | undefined): SearchSpec;
}

const CONCURRENCY_PATH_LO = 1;
const CONCURRENCY_PATH_HI = 1000;
const MONOTONIC_MAX_ITERATIONS = 20;
const SMOOTH_ISOTONIC_MAX_ITERATIONS = 30;
const GRID_DEFAULT_STEPS = 8;
const RAMP_DEFAULT_THRESHOLD = 0.2;
const PARETO_DEFAULT_CONCURRENCY = [1, 4, 16, 64, 256];
const DEFAULT_ATTAINMENT_FRACTION = 0.95;
/** AIPerf's iteration budget of its Bayesian recipe style (~30) and its initial points (5). */
const BO_MAX_ITERATIONS = 30;
const DEFAULT_INITIAL_POINTS = 5;

function fail(message: string): never {
  throw new ConfigError([message]);
}

/** `--tpot-sla-ms` and `--itl-sla-ms` name the same SLA; both with different values is a conflict. */
function interTokenSla(inputs: SearchInputs): number | undefined {
  const { tpotSlaMs: tpot, itlSlaMs: itl } = inputs;
  if (tpot !== undefined && itl !== undefined && tpot !== itl) {
    fail(
      "--tpot-sla-ms and --itl-sla-ms are aliases for the same inter-token-latency SLA but were set to different " +
        `values (${tpot} vs ${itl}); pass only one.`,
    );
  }
  return tpot ?? itl;
}

function requireStreaming(inputs: SearchInputs, recipe: string, reason: string): void {
  if (!inputs.streaming) {
    fail(
      `recipe '${recipe}' requires --streaming (${reason}); enable streaming on the endpoint or pick a different ` +
        "recipe.",
    );
  }
}

function bounds(inputs: SearchInputs, recipe: string, lo: number, hi: number): [number, number] {
  const min = inputs.concurrencyMin ?? lo;
  const max = inputs.concurrencyMax ?? hi;
  if (min >= max) {
    fail(
      `recipe '${recipe}': --concurrency-min (${min}) must be < --concurrency-max (${max}); inverted bounds collapse ` +
        "the search space.",
    );
  }
  return [min, max];
}

/** `--search-sla` filters, in order. */
function extraFilters(inputs: SearchInputs): SlaFilter[] {
  const problems: string[] = [];
  const filters: SlaFilter[] = [];
  for (const text of inputs.searchSla) {
    try {
      filters.push(parseSlaFilter(text));
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return filters;
}

/** The filters the named SLA flags give (AIPerf's tags, statistics and operators). */
function namedFilters(inputs: SearchInputs): SlaFilter[] {
  const filters: SlaFilter[] = [];
  if (inputs.ttftSlaMs !== undefined) {
    filters.push({ metric_tag: "time_to_first_token", stat: "p95", op: "lt", threshold: inputs.ttftSlaMs });
  }
  const itl = interTokenSla(inputs);
  if (itl !== undefined) filters.push({ metric_tag: "inter_token_latency", stat: "p95", op: "lt", threshold: itl });
  if (inputs.e2eSlaMs !== undefined) {
    filters.push({ metric_tag: "request_latency", stat: "p99", op: "lt", threshold: inputs.e2eSlaMs });
  }
  // request_error_rate is a percentage; the flag is a fraction.
  if (inputs.errorRateSla !== undefined) {
    filters.push({ metric_tag: "request_error_rate", stat: "avg", op: "lt", threshold: inputs.errorRateSla * 100 });
  }
  return filters;
}

function streamingOnly(tag: string): boolean {
  return METRIC_REGISTRY.get(tag)?.flags.streamingOnly === true;
}

/** The style of a boundary recipe: `--search-style`, else AIPerf's default (smooth-isotonic). */
function boundaryProbes(inputs: SearchInputs, recipe: string, lo: number, hi: number): SearchProbes {
  const style = inputs.searchStyle ?? "smooth_isotonic";
  if (style === "bo" || style === "optuna") {
    return {
      kind: "bayesian",
      dims: [{ path: "phases.profiling.concurrency", name: "concurrency", lo, hi, kind: "int" }],
      maxIterations: inputs.searchMaxIterations ?? BO_MAX_ITERATIONS,
      initialPoints: Math.min(DEFAULT_INITIAL_POINTS, (inputs.searchMaxIterations ?? BO_MAX_ITERATIONS) - 1),
      seed: inputs.searchRandomSeed ?? drawSeed(),
      planner: style === "bo" ? "bayesian" : "optuna",
      pooled: false,
    };
  }
  if (style === "grid") {
    return { kind: "grid", concurrencies: logspaceIntSteps(lo, hi, inputs.concurrencySteps ?? GRID_DEFAULT_STEPS) };
  }
  if (style !== "smooth_isotonic" && style !== "monotonic") {
    fail(`recipe '${recipe}': unknown --search-style '${style}'; expected one of smooth_isotonic, monotonic, grid.`);
  }
  const maxIterations = inputs.searchMaxIterations ??
    (style === "monotonic" ? MONOTONIC_MAX_ITERATIONS : SMOOTH_ISOTONIC_MAX_ITERATIONS);
  return { kind: "boundary", style, lo, hi, maxIterations };
}

function boundarySpec(
  inputs: SearchInputs,
  recipe: string,
  filters: SlaFilter[],
  answer: "concurrency" | "objective",
  objective = "output_token_throughput",
): SearchSpec {
  const [lo, hi] = bounds(inputs, recipe, CONCURRENCY_PATH_LO, CONCURRENCY_PATH_HI);
  const probes = boundaryProbes(inputs, recipe, lo, hi);
  return {
    recipe,
    style: probes.kind === "grid"
      ? "grid"
      : probes.kind === "bayesian"
      ? (probes.planner === "bayesian" ? "bo" : "optuna")
      : (probes as { style: SearchStyle }).style,
    filters,
    objective: { metric: objective, stat: "avg" },
    answer,
    probes,
    postProcess: probes.kind === "grid" ? "sla_breach" : undefined,
  };
}

/**
 * `steps` integers spaced evenly on a log scale over [lo, hi], both ends included, rounded half to even (Python's
 * `round`, as AIPerf's grids are), duplicates dropped, ascending.
 */
export function logspaceIntSteps(lo: number, hi: number, steps: number): number[] {
  if (steps < 2) throw new RangeError(`a log-spaced grid needs at least 2 steps (got ${steps}).`);
  if (lo <= 0 || hi <= lo) throw new RangeError(`a log-spaced grid needs 0 < lo < hi (got ${lo}, ${hi}).`);
  const a = Math.log(lo);
  const b = Math.log(hi);
  const values = new Set<number>();
  for (let i = 0; i < steps; i++) values.add(Math.max(roundHalfEven(Math.exp(a + (b - a) * i / (steps - 1))), 1));
  return [...values].sort((x, y) => x - y);
}

function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** `--isl-osl-pairs "128/128,512/256"`: positive integer pairs, no duplicates. */
export function parseIslOslPairs(raw: string): [number, number][] {
  const cleaned = raw.trim();
  if (cleaned === "") fail("--isl-osl-pairs: at least one pair required, got empty string");
  const pairs: [number, number][] = [];
  const seen = new Set<string>();
  for (const chunk of cleaned.split(",")) {
    const token = chunk.trim();
    if (token === "") continue;
    const sides = token.split("/");
    if (sides.length !== 2) fail(`--isl-osl-pairs: '${token}' expected '<isl>/<osl>' (one slash)`);
    const [isl, osl] = sides.map((s) => s.trim());
    if (!/^\d+$/.test(isl) || !/^\d+$/.test(osl) || Number(isl) <= 0 || Number(osl) <= 0) {
      fail(`--isl-osl-pairs: '${token}' both sides must be a positive int`);
    }
    const key = `${Number(isl)}/${Number(osl)}`;
    if (seen.has(key)) fail(`--isl-osl-pairs: duplicate pair '${token}'`);
    seen.add(key);
    pairs.push([Number(isl), Number(osl)]);
  }
  if (pairs.length === 0) fail("--isl-osl-pairs: at least one pair required after parsing");
  return pairs;
}

const MAX_CONCURRENCY_UNDER_SLA: SearchRecipe = {
  name: "max-concurrency-under-sla",
  description: "Find the highest concurrency where all SLA filters pass (--search-style smooth_isotonic, " +
    "monotonic or grid).",
  expand(inputs) {
    const filters = [...namedFilters(inputs), ...extraFilters(inputs)];
    if (filters.length === 0) {
      fail(
        `recipe '${this.name}' requires at least one of --ttft-sla-ms / --tpot-sla-ms / --itl-sla-ms / ` +
          "--e2e-sla-ms / --error-rate-sla / --search-sla; pass at least one on the CLI alongside --search-recipe.",
      );
    }
    if (filters.some((f) => streamingOnly(f.metric_tag))) {
      requireStreaming(inputs, this.name, "SLA filters reference streaming-only metrics (TTFT, ITL/TPOT)");
    }
    return boundarySpec(inputs, this.name, filters, "concurrency");
  },
};

function maxThroughputRecipe(name: string, tag: string, flag: string, label: string): SearchRecipe {
  return {
    name,
    description: `Maximize output_token_throughput at the highest concurrency where p95 ${label} stays under ${flag}.`,
    expand(inputs) {
      const threshold = tag === "time_to_first_token" ? inputs.ttftSlaMs : interTokenSla(inputs);
      if (threshold === undefined) {
        fail(
          tag === "time_to_first_token"
            ? `recipe '${name}' requires --ttft-sla-ms (TTFT SLA threshold in milliseconds); pass it on the CLI ` +
              "alongside --search-recipe."
            : `recipe '${name}' requires --itl-sla-ms (or its alias --tpot-sla-ms); pass one on the CLI alongside ` +
              "--search-recipe.",
        );
      }
      requireStreaming(inputs, name, `${label} is a streaming-only metric`);
      const filters = [
        { metric_tag: tag, stat: "p95" as SlaStat, op: "lt" as const, threshold },
        ...extraFilters(inputs),
      ];
      return boundarySpec(inputs, name, filters, "objective");
    },
  };
}

const MAX_GOODPUT_UNDER_SLO: SearchRecipe = {
  name: "max-goodput-under-slo",
  description: "Maximize goodput at the highest concurrency where at least --slo-attainment-fraction of requests " +
    "meet the TTFT, TPOT and E2E SLOs (DistServe's formulation).",
  expand(inputs) {
    const ttft = inputs.ttftSlaMs;
    const tpot = interTokenSla(inputs);
    const e2e = inputs.e2eSlaMs;
    const missing = ([["--ttft-sla-ms", ttft], ["--tpot-sla-ms", tpot], ["--e2e-sla-ms", e2e]] as const)
      .filter(([, v]) => v === undefined).map(([flag]) => flag);
    if (missing.length > 0) {
      fail(
        `recipe '${this.name}' requires ${missing.join(", ")}; all three (--ttft-sla-ms, --tpot-sla-ms / ` +
          "--itl-sla-ms, --e2e-sla-ms) define what 'good' means per request for the goodput formula. Pass them on " +
          `the CLI alongside --search-recipe ${this.name}.`,
      );
    }
    requireStreaming(inputs, this.name, "TPOT is a streaming-only metric");
    const attainment = inputs.sloAttainmentFraction ?? DEFAULT_ATTAINMENT_FRACTION;
    const filters: SlaFilter[] = [
      { metric_tag: "good_request_fraction", stat: "avg", op: "ge", threshold: attainment },
      ...extraFilters(inputs),
    ];
    return {
      ...boundarySpec(inputs, this.name, filters, "objective", "goodput"),
      slos: [
        { tag: "time_to_first_token", value: ttft! },
        { tag: "inter_token_latency", value: tpot! },
        { tag: "request_latency", value: e2e! },
      ],
    };
  },
};

const CONCURRENCY_RAMP: SearchRecipe = {
  name: "concurrency-ramp",
  description: "Ramp concurrency log-spaced over [1, 1000] and find the first concurrency where p99 request " +
    "latency degrades past baseline × (1 + --degradation-threshold).",
  expand(inputs) {
    const [lo, hi] = bounds(inputs, this.name, CONCURRENCY_PATH_LO, CONCURRENCY_PATH_HI);
    const metricTag = inputs.degradationMetricTag ?? "request_latency";
    if (METRIC_REGISTRY.get(metricTag) === undefined) {
      fail(`--degradation-metric-tag '${metricTag}' is not a metric tag (e.g. request_latency, time_to_first_token).`);
    }
    if (streamingOnly(metricTag)) requireStreaming(inputs, this.name, `${metricTag} is a streaming-only metric`);
    return {
      recipe: this.name,
      style: "grid",
      filters: extraFilters(inputs),
      objective: { metric: "output_token_throughput", stat: "avg" },
      answer: "knee",
      probes: { kind: "grid", concurrencies: logspaceIntSteps(lo, hi, inputs.concurrencySteps ?? GRID_DEFAULT_STEPS) },
      degradation: {
        threshold: inputs.degradationThreshold ?? RAMP_DEFAULT_THRESHOLD,
        metricTag,
        stat: inputs.degradationStat ?? "p99",
      },
      postProcess: "degradation_knee",
    };
  },
};

const PARETO_SWEEP: SearchRecipe = {
  name: "pareto-sweep",
  description: "Sweep paired ISL/OSL shapes (--isl-osl-pairs) across a concurrency list; find the Pareto frontier " +
    "of p95 TTFT against output token throughput.",
  expand(inputs, concurrencyList) {
    requireStreaming(inputs, this.name, "output_token_throughput is a streaming-only metric");
    if (inputs.islOslPairs === undefined || inputs.islOslPairs.trim() === "") {
      fail(`recipe '${this.name}' requires --isl-osl-pairs (e.g. '128/128,256/256').`);
    }
    const pairs = parseIslOslPairs(inputs.islOslPairs);
    const concurrencies = concurrencyList ?? PARETO_DEFAULT_CONCURRENCY;
    if (pairs.length * concurrencies.length < 2) {
      fail(
        `recipe '${this.name}': a Pareto sweep with a single point is meaningless. Pass at least 2 pairs OR at ` +
          "least 2 concurrency values.",
      );
    }
    return {
      recipe: this.name,
      style: "grid",
      filters: extraFilters(inputs),
      objective: { metric: "output_token_throughput", stat: "avg" },
      answer: "pareto",
      probes: {
        kind: "shapes",
        cells: pairs.flatMap(([isl, osl]) => concurrencies.map((concurrency) => ({ isl, osl, concurrency }))),
      },
      postProcess: "pareto_sweep",
    };
  },
};

function logGrid(flag: string, lo: number, hi: number, steps: number): number[] {
  if (hi <= lo) fail(`${flag}-min (${lo}) must be < ${flag}-max (${hi}); use ${flag}-min/${flag}-max with hi > lo.`);
  return logspaceIntSteps(lo, hi, steps);
}

const PREFILL_TTFT_CURVE: SearchRecipe = {
  name: "prefill-ttft-curve",
  description: "Sweep ISL log-spaced (--isl-min/--isl-max/--isl-steps) at concurrency 1; fit TTFT against ISL " +
    "(linear, quadratic when r² < 0.85): sweep_aggregate/prefill_curve.json.",
  expand(inputs) {
    requireStreaming(inputs, this.name, "TTFT is a streaming-only metric");
    const isls = logGrid("--isl", inputs.islMin ?? 256, inputs.islMax ?? 32768, inputs.islSteps ?? 8);
    return {
      recipe: this.name,
      style: "grid",
      filters: extraFilters(inputs),
      objective: { metric: "time_to_first_token", stat: "avg" },
      answer: "curve",
      probes: { kind: "shapes", cells: isls.map((isl) => ({ isl, concurrency: 1 })), naming: ["isl", "concurrency"] },
      postProcess: "ttft_curve_fit",
    };
  },
};

const DECODE_ITL_CURVE: SearchRecipe = {
  name: "decode-itl-curve",
  description: "Sweep concurrency (--concurrency-min/max/steps, default 1–200, 6 steps) × OSL (--osl-min/max/steps, " +
    "default 64–1024, 4 steps); the measured ITL surface: sweep_aggregate/decode_itl_surface.json.",
  expand(inputs) {
    requireStreaming(inputs, this.name, "ITL is a streaming-only metric");
    const [lo, hi] = bounds(inputs, this.name, 1, 200);
    const concurrencies = logspaceIntSteps(lo, hi, inputs.concurrencySteps ?? 6);
    const osls = logGrid("--osl", inputs.oslMin ?? 64, inputs.oslMax ?? 1024, inputs.oslSteps ?? 4);
    return {
      recipe: this.name,
      style: "grid",
      filters: extraFilters(inputs),
      objective: { metric: "inter_token_latency", stat: "avg" },
      answer: "surface",
      probes: {
        kind: "shapes",
        cells: concurrencies.flatMap((concurrency) => osls.map((osl) => ({ osl, concurrency }))),
        naming: ["concurrency", "osl"],
      },
      postProcess: "itl_surface_fit",
    };
  },
};

/** The recipes, AIPerf 0.13's eight. */
export const SEARCH_RECIPES: Registry<SearchRecipe> = new Registry("search recipe", [
  MAX_CONCURRENCY_UNDER_SLA,
  maxThroughputRecipe("max-throughput-ttft-sla", "time_to_first_token", "--ttft-sla-ms", "TTFT"),
  maxThroughputRecipe("max-throughput-itl-sla", "inter_token_latency", "--itl-sla-ms", "ITL"),
  MAX_GOODPUT_UNDER_SLO,
  CONCURRENCY_RAMP,
  PARETO_SWEEP,
  PREFILL_TTFT_CURVE,
  DECODE_ITL_CURVE,
]);

/**
 * The search `inputs` ask for, or undefined without `--search-recipe`.
 * @throws {ConfigError} for an unknown recipe or inputs the recipe refuses.
 */
export function expandSearchRecipe(
  inputs: SearchInputs,
  concurrencyList?: readonly number[],
): SearchSpec | undefined {
  let spec: SearchSpec | undefined;
  if (inputs.searchRecipe === undefined) {
    spec = (inputs.searchSpace ?? []).length > 0 ? expandSearchSpace(inputs, extraFilters(inputs)) : undefined;
  } else {
    const recipe = SEARCH_RECIPES.find(inputs.searchRecipe);
    if (recipe === undefined) fail(`--search-recipe: ${SEARCH_RECIPES.describeUnknown(inputs.searchRecipe)}.`);
    spec = recipe.expand(inputs, concurrencyList);
  }
  return spec === undefined || (inputs.searchSlaTier ?? []).length === 0 ? spec : withTiers(spec, inputs);
}

/**
 * A search with SLO tiers (AIPerf's multi-tier planner): one bracket per tier over the same one-dimensional
 * concurrency search, whatever its style (said in a notice, as AIPerf does).
 */
function withTiers(spec: SearchSpec, inputs: SearchInputs): SearchSpec {
  const tiers = parseSlaTiers(inputs.searchSlaTier ?? []);
  const p = spec.probes;
  const range = p.kind === "boundary"
    ? { lo: p.lo, hi: p.hi, maxIterations: p.maxIterations }
    : p.kind === "bayesian" && p.dims.length === 1 && p.dims[0].name === "concurrency"
    ? { lo: Math.ceil(p.dims[0].lo), hi: Math.floor(p.dims[0].hi), maxIterations: p.maxIterations }
    : undefined;
  if (range === undefined) {
    fail(
      "--search-sla-tier finds a boundary per tier over one integer concurrency dimension: a boundary recipe " +
        "(max-concurrency-under-sla, max-throughput-*-sla, max-goodput-under-slo) or --search-space " +
        "'concurrency:lo,hi:int'.",
    );
  }
  if (tiers.some((t) => t.filters.some((f) => streamingOnly(f.metric_tag))) && !inputs.streaming) {
    fail("--search-sla-tier: a tier filters on a streaming-only metric (TTFT, ITL); add --streaming.");
  }
  const notices = [...(spec.notices ?? [])];
  if (spec.style !== "smooth_isotonic") {
    notices.push(
      `The search algorithm for --search-style ${spec.style} is not used when --search-sla-tier is active; the ` +
        "multi-tier search uses its own bracket and bisection.",
    );
  }
  return { ...spec, tiers, probes: { kind: "tiers", ...range }, answer: "concurrency", notices };
}
