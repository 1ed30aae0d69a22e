/**
 * What every client runner gets (scenario, server, pinning, work directory) and the one place where a client's
 * raw figures become a {@linkcode ClientResult} (CPU per event, peak RSS, the server's CPU in the same window).
 */
import type { ClientName, ClientResult, JsonValue, ResponseShape, Scenario } from "./bench_types.ts";
import type { ChildRun } from "./child_runner.ts";
import type { SimServer } from "./sim_launcher.ts";

export interface ClientContext {
  readonly scenario: Scenario;
  readonly server: SimServer;
  readonly model: string;
  /** The JSON body of one request (wrk sends exactly this; ours and AIPerf build the same shape). */
  readonly body: string;
  readonly response?: ResponseShape;
  readonly durationSec: number;
  readonly warmupRequests: number;
  /** `taskset -c` value for the client, or undefined for no pinning. */
  readonly clientCores?: string;
  /** An empty directory for this client's files. */
  readonly workDir: string;
  readonly repoRoot: string;
  /** Use GNU time for exact whole-run CPU. */
  readonly gnuTime: boolean;
  /**
   * CPU that other processes took on the client's and the server's core between two epoch-ms instants, given
   * the client's own CPU there; undefined when not pinned.
   */
  readonly otherLoad?: (from: number, to: number, clientCpuSec: number) => OtherLoad;
}

/** Percent of one core used by processes outside the bench. */
export interface OtherLoad {
  readonly clientCore?: number;
  readonly serverCore?: number;
}

export interface Measured {
  readonly requestsPerSec: number;
  /** SSE content events/s; undefined when not streaming. */
  readonly eventsPerSec?: number;
  readonly requests: number;
  readonly errors: number;
  /** Epoch-ms window the rates refer to. */
  readonly windowStart: number;
  readonly windowEnd: number;
  /** CPU inside the window, when the client measured it itself (ours); else read from the polled samples. */
  readonly windowCpuSec?: number;
  readonly windowCpuSource?: string;
  readonly message?: string;
  readonly artifactDir?: string;
  readonly extra?: { readonly [k: string]: JsonValue };
}

export function measuredResult(
  ctx: ClientContext,
  client: ClientName,
  argv: readonly string[],
  run: ChildRun,
  m: Measured,
): ClientResult {
  const windowSec = (m.windowEnd - m.windowStart) / 1000;
  const polled = run.monitor.cpuBetween(m.windowStart, m.windowEnd);
  const windowCpuSec = m.windowCpuSec ?? polled;
  const events = m.eventsPerSec === undefined ? undefined : m.eventsPerSec * windowSec;
  const totalCpuSec = run.gnuTime ? run.gnuTime.userSec + run.gnuTime.systemSec : run.usage.cpuSec;
  const other = windowCpuSec === undefined ? undefined : ctx.otherLoad?.(m.windowStart, m.windowEnd, windowCpuSec);
  return {
    client,
    status: "ok",
    message: m.message,
    command: argv,
    requestsPerSec: m.requestsPerSec,
    eventsPerSec: m.eventsPerSec,
    requests: m.requests,
    errors: m.errors,
    windowSec,
    windowCpuSec,
    windowCpuSource: m.windowCpuSec !== undefined ? m.windowCpuSource : "polled /proc process tree",
    cpuUsPerEvent: windowCpuSec !== undefined && events ? 1e6 * windowCpuSec / events : undefined,
    cpuUsPerRequest: windowCpuSec !== undefined && m.requests > 0
      ? 1e6 * windowCpuSec / (m.requestsPerSec * windowSec)
      : undefined,
    totalCpuSec,
    wallSec: (run.endedAt - run.startedAt) / 1000,
    peakRssMb: run.usage.sumHwmKb / 1024,
    peakSampledRssMb: run.usage.peakRssKb / 1024,
    processes: run.usage.processes,
    serverCpuPercent: ctx.server.cpuPercent(m.windowStart, m.windowEnd),
    otherOnClientCorePercent: other?.clientCore,
    otherOnServerCorePercent: other?.serverCore,
    exitCode: run.code,
    artifactDir: m.artifactDir,
    extra: {
      ...(m.extra ?? {}),
      polled_window_cpu_sec: polled ?? null,
      gnu_time: run.gnuTime ? { ...run.gnuTime } : null,
      cpu_samples: run.usage.samples,
      processes: run.usage.perProcess.map((p) => ({ ...p })),
    },
  };
}

/** A failed run: exit code, time-out and the tail of its output in one message. */
export function failedResult(client: ClientName, argv: readonly string[], run: ChildRun, why: string): ClientResult {
  return {
    client,
    status: "failed",
    message: run.timedOut ? `timed out; ${why}` : why,
    command: argv,
    exitCode: run.code,
    wallSec: (run.endedAt - run.startedAt) / 1000,
  };
}

/**
 * The `profile` options both clients get: infermeter takes AIPerf's flags, so ours and AIPerf run the very same
 * command line (each client adds only what is specific to it).
 */
export function profileArgs(ctx: ClientContext, artifactDir: string): string[] {
  const s = ctx.scenario;
  return [
    "profile",
    "-m",
    ctx.model,
    "-u",
    ctx.server.url,
    "--endpoint-type",
    s.endpointType ?? "chat",
    ...(s.streaming ? ["--streaming"] : []),
    "--isl",
    String(s.isl),
    // Types that generate take the output length (exact with ignore_eos); embeddings and rankings have none.
    ...(s.osl > 0 ? ["--osl", String(s.osl), "--extra-inputs", "ignore_eos:true"] : []),
    "--concurrency",
    String(s.concurrency),
    "--benchmark-duration",
    String(ctx.durationSec),
    ...(ctx.warmupRequests > 0 ? ["--warmup-request-count", String(ctx.warmupRequests)] : []),
    "--random-seed",
    "1",
    "--ui",
    "none",
    "--artifact-dir",
    artifactDir,
  ];
}
