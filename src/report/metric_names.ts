/**
 * How people name metrics on a command line (`ttft`, `itl`, `latency`) and on screen (`Time to First Token (ms)`):
 * short names come from each metric's declared `shortHeader`, so no list of aliases is kept by hand. Tags not
 * declared here (AIPerf-only metrics in AIPerf's exports) are named by their tag.
 */
import { METRIC_REGISTRY } from "../metrics/metric_registry.ts";
import type { MetricDef } from "../metrics/metric_def.ts";

/** Extra spellings people use that no `shortHeader` gives. */
const EXTRA_ALIASES: Readonly<Record<string, string>> = {
  latency: "request_latency",
  e2e: "request_latency",
  throughput: "output_token_throughput",
  tps: "output_token_throughput",
  rps: "request_throughput",
};

function aliasMap(): ReadonlyMap<string, string> {
  const map = new Map<string, string>();
  for (const def of METRIC_REGISTRY.all) {
    const short = def.shortHeader?.toLowerCase().replace(/[\s/]+/g, "_");
    if (short !== undefined && /^[a-z_%]+$/.test(short) && !map.has(short)) map.set(short, def.tag);
  }
  for (const [alias, tag] of Object.entries(EXTRA_ALIASES)) map.set(alias, tag);
  return map;
}

let aliases: ReadonlyMap<string, string> | undefined;

/** The tag a user's name stands for: a tag as is, or an alias (`ttft` → `time_to_first_token`), case ignored. */
export function resolveMetricName(name: string): string {
  const lower = name.toLowerCase();
  if (METRIC_REGISTRY.get(lower) !== undefined) return lower;
  aliases ??= aliasMap();
  return aliases.get(lower) ?? lower;
}

/** Every short name a metric can be given by, for help and hints. */
export function metricAliases(): readonly string[] {
  aliases ??= aliasMap();
  return [...aliases.keys()];
}

/** The declared metric of a tag, if infermeter has one. */
export function metricDef(tag: string): MetricDef | undefined {
  return METRIC_REGISTRY.get(tag);
}

/** `Time to First Token (ms)` for a declared metric, the tag and unit otherwise. */
export function metricLabel(tag: string, unit: string): string {
  const def = METRIC_REGISTRY.get(tag);
  return def === undefined ? `${tag} (${unit})` : `${def.header} (${def.consoleUnit ?? def.unit})`;
}

/** `TTFT` for a declared metric with a short header, else its header or tag. */
export function metricShortLabel(tag: string): string {
  const def = METRIC_REGISTRY.get(tag);
  return def?.shortHeader ?? def?.header ?? tag;
}

/** Whether a metric belongs in side-by-side tables: declared console metrics, in their display order. */
export function isConsoleMetric(tag: string): boolean {
  const def = METRIC_REGISTRY.get(tag);
  return def !== undefined && !def.flags.noConsole && !def.flags.jsonOnly;
}

/** The console display order of a tag (unknown tags last). */
export function displayOrder(tag: string): number {
  return METRIC_REGISTRY.get(tag)?.displayOrder ?? Number.MAX_SAFE_INTEGER;
}
