/**
 * `--search-space path:lo,hi[:int|real]` (repeatable) with `--search-metric`, `--search-stat`, `--search-direction`
 * and `--search-max-iterations`: AIPerf 0.13's adaptive search over the configuration, checked with its words and
 * expanded into a {@link SearchSpec} before anything is sent.
 *
 * Paths are AIPerf's (`phases.profiling.concurrency`, `datasets.main.prompts.isl`) or its bare aliases
 * (`concurrency`, `rate`, …); each maps to the `profile` option a probe sets ({@link SEARCH_DIMENSIONS}). Planners:
 * `bayesian` (the default) and `optuna` run infermeter's Gaussian-process search (`run/search/bayes_planner.ts`);
 * Optuna's sampler names map onto it (`gp`, `botorch`: the same model; `tpe`: the same model, with a notice), as
 * do its single-objective acquisitions (`logei`, `qlogei`, `qnei`, `qlognei`: log expected improvement); the
 * multi-objective ones are refused. `monotonic_sla` and `smooth_isotonic` run the boundary searches of the recipes
 * over one integer `concurrency` dimension, bounded by the --search-sla filters.
 */
import { METRIC_REGISTRY } from "../metrics/metric_registry.ts";
import { ConfigError } from "./config_error.ts";
import type { SlaFilter } from "./sla_filter.ts";
import { drawSeed, type SearchDimension, type SearchInputs, type SearchSpec } from "./search_spec.ts";

interface DimensionEntry {
  /** The probe value's name (AIPerf's last path segment). */
  readonly name: string;
  /** The `profile` option's configuration key (an `OptionKey`; typed as text so this file stays below the table). */
  readonly key: string;
  /** The option takes whole numbers only: `:int` is required. */
  readonly intOnly?: boolean;
  /** The lower bound must be above 0 (a rate, a duration, a count). */
  readonly positive?: boolean;
}

/** AIPerf's search-space paths infermeter can set, by path. */
export const SEARCH_DIMENSIONS: Readonly<Record<string, DimensionEntry>> = {
  "phases.profiling.concurrency": { name: "concurrency", key: "concurrency", intOnly: true, positive: true },
  "phases.profiling.prefill_concurrency": {
    name: "prefill_concurrency",
    key: "prefillConcurrency",
    intOnly: true,
    positive: true,
  },
  "phases.profiling.rate": { name: "rate", key: "requestRate", positive: true },
  "phases.profiling.requests": { name: "requests", key: "requestCount", intOnly: true, positive: true },
  "phases.profiling.duration": { name: "duration", key: "benchmarkDuration", positive: true },
  "phases.profiling.users": { name: "users", key: "numUsers", intOnly: true, positive: true },
  "phases.profiling.smoothness": { name: "smoothness", key: "arrivalSmoothness", positive: true },
  "phases.profiling.grace_period": { name: "grace_period", key: "benchmarkGracePeriod" },
  "phases.profiling.concurrency_ramp": { name: "concurrency_ramp", key: "concurrencyRampDuration", positive: true },
  "phases.profiling.prefill_ramp": { name: "prefill_ramp", key: "prefillConcurrencyRampDuration", positive: true },
  "phases.profiling.rate_ramp": { name: "rate_ramp", key: "requestRateRampDuration", positive: true },
  "datasets.main.prompts.isl": { name: "isl", key: "syntheticInputTokensMean", intOnly: true, positive: true },
  "datasets.main.prompts.osl": { name: "osl", key: "outputTokensMean", intOnly: true, positive: true },
};

/** The option each probe value sets, by the value's name (the recipes' `concurrency`, `isl`, `osl` included). */
export const PROBE_OPTION_KEYS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.values(SEARCH_DIMENSIONS).map((d) => [d.name, d.key]),
);

function fail(problems: string | string[]): never {
  throw new ConfigError(Array.isArray(problems) ? problems : [problems]);
}

/** A bare name (`concurrency`, `rate`) as AIPerf resolves it; `isl`/`osl` too. */
function resolvePath(path: string): string {
  if (path.includes(".")) return path;
  if (path === "isl" || path === "osl") return `datasets.main.prompts.${path}`;
  return `phases.profiling.${path}`;
}

/** Parses one `--search-space` value. @throws {ConfigError} in AIPerf's words. */
export function parseSearchDimension(raw: string): SearchDimension {
  const form = "expected 'path:lo,hi[:kind]', e.g. 'phases.profiling.concurrency:1,1000:int'";
  if (!raw.includes(":") || !raw.includes(",")) fail(`--search-space '${raw}': ${form}.`);
  const parts = raw.split(":");
  if (parts.length > 3) fail(`--search-space '${raw}': ${form}, got ${parts.length} parts.`);
  const [rawPath, bounds, kind = "real"] = parts;
  if (kind !== "int" && kind !== "real") fail(`--search-space '${raw}': kind must be 'int' or 'real', got '${kind}'.`);
  if (!bounds.includes(",")) fail(`--search-space '${raw}': ${form}, missing ',' in bounds.`);
  const [loText, hiText] = bounds.split(",", 2);
  const lo = Number(loText);
  const hi = Number(hiText);
  if (loText.trim() === "" || hiText.trim() === "" || !Number.isFinite(lo) || !Number.isFinite(hi)) {
    fail(`--search-space '${raw}': could not parse the bounds '${bounds}' as numbers.`);
  }
  if (hi <= lo) fail(`--search-space '${raw}': hi (${hi}) must be > lo (${lo}).`);
  const path = resolvePath(rawPath.trim());
  const entry = SEARCH_DIMENSIONS[path];
  if (entry === undefined) {
    fail(
      `--search-space '${raw}': infermeter cannot set '${path}'; searchable paths: ${
        Object.keys(SEARCH_DIMENSIONS).join(", ")
      } (or the bare names: ${Object.values(SEARCH_DIMENSIONS).map((d) => d.name).join(", ")}).`,
    );
  }
  if (entry.intOnly && kind !== "int") {
    fail(
      `--search-space '${entry.name}' must use ':int' kind (e.g. '${entry.name}:${lo},${hi}:int'): it is a whole number.`,
    );
  }
  if (entry.positive && !(lo > 0)) fail(`--search-space '${entry.name}' lower bound must be > 0 (got ${lo}).`);
  if (kind === "int" && Math.ceil(lo) > Math.floor(hi)) {
    fail(`--search-space '${raw}': no whole number in [${lo}, ${hi}].`);
  }
  return { path, name: entry.name, lo, hi, kind };
}

const MULTI_OBJECTIVE_ACQUISITIONS = new Set(["qehvi", "qnehvi", "qlognehvi"]);

/**
 * The search `--search-space` asks for, with `filters` (the --search-sla ones) as its constraints.
 * @throws {ConfigError} naming every problem in AIPerf's words.
 */
export function expandSearchSpace(inputs: SearchInputs, filters: readonly SlaFilter[]): SearchSpec {
  const problems: string[] = [];
  for (
    const [value, flag] of [
      [inputs.searchMetric, "--search-metric"],
      [inputs.searchDirection, "--search-direction"],
      [inputs.searchMaxIterations, "--search-max-iterations"],
    ] as const
  ) {
    if (value === undefined) problems.push(`--search-space requires ${flag} (companion flag missing).`);
  }
  if (problems.length > 0) fail(problems);
  const dims: SearchDimension[] = [];
  for (const raw of inputs.searchSpace ?? []) {
    try {
      dims.push(parseSearchDimension(raw));
    } catch (err) {
      if (err instanceof ConfigError) problems.push(...err.problems);
      else throw err;
    }
  }
  const names = dims.map((d) => d.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) problems.push(`--search-space names '${twice}' twice; give each dimension once.`);
  const metric = inputs.searchMetric!;
  if (METRIC_REGISTRY.get(metric) === undefined) {
    problems.push(`--search-metric '${metric}' is not a metric tag (e.g. output_token_throughput, request_latency).`);
  }
  if (METRIC_REGISTRY.get(metric)?.flags.streamingOnly === true && !inputs.streaming) {
    problems.push(`--search-metric ${metric} is measured only with --streaming; add --streaming.`);
  }
  const stat = inputs.searchStat ?? "avg";
  const maxIterations = inputs.searchMaxIterations!;
  const initialPoints = inputs.searchInitialPoints ?? 5;
  const planner = inputs.searchPlanner ?? "bayesian";
  if (planner === "bayesian" || planner === "optuna") {
    if (initialPoints >= maxIterations) {
      problems.push(
        `--search-initial-points (${initialPoints}) must be < --search-max-iterations (${maxIterations}) for the ` +
          `${planner} planner.`,
      );
    }
  }
  if (inputs.searchPercentilePooling === "pooled" && stat === "avg") {
    problems.push(
      "--search-percentile-pooling pooled requires --search-stat to be a percentile (p50/p90/p95/p99); pooling " +
        "means is a no-op. Either switch --search-stat to a percentile or drop --search-percentile-pooling.",
    );
  }
  const acquisition = inputs.optunaAcquisition;
  if (acquisition !== undefined && inputs.optunaSampler !== undefined && inputs.optunaSampler !== "botorch") {
    problems.push(
      `--optuna-acquisition '${acquisition}' requires --optuna-sampler botorch; got --optuna-sampler ` +
        `'${inputs.optunaSampler}'. Acquisition overrides are only consulted on the BoTorch path.`,
    );
  }
  if (acquisition !== undefined && MULTI_OBJECTIVE_ACQUISITIONS.has(acquisition)) {
    problems.push(
      `--optuna-acquisition '${acquisition}' is a multi-objective acquisition, but the search has one objective ` +
        "(--search-metric); use logei, qlogei, qnei or qlognei.",
    );
  }
  if (inputs.convergenceMetric !== undefined) {
    problems.push(
      "--search-* (Bayesian Optimization) is mutually exclusive with --convergence-metric (trial-level adaptive " +
        "early-stop). The two operate at different levels (outer-loop vs. inner-trial) and their composition is " +
        "undefined. Drop one of them.",
    );
  }
  const notices: string[] = [];
  if (planner === "optuna" && inputs.optunaSampler === "tpe") {
    notices.push(
      "--optuna-sampler tpe: infermeter has no Tree-Parzen estimator; the search uses its Gaussian process " +
        "(Optuna's gp/botorch samplers) instead.",
    );
  }
  if (planner !== "optuna") {
    for (
      const [value, flag] of [
        [inputs.optunaSampler, "--optuna-sampler"],
        [inputs.optunaAcquisition, "--optuna-acquisition"],
        [inputs.optunaTerminator, "--optuna-terminator"],
      ] as const
    ) {
      if (value !== undefined) {
        notices.push(`${flag} is read with --search-planner optuna only; it has no effect here.`);
      }
    }
  }
  if (planner === "monotonic_sla" || planner === "smooth_isotonic") {
    if (dims.length !== 1 || dims[0].name !== "concurrency") {
      problems.push(
        `--search-planner ${planner} searches one integer 'concurrency' dimension for the SLA boundary; ` +
          `got ${dims.map((d) => d.path).join(", ") || "none"}.`,
      );
    }
    if (filters.length === 0) {
      problems.push(`--search-planner ${planner} finds where the --search-sla filters break; give at least one.`);
    }
  }
  if (problems.length > 0) fail(problems);
  const direction = inputs.searchDirection as "maximize" | "minimize";
  const objective = { metric, stat, direction };
  if (planner === "monotonic_sla" || planner === "smooth_isotonic") {
    const d = dims[0];
    return {
      recipe: "search-space",
      style: planner === "monotonic_sla" ? "monotonic" : "smooth_isotonic",
      filters,
      objective,
      answer: "concurrency",
      probes: {
        kind: "boundary",
        style: planner === "monotonic_sla" ? "monotonic" : "smooth_isotonic",
        lo: Math.ceil(d.lo),
        hi: Math.floor(d.hi),
        maxIterations,
      },
      notices,
    };
  }
  const terminator = planner === "optuna" && inputs.optunaTerminator !== undefined && inputs.optunaTerminator !== "none"
    ? inputs.optunaTerminator as "regret" | "emmr"
    : undefined;
  return {
    recipe: "search-space",
    style: planner === "optuna" ? "optuna" : "bo",
    filters,
    objective,
    answer: "best",
    probes: {
      kind: "bayesian",
      dims,
      maxIterations,
      initialPoints,
      seed: inputs.searchRandomSeed ?? drawSeed(),
      planner: planner as "bayesian" | "optuna",
      terminator,
      pooled: inputs.searchPercentilePooling === "pooled",
    },
    notices,
  };
}
