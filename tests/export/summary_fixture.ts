/** Hand-built run summaries for exporter golden tests. */
import { METRIC_REGISTRY } from "../../src/metrics/metric_registry.ts";
import type { MetricResult } from "../../src/metrics/run_summary.ts";
import type { Stats } from "../../src/metrics/stats.ts";

function base(tag: string): Omit<MetricResult, "stats" | "value"> {
  const def = METRIC_REGISTRY.get(tag);
  if (def === undefined) throw new RangeError(`no metric ${tag}`);
  return {
    tag: def.tag,
    header: def.header,
    unit: def.unit,
    ...(def.consoleUnit === undefined ? {} : { consoleUnit: def.consoleUnit }),
    kind: def.kind,
    flags: def.flags,
    displayOrder: def.displayOrder,
    consoleGroup: def.consoleGroup ?? (def.flags.noConsole ? "none" : "llm"),
  };
}

/** A distribution result; unspecified percentiles interpolate nothing — they are set explicitly here. */
export function dist(
  tag: string,
  s: Partial<Stats> & Pick<Stats, "avg" | "min" | "max" | "p50" | "p99">,
): MetricResult {
  const stats: Stats = {
    p1: s.min,
    p5: s.min,
    p10: s.min,
    p25: s.min,
    p75: s.max,
    p90: s.max,
    p95: s.max,
    std: 0,
    count: 1,
    sum: s.avg,
    ...s,
  };
  return { ...base(tag), stats };
}

export function scalar(tag: string, value: number): MetricResult {
  return { ...base(tag), value };
}
