/**
 * `--goodput` SLOs (AIPerf §2.4): parse `"request_latency:250 inter_token_latency:10"` into `GoodputSlo[]` and
 * decide per request whether it is "good" — every applicable SLO holds: `value ≥ slo` for metrics where larger
 * is better, else `value ≤ slo`. A request missing a constrained metric is not good. SLO values are in the
 * metric's display unit (ms for latencies, tokens/sec/user for per-user throughput).
 */
import { METRIC_REGISTRY, type MetricRegistry } from "./metric_registry.ts";
import type { MetricDef, RecordMetrics } from "./metric_def.ts";

import type { GoodputSlo } from "../base/goodput_slo.ts";

export type { GoodputSlo };

/** Tags usable in `--goodput`: per-request (record), single-valued, computed for successful requests. */
export function goodputTags(registry: MetricRegistry = METRIC_REGISTRY): readonly string[] {
  return registry.all
    .filter((def) => def.kind === "record" && !def.flags.list && !def.flags.errorOnly)
    .map((def) => def.tag);
}

/**
 * Parses goodput SLOs: `tag:value` pairs separated by whitespace or commas, from one string or several
 * (repeated flags). A later pair for the same tag replaces the earlier one.
 * @throws {SyntaxError} for a pair that is not `tag:value`.
 * @throws {RangeError} for an unknown tag (the message lists the valid ones) or a value that is not a
 * non-negative finite number.
 */
export function parseGoodput(
  input: string | readonly string[],
  registry: MetricRegistry = METRIC_REGISTRY,
): GoodputSlo[] {
  const valid = goodputTags(registry);
  const parts = (typeof input === "string" ? [input] : input).flatMap((s) => s.split(/[\s,]+/)).filter((s) => s);
  const byTag = new Map<string, GoodputSlo>();
  for (const part of parts) {
    const match = /^([A-Za-z0-9_]+)[:=](.+)$/.exec(part);
    if (match === null) {
      throw new SyntaxError(`Invalid goodput SLO "${part}"; write it as tag:value, e.g. request_latency:250.`);
    }
    const [, tag, text] = match;
    if (!valid.includes(tag)) {
      throw new RangeError(`Unknown goodput metric "${tag}"; use one of: ${valid.join(", ")}.`);
    }
    const value = Number(text);
    if (text.trim() === "" || !Number.isFinite(value) || value < 0) {
      throw new RangeError(
        `Invalid goodput value "${text}" for ${tag}; give a non-negative number in its display unit.`,
      );
    }
    byTag.delete(tag);
    byTag.set(tag, { tag, value });
  }
  return [...byTag.values()];
}

/** Decides whether one request's metric values meet every applicable SLO. */
export type GoodputEvaluator = (values: RecordMetrics) => boolean;

export interface ResolvedGoodput {
  /** Undefined when no SLO applies to this run (goodput metrics are then absent). */
  readonly evaluator?: GoodputEvaluator;
  /** The SLOs that are evaluated. */
  readonly applied: readonly GoodputSlo[];
  /** One line per SLO ignored because its metric does not apply to this run. */
  readonly warnings: readonly string[];
}

/**
 * Keeps the SLOs whose metric is among the run's `selected` metrics and builds the evaluator; the others
 * are ignored with a warning (e.g. `inter_token_latency` on a non-streaming run).
 */
export function resolveGoodput(slos: readonly GoodputSlo[], selected: readonly MetricDef[]): ResolvedGoodput {
  const byTag = new Map(selected.map((def) => [def.tag, def] as const));
  const applied: { readonly tag: string; readonly value: number; readonly largerIsBetter: boolean }[] = [];
  const warnings: string[] = [];
  for (const slo of slos) {
    const def = byTag.get(slo.tag);
    if (def === undefined || def.kind !== "record") {
      warnings.push(`Goodput SLO ${slo.tag}:${slo.value} is ignored: the metric does not apply to this run.`);
      continue;
    }
    applied.push({ tag: slo.tag, value: slo.value, largerIsBetter: def.flags.largerIsBetter === true });
  }
  const evaluator: GoodputEvaluator | undefined = applied.length === 0 ? undefined : (values) => {
    for (const slo of applied) {
      const v = values[slo.tag];
      if (typeof v !== "number") return false;
      if (slo.largerIsBetter ? !(v >= slo.value) : !(v <= slo.value)) return false;
    }
    return true;
  };
  return { evaluator, applied: applied.map(({ tag, value }) => ({ tag, value })), warnings };
}
