/**
 * Reads the figures the bench needs from a `profile_export_aiperf.json` — the same format from
 * `infermeter profile` and from AIPerf (`reference/aiperf.md`): `request_throughput`, `total_osl`,
 * `benchmark_duration`, `request_count`, `error_request_count`, `start_time` / `end_time`, and infermeter's own
 * `infermeter.client_cpu` block.
 */

export interface ExportSummary {
  readonly requestsPerSec: number;
  readonly durationSec: number;
  readonly requests: number;
  readonly errors: number;
  /** Output tokens over the whole run (= SSE content events with one token per event). */
  readonly totalOsl: number;
  /** The profiling window in epoch ms (from start_time / end_time), when present. */
  readonly windowStart?: number;
  readonly windowEnd?: number;
  /** infermeter only: CPU of the profiling phase as measured in-process. */
  readonly clientCpu?: { readonly userMs: number; readonly systemMs: number; readonly wallMs: number };
  readonly version?: string;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function metricAvg(json: Obj, tag: string): number | undefined {
  const m = json[tag];
  return isObj(m) && typeof m.avg === "number" ? m.avg : undefined;
}

/** Local ISO time without zone (both tools write `datetime.now().isoformat()` style) or any Date-parsable text. */
function epochMs(v: unknown): number | undefined {
  if (typeof v !== "string") return undefined;
  // JS Date reads at most milliseconds reliably: cut microseconds.
  const ms = Date.parse(v.replace(/(\.\d{3})\d+/, "$1"));
  return Number.isFinite(ms) ? ms : undefined;
}

export async function readExportSummary(path: string): Promise<ExportSummary> {
  let json: unknown;
  try {
    json = JSON.parse(await Deno.readTextFile(path));
  } catch (err) {
    throw new Error(`cannot read ${path}: ${(err as Error).message}`);
  }
  if (!isObj(json)) throw new Error(`${path} is not a JSON object.`);
  const rps = metricAvg(json, "request_throughput");
  const duration = metricAvg(json, "benchmark_duration");
  if (rps === undefined || duration === undefined) {
    throw new Error(`${path} has no request_throughput / benchmark_duration (did every request fail?).`);
  }
  const requests = metricAvg(json, "request_count") ?? rps * duration;
  const errors = metricAvg(json, "error_request_count") ?? 0;
  let clientCpu: ExportSummary["clientCpu"];
  const block = json.infermeter;
  if (isObj(block) && isObj(block.client_cpu)) {
    const c = block.client_cpu;
    if (typeof c.user_ms === "number" && typeof c.system_ms === "number" && typeof c.wall_ms === "number") {
      clientCpu = { userMs: c.user_ms, systemMs: c.system_ms, wallMs: c.wall_ms };
    }
  }
  const version = typeof json.infermeter_version === "string"
    ? json.infermeter_version
    : typeof json.aiperf_version === "string"
    ? json.aiperf_version
    : undefined;
  return {
    requestsPerSec: rps,
    durationSec: duration,
    requests,
    errors,
    totalOsl: metricAvg(json, "total_osl") ?? metricAvg(json, "total_output_tokens") ?? 0,
    windowStart: epochMs(json.start_time),
    windowEnd: epochMs(json.end_time),
    clientCpu,
    version,
  };
}

/** The figures every client reads the same way from its export; the window falls back to the run's start. */
export function summaryMeasures(summary: ExportSummary, runStartedAt: number, streaming: boolean) {
  const windowStart = summary.windowStart ?? runStartedAt;
  return {
    requestsPerSec: summary.requestsPerSec,
    eventsPerSec: streaming ? summary.totalOsl / summary.durationSec : undefined,
    requests: summary.requests,
    errors: summary.errors,
    windowStart,
    windowEnd: summary.windowEnd ?? windowStart + summary.durationSec * 1000,
  };
}
