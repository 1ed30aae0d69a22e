/**
 * The metric registry: checks the dependency graph once at startup (no duplicate or unknown tags, no cycles,
 * no record metric depending on a run-level one) and selects the metrics that apply to a run, in
 * topological order so every metric is computed after the metrics it reads.
 */
import { METRIC_DEFS } from "./metric_defs.ts";
import type { MetricDef, MetricSelection } from "./metric_def.ts";

export interface MetricRegistry {
  /** Every declared metric, in topological order (ties keep declaration order). */
  readonly all: readonly MetricDef[];
  /** The metric with this tag, or undefined. */
  get(tag: string): MetricDef | undefined;
  /**
   * The metrics that apply to a run, in topological order. A metric is dropped when one of its flags does
   * not match the run (e.g. `streamingOnly` on a non-streaming run) or when a metric it `requires` was
   * dropped; `reads` never drop a metric.
   */
  selectMetrics(selection: MetricSelection): readonly MetricDef[];
}

const KIND_RANK = { record: 0, aggregate: 1, derived: 2 } as const;

/** Dependencies of a metric: required and read tags. */
function dependencies(def: MetricDef): readonly string[] {
  return def.reads === undefined ? def.requires : [...def.requires, ...def.reads];
}

/**
 * Validates `defs` and returns them in topological order.
 * @throws {RangeError} on a duplicate tag, an unknown dependency, a dependency of a later kind, or a cycle.
 */
export function sortMetricGraph(defs: readonly MetricDef[]): readonly MetricDef[] {
  const byTag = new Map<string, MetricDef>();
  for (const def of defs) {
    if (byTag.has(def.tag)) {
      throw new RangeError(`Metric tag "${def.tag}" is declared twice; give each metric a unique tag.`);
    }
    byTag.set(def.tag, def);
  }
  for (const def of defs) {
    for (const dep of dependencies(def)) {
      const target = byTag.get(dep);
      if (target === undefined) {
        throw new RangeError(`Metric "${def.tag}" depends on unknown tag "${dep}"; declare it or fix the tag.`);
      }
      if (KIND_RANK[target.kind] > KIND_RANK[def.kind] || (def.kind === "aggregate" && target.kind === "aggregate")) {
        throw new RangeError(
          `Metric "${def.tag}" (${def.kind}) cannot depend on "${dep}" (${target.kind}); ` +
            "record metrics read record metrics, aggregates read record metrics, derived metrics read anything.",
        );
      }
    }
  }
  // Kahn's algorithm; scanning in declaration order keeps the output stable and readable.
  const emitted = new Set<string>();
  const order: MetricDef[] = [];
  let remaining = [...defs];
  while (remaining.length > 0) {
    const next = remaining.filter((def) => dependencies(def).every((dep) => emitted.has(dep)));
    if (next.length === 0) {
      const cycle = remaining.map((def) => def.tag).join(", ");
      throw new RangeError(`Metric dependency cycle among: ${cycle}; remove one of the dependencies.`);
    }
    for (const def of next) {
      emitted.add(def.tag);
      order.push(def);
    }
    remaining = remaining.filter((def) => !emitted.has(def.tag));
  }
  return order;
}

/** Whether a metric's flags allow it in a run with these capabilities. */
export function metricApplies(def: MetricDef, s: MetricSelection): boolean {
  const f = def.flags;
  return !(
    (f.streamingOnly && !s.streaming) ||
    (f.producesTokensOnly && !s.producesTokens) ||
    (f.tokenizesInputOnly && !s.tokenizesInput) ||
    (f.supportsReasoningOnly && !s.supportsReasoning) ||
    (f.producesVideoOnly && s.producesVideos !== true) ||
    (f.goodputOnly && !s.goodput) ||
    (f.multiTurnOnly && !s.multiTurn) ||
    (f.usageDiffOnly && s.serverTokenCounts === true) ||
    (f.supportsAudioOnly && s.supportsAudio !== true) ||
    (f.disableOnAccuracy && s.accuracy === true)
  );
}

/**
 * Builds a registry over `defs`, validating the dependency graph.
 * @throws {RangeError} when the graph is invalid (see {@linkcode sortMetricGraph}).
 */
export function createMetricRegistry(defs: readonly MetricDef[]): MetricRegistry {
  const all = sortMetricGraph(defs);
  const byTag = new Map(all.map((def) => [def.tag, def] as const));
  return {
    all,
    get: (tag) => byTag.get(tag),
    selectMetrics(selection) {
      const selected = new Set<string>();
      const out: MetricDef[] = [];
      for (const def of all) {
        if (!metricApplies(def, selection)) continue;
        if (!def.requires.every((dep) => selected.has(dep))) continue;
        selected.add(def.tag);
        out.push(def);
      }
      return out;
    },
  };
}

/** The registry of every infermeter metric; building it at import checks the graph at startup. */
export const METRIC_REGISTRY: MetricRegistry = createMetricRegistry(METRIC_DEFS);
