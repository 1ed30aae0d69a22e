/**
 * A run as each peer tool would report it: every selected peer's definitions applied to the run's records, beside
 * infermeter's own values from the same records. `peer_metrics.json` is this object as written.
 *
 * Schema (`schema_version` 1):
 * `{"schema_version":1,"producer":"infermeter","records":{"path","requests","successful","failed","warmup_left_out"},
 *   "infermeter":{<baseline key>: value…},"infermeter_units":{…},
 *   "peers":[{"name","tool","defined_in":[{repository,file,function}],
 *             "values":[{key,label,value,unit,console}],
 *             "explanations":[{metric,peer_key,peer_value,peer_definition,infermeter_key,infermeter_value,why}],
 *             "notes":[…]}]}`
 */
import { BASELINE_UNITS, type InfermeterBaseline, infermeterBaseline } from "./infermeter_baseline.ts";
import type { PeerDefinition, PeerReport } from "./peer_definition.ts";
import type { PeerRecordSet } from "./peer_records.ts";

/** An explanation with both values resolved, ready to render. */
export interface ResolvedExplanation {
  readonly metric: string;
  readonly peerKey: string;
  readonly peerLabel: string;
  readonly peerValue: number | null;
  readonly peerUnit: string;
  readonly peerDefinition: string;
  readonly infermeterKey: keyof InfermeterBaseline;
  readonly infermeterValue: number | null;
  readonly infermeterUnit: string;
  readonly why: string;
}

export interface PeerMetricsResult {
  readonly recordsPath: string;
  readonly requests: number;
  readonly successful: number;
  readonly warmupLeftOut: number;
  readonly infermeter: InfermeterBaseline;
  readonly peers: readonly (PeerReport & { readonly resolved: readonly ResolvedExplanation[] })[];
}

/** Applies each peer's definitions to the records. Pure. */
export function computePeerMetrics(set: PeerRecordSet, peers: readonly PeerDefinition[]): PeerMetricsResult {
  const baseline = infermeterBaseline(set.records);
  return {
    recordsPath: set.path,
    requests: set.records.length,
    successful: set.records.filter((r) => r.ok).length,
    warmupLeftOut: set.warmupLines,
    infermeter: baseline,
    peers: peers.map((peer) => {
      const report: PeerReport = {
        name: peer.name,
        tool: peer.tool,
        definedIn: peer.definedIn,
        ...peer.compute(set.records),
      };
      const resolved = report.explanations.map((e): ResolvedExplanation => {
        const value = report.values.find((x) => x.key === e.peerKey);
        if (value === undefined) {
          throw new RangeError(`peer ${peer.name}: explanation names unknown value ${e.peerKey}`);
        }
        return {
          metric: e.metric,
          peerKey: e.peerKey,
          peerLabel: value.label,
          peerValue: value.value,
          peerUnit: value.unit,
          peerDefinition: e.peerDefinition,
          infermeterKey: e.infermeterKey,
          infermeterValue: baseline[e.infermeterKey],
          infermeterUnit: BASELINE_UNITS[e.infermeterKey],
          why: e.why,
        };
      });
      return { ...report, resolved };
    }),
  };
}

/** The `peer_metrics.json` object. */
export function peerMetricsJson(result: PeerMetricsResult): Record<string, unknown> {
  return {
    schema_version: 1,
    producer: "infermeter",
    records: {
      path: result.recordsPath,
      requests: result.requests,
      successful: result.successful,
      failed: result.requests - result.successful,
      warmup_left_out: result.warmupLeftOut,
    },
    infermeter: result.infermeter,
    infermeter_units: BASELINE_UNITS,
    peers: result.peers.map((p) => ({
      name: p.name,
      tool: p.tool,
      defined_in: p.definedIn,
      values: p.values.map((x) => ({
        key: x.key,
        label: x.label,
        value: x.value,
        unit: x.unit,
        console: x.console ?? true,
      })),
      explanations: p.resolved.map((e) => ({
        metric: e.metric,
        peer_key: e.peerKey,
        peer_value: e.peerValue,
        peer_unit: e.peerUnit,
        peer_definition: e.peerDefinition,
        infermeter_key: e.infermeterKey,
        infermeter_value: e.infermeterValue,
        infermeter_unit: e.infermeterUnit,
        why: e.why,
      })),
      notes: p.notes,
    })),
  };
}

/** A value as the console shows it: up to 2 decimals for large numbers, 4 significant digits for small ones. */
export function formatPeerValue(value: number | null): string {
  if (value === null) return "n/a";
  if (Number.isInteger(value)) return String(value);
  const abs = Math.abs(value);
  if (abs >= 100) return value.toFixed(2);
  if (abs >= 1) return value.toFixed(3);
  return value.toPrecision(4);
}

/**
 * "This run as each tool would report it": one block per peer with its console labels and values, then for each
 * compared metric the peer's value beside infermeter's.
 */
export function peerConsoleTable(result: PeerMetricsResult): string {
  const lines: string[] = [];
  lines.push(
    `This run as each tool would report it (${result.successful} of ${result.requests} requests successful; ` +
      `same records, each tool's definitions)`,
  );
  for (const p of result.peers) {
    const shown = p.values.filter((x) => x.console ?? true);
    const width = Math.max(...shown.map((x) => x.label.length), 10);
    lines.push("");
    lines.push(`── ${p.tool} (${p.name}) ${"─".repeat(Math.max(0, 60 - p.tool.length - p.name.length))}`);
    for (const x of shown) lines.push(`  ${x.label.padEnd(width)}  ${formatPeerValue(x.value)}`);
    lines.push("  compared with infermeter:");
    for (const e of p.resolved) {
      lines.push(
        `    ${e.metric.padEnd(18)} ${p.name} ${formatPeerValue(e.peerValue)} ${e.peerUnit}  vs  ` +
          `${e.infermeterKey} ${formatPeerValue(e.infermeterValue)} ${e.infermeterUnit}`,
      );
    }
  }
  lines.push("");
  lines.push("Why they differ: peer_metrics.json (explanations) and report.html.");
  return lines.join("\n");
}
