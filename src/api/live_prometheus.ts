/**
 * `/metrics`: the live state as Prometheus text, every name under `infermeter_`. AIPerf's naming is followed with
 * our prefix: a metric's running mean is the gauge `infermeter_<tag>_avg_<unit>`, its running sum
 * `infermeter_<tag>_sum_<unit>`, a single value `infermeter_<tag>_<unit>`; request progress per phase is
 * `infermeter_requests_completed_total{phase}` and `infermeter_request_errors_total{phase}`; `infermeter_info`
 * carries the run's identity as labels (value 1).
 */
import { PrometheusWriter } from "../telemetry/prometheus_writer.ts";
import type { ApiIdentity, ApiLiveMetric, ApiPhase } from "./api_provider.ts";

const UNIT_REPLACE: readonly [string, string][] = [["%", "percent"], ["tokens/sec", "tps"], ["/", "_per_"]];

/** A Prometheus-safe name piece: lower case, `[a-z0-9_]`, no leading digit. */
export function sanitizeName(name: string): string {
  const s = name.toLowerCase().replace(/[^a-z0-9_]/g, "_").replace(/__+/g, "_").replace(/_$/, "");
  return /^\d/.test(s) ? `_${s}` : s;
}

function unitSuffix(unit: string): string {
  let u = unit;
  for (const [from, to] of UNIT_REPLACE) u = u.replaceAll(from, to);
  const s = sanitizeName(u);
  return s === "" ? "" : `_${s}`;
}

export function renderLivePrometheus(
  identity: ApiIdentity,
  phases: readonly ApiPhase[],
  metrics: readonly ApiLiveMetric[],
): string {
  const w = new PrometheusWriter();
  const info: Record<string, string> = {
    benchmark_id: identity.benchmarkId,
    model: identity.model,
    endpoint_type: identity.endpointType,
    streaming: String(identity.streaming),
    version: identity.version,
  };
  if (identity.concurrency !== undefined) info.concurrency = String(identity.concurrency);
  if (identity.requestRate !== undefined) info.request_rate = String(identity.requestRate);
  w.gauge("infermeter_info", "infermeter benchmark information", [{ labels: info, value: 1 }]);
  if (phases.length > 0) {
    w.counter(
      "infermeter_requests_completed_total",
      "Requests finished (success or error), per phase",
      phases.map((p) => ({ labels: { phase: p.name }, value: p.completed })),
    );
    w.counter(
      "infermeter_request_errors_total",
      "Requests that failed, per phase",
      phases.map((p) => ({ labels: { phase: p.name }, value: p.errors })),
    );
  }
  for (const m of metrics) {
    const base = `infermeter_${sanitizeName(m.tag)}`;
    const unit = unitSuffix(m.unit);
    if (m.value !== undefined) w.gauge(`${base}${unit}`, `${m.header} (in ${m.unit})`, m.value);
    if (m.avg !== undefined) w.gauge(`${base}_avg${unit}`, `${m.header} average (in ${m.unit})`, m.avg);
    if (m.sum !== undefined) w.gauge(`${base}_sum${unit}`, `${m.header} sum (in ${m.unit})`, m.sum);
  }
  return w.text();
}
