/**
 * `infermeter calibrate`: proves how much error the client adds to the numbers it exports.
 *
 * Method: a reference server (calibration_server.ts, its own process) streams tokens on a known schedule
 * and records the instant each request arrived and the instant it wrote each token. For every stream level we
 * run the real product — `infermeter profile`, its own process, exports included — against it, then rebuild the
 * client's arrival time of every token from the exported JSONL (`request_start_ns` + TTFT + the inter-chunk
 * latencies) and compare with the server's times of the same request (joined on `x_request_id`):
 *
 * - event error = client arrival − server write, per token: kernel loopback, event-loop delay, parsing, clock
 *   reading. TTFT error is that of the first token, request-latency error that of the last, and ITL error the
 *   difference of the client's and the server's mean gaps;
 * - send lag = server arrival − client `request_start_ns`: the client's work between its start stamp and its
 *   `write()`, plus kernel loopback and the reference server's own wake-up (it answers other streams on the
 *   same thread), so it bounds the start stamp's error from above; the floor client's send lag, taken right
 *   before a bare `write()`, shows the server's share.
 *
 * Both processes read epoch time as `performance.timeOrigin + performance.now()`; `GET /clock` pings measure
 * the offset between the two clocks, which is reported (and subtracted when it exceeds its uncertainty).
 */
import { joinPath as join } from "../runtime/file_path.ts";
import { clientCommand, type SelfCommand, selfCommand } from "../runtime/self_command.ts";
import { allowedCores, formatCpuList } from "../runtime/thread_affinity.ts";
import { holdCpuDmaLatency } from "../runtime/cpu_dma_latency.ts";
import { computeStats, type Stats } from "../metrics/stats.ts";
import type { CalibrationLog } from "./calibration_server.ts";
import type { FloorLog } from "./floor_client.ts";
import { type CalibrationReport, type LevelReport, scheduledEventsPerSecond } from "./level_report.ts";

export interface CalibrateOptions {
  readonly streams: number[];
  readonly ttft: number;
  readonly itl: number;
  readonly tokens: number;
  readonly duration: number;
  readonly workers?: number;
  /** Reference server processes (one per core); default: a quarter of the cores, at least one. */
  readonly serverProcesses?: number;
  /** µs to hold `/dev/cpu_dma_latency` at through every level (floor client and profile runs alike). */
  readonly cpuDmaLatency?: number;
  readonly json: boolean;
  /** Run one warmup request per stream before each level (steady state, as benchmarks are run). */
  readonly warmup: boolean;
  readonly serve: boolean;
  readonly port: number;
  readonly floorClient?: string;
  /** Extra `profile` options given after `--`. */
  readonly profileArgs: readonly string[];
}

/** Runs every level and returns the report; `log` receives progress lines (stderr). */
export async function calibrate(opts: CalibrateOptions, log: (line: string) => void): Promise<CalibrationReport> {
  const layout = await coreLayout(opts.serverProcesses);
  const pin = layout.pinned;
  // Machine-wide, so one hold here covers the reference server, the floor client and every profile run.
  const wake = opts.cpuDmaLatency === undefined ? undefined : holdCpuDmaLatency(opts.cpuDmaLatency);
  if (wake !== undefined && !wake.held) {
    log(`note: --cpu-dma-latency ${wake.requestedUs} has no effect: ${wake.reason}.`);
  }
  // One reference server process per server core, each on its own port: the client round-robins over them, and
  // every process's send log is read from it (one port shared through SO_REUSEPORT would hide which one logged).
  const servers = layout.serverCores.map((core) =>
    commandOn(pin ? String(core) : undefined, selfCommand, [
      "calibrate",
      "--serve",
      "--ttft",
      String(opts.ttft),
      "--itl",
      String(opts.itl),
    ], { stdout: "piped", stderr: "inherit" }).spawn()
  );
  const dir = await Deno.makeTempDir({ prefix: "infermeter-calibrate-" });
  try {
    const urls = await Promise.all(servers.map((s) => readLine(s.stdout, /calibration-server listening on (\S+)/)));
    const clock = await measureClockOffset(urls[0]);
    log(
      `reference server ${urls.join(" ")} (TTFT ${opts.ttft} ms, ITL ${opts.itl} ms, ${opts.tokens} tokens); clock ` +
        `offset ${(clock.offset * 1000).toFixed(1)} µs ± ${(clock.uncertainty * 1000).toFixed(1)} µs; ${layout.text}${
          wake?.held ? `; CPU wake-up latency held at ${wake.requestedUs} µs` : ""
        }`,
    );
    if (!pin) {
      log(
        "note: the reference server and the clients could not be pinned to separate cores (this process may use " +
          "fewer than 2, or taskset is missing); they share cores, so the errors include the server's own delays.",
      );
    }
    const levels: LevelReport[] = [];
    for (const streams of opts.streams) {
      log(`level: ${streams} concurrent streams for ${opts.duration} s …`);
      levels.push(await runLevel(opts, urls, streams, join(dir, `streams${streams}`), clock, layout));
    }
    return {
      ttftMs: opts.ttft,
      itlMs: opts.itl,
      tokensPerRequest: opts.tokens,
      durationSec: opts.duration,
      clockOffsetMs: clock.offset,
      clockUncertaintyMs: clock.uncertainty,
      pinned: pin,
      layout: layout.text,
      cpuDmaLatencyUs: wake?.held ? wake.requestedUs : null,
      warmup: opts.warmup,
      levels,
    };
  } finally {
    for (const server of servers) {
      try {
        server.kill("SIGTERM");
      } catch {
        // already gone
      }
      await server.status;
    }
    wake?.release();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

async function runLevel(
  opts: CalibrateOptions,
  urls: readonly string[],
  streams: number,
  dir: string,
  clock: { offset: number; uncertainty: number },
  layout: CoreLayout,
): Promise<LevelReport> {
  const profileArgs = [
    "profile",
    "-m",
    "calibration",
    ...urls.flatMap((u) => ["--url", u]),
    "--streaming",
    "--concurrency",
    String(streams),
    "--benchmark-duration",
    String(opts.duration),
    "--benchmark-grace-period",
    "60",
    "--synthetic-input-tokens-mean",
    "8",
    "--output-tokens-mean",
    String(opts.tokens),
    "--extra-inputs",
    "ignore_eos:true",
    "--artifact-dir",
    dir,
    "--ui",
    "none",
    "--log-level",
    "WARNING",
    "--workers",
    opts.workers === undefined ? "auto" : String(opts.workers),
    ...(opts.warmup ? ["--warmup-request-count", String(streams)] : []),
    ...opts.profileArgs,
  ];
  const floor = await floorErrors(opts, urls, streams, clock, layout);
  const child = await commandOn(layout.pinned ? layout.clientCores : undefined, clientCommand, profileArgs, {
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!child.success) {
    throw new Error(`the profile run failed (exit ${child.code}): ${new TextDecoder().decode(child.stderr).trim()}`);
  }
  const log = await sentLog(urls);
  const summary = JSON.parse(await Deno.readTextFile(join(dir, "profile_export_aiperf.json")));
  const jsonl = await Deno.readTextFile(join(dir, "profile_export.jsonl"));

  const samples = new ErrorSamples(clockCorrection(clock));
  let requests = 0;
  let errors = 0;
  for (const line of jsonl.split("\n")) {
    if (!line) continue;
    const rec = JSON.parse(line);
    if (rec.error) {
      errors++;
      continue;
    }
    // request_start_ns exceeds 2^53: read its digits, not the float JSON.parse made of it.
    const startNs = /"request_start_ns":(\d+)/.exec(line)?.[1];
    const writes = log.writes[rec.metadata.x_request_id];
    const arrived = log.received[rec.metadata.x_request_id];
    const t0 = rec.metrics.time_to_first_token?.value;
    const gaps: number[] = rec.metrics.inter_chunk_latency?.value ?? [];
    if (!startNs || !writes || arrived === undefined || t0 === undefined || writes.length !== gaps.length + 1) {
      continue;
    }
    requests++;
    const big = BigInt(startNs);
    const startMs = Number(big / 1_000_000n) + Number(big % 1_000_000n) / 1e6;
    let arrival = startMs + t0;
    const arrivals = [arrival];
    for (const g of gaps) arrivals.push(arrival += g);
    samples.add(startMs, arrivals, arrived, writes);
  }
  const durationSec = summary.benchmark_duration?.avg ?? opts.duration;
  return {
    streams,
    requests,
    events: samples.events.length,
    eventsPerSecond: samples.events.length / durationSec,
    ttftErrorMs: computeStats(samples.ttft),
    itlErrorMs: computeStats(samples.itl),
    requestLatencyErrorMs: computeStats(samples.latency),
    sendLagMs: computeStats(samples.send),
    eventErrorMs: computeStats(samples.events),
    floorSendLagMs: floor?.send,
    floorEventErrorMs: floor?.event,
    floorTtftErrorMs: floor?.ttft,
    floorLatencyErrorMs: floor?.latency,
    clientCpuPercentOfCore: summary.infermeter?.client_cpu?.percent_of_core,
    engineLayout: summary.infermeter?.engine_layout?.description,
    clientCpuOverThreshold: summary.infermeter?.client_cpu?.over_threshold,
    scheduledEventsPerSecond: scheduledEventsPerSecond(opts, streams),
    errors: summary.error_request_count?.avg ?? errors,
  };
}

/**
 * Send lag, per-event, first- and last-token error of the bare floor client (floor_client.ts) over a short
 * run at `streams`.
 */
async function floorErrors(
  opts: CalibrateOptions,
  urls: readonly string[],
  streams: number,
  clock: { offset: number; uncertainty: number },
  layout: CoreLayout,
): Promise<FloorErrors | undefined> {
  const args = [
    "calibrate",
    "--floor-client",
    urls.join(","),
    "--streams",
    String(streams),
    "--duration",
    String(Math.min(3, opts.duration)),
    "--tokens",
    String(opts.tokens),
  ];
  // The bare client is one thread: it runs on the first client core, as one engine shard would.
  const child = await commandOn(layout.pinned ? String(layout.clientCoreList[0]) : undefined, clientCommand, args, {
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!child.success) return undefined;
  const floorLog: FloorLog = JSON.parse(new TextDecoder().decode(child.stdout));
  const log = await sentLog(urls);
  const samples = new ErrorSamples(clockCorrection(clock));
  for (const [id, { sent, arrivals }] of Object.entries(floorLog)) {
    const writes = log.writes[id];
    const arrived = log.received[id];
    if (!writes || arrived === undefined || writes.length !== arrivals.length) continue; // unfinished at the end
    samples.add(sent, arrivals, arrived, writes);
  }
  return {
    send: computeStats(samples.send),
    event: computeStats(samples.events),
    ttft: computeStats(samples.ttft),
    latency: computeStats(samples.latency),
  };
}

/** The clock offset to subtract: only when it is larger than what the ping could resolve. */
function clockCorrection(clock: { offset: number; uncertainty: number }): number {
  return Math.abs(clock.offset) > clock.uncertainty ? clock.offset : 0;
}

/** Client-added errors, response by response, for our client and the floor client alike (ms). */
class ErrorSamples {
  readonly events: number[] = [];
  readonly ttft: number[] = [];
  readonly latency: number[] = [];
  readonly itl: number[] = [];
  readonly send: number[] = [];
  readonly #correction: number;

  /** `correction`: the reference server's clock minus ours, subtracted from its times. */
  constructor(correction: number) {
    this.#correction = correction;
  }

  /** One complete response: the client's start stamp and token arrivals, the server's arrival and token writes. */
  add(clientStart: number, arrivals: readonly number[], serverArrival: number, writes: readonly number[]): void {
    const c = this.#correction;
    const n = arrivals.length - 1;
    if (n < 0) return;
    for (let k = 0; k <= n; k++) this.events.push(arrivals[k] - (writes[k] - c));
    this.send.push(serverArrival - c - clientStart);
    this.ttft.push(arrivals[0] - (writes[0] - c));
    this.latency.push(arrivals[n] - (writes[n] - c));
    if (n > 0) this.itl.push((arrivals[n] - arrivals[0]) / n - (writes[n] - writes[0]) / n);
  }
}

interface FloorErrors {
  readonly send: Stats | undefined;
  readonly event: Stats | undefined;
  readonly ttft: Stats | undefined;
  readonly latency: Stats | undefined;
}

/** NTP-style: the ping with the shortest round trip bounds the offset best. */
async function measureClockOffset(url: string): Promise<{ offset: number; uncertainty: number }> {
  let best = { offset: 0, uncertainty: Infinity };
  for (let i = 0; i < 50; i++) {
    const t0 = performance.timeOrigin + performance.now();
    const { t } = await (await fetch(`${url}/clock`)).json();
    const t1 = performance.timeOrigin + performance.now();
    const half = (t1 - t0) / 2;
    if (half < best.uncertainty) best = { offset: t - (t0 + half), uncertainty: half };
  }
  return best;
}

/** Every reference server process's send log, merged (request ids are unique across them). */
async function sentLog(urls: readonly string[]): Promise<CalibrationLog> {
  const logs: CalibrationLog[] = await Promise.all(
    urls.map(async (u) => (await fetch(`${u}/calibration/sent`)).json()),
  );
  return {
    received: Object.assign({}, ...logs.map((l) => l.received)),
    writes: Object.assign({}, ...logs.map((l) => l.writes)),
  };
}

/** Where the reference server processes and the clients run. */
interface CoreLayout {
  readonly pinned: boolean;
  /** One reference server process per entry (its CPU when pinned). */
  readonly serverCores: readonly number[];
  /** taskset list of the client's CPUs (profile runs: the engine's shards pin themselves inside it). */
  readonly clientCores: string;
  readonly clientCoreList: readonly number[];
  readonly text: string;
}

/**
 * Splits this process's CPU set: the reference server gets one process per core on the first quarter of the
 * cores (at least one; `--reference-processes` overrides), the client every other core — a core set, so the profile
 * run's `--workers auto` shards each get a core of their own. With fewer than 2 cores, or no taskset, nothing is
 * pinned and one server process runs.
 */
async function coreLayout(serverProcesses: number | undefined): Promise<CoreLayout> {
  const set = allowedCores() ?? Array.from({ length: navigator.hardwareConcurrency }, (_, i) => i);
  if (set.length < 2 || !(await canPin(set[0]))) {
    const n = serverProcesses ?? 1;
    return {
      pinned: false,
      serverCores: Array.from({ length: n }, (_, i) => i),
      clientCores: formatCpuList(set),
      clientCoreList: set,
      text: `${n} reference server process${n > 1 ? "es" : ""}, nothing pinned`,
    };
  }
  const n = Math.min(serverProcesses ?? Math.max(1, Math.floor(set.length / 4)), set.length - 1);
  // The server takes the last cores (CPU 0 often carries the machine's interrupts and housekeeping: client side).
  const serverCores = set.slice(set.length - n);
  const client = set.slice(0, set.length - n);
  return {
    pinned: true,
    serverCores,
    clientCores: formatCpuList(client),
    clientCoreList: client,
    text: `reference server: ${n} process${n > 1 ? "es" : ""} on CPU ${formatCpuList(serverCores)} (one each); ` +
      `client on CPU ${formatCpuList(client)}`,
  };
}

/** Another infermeter process running `args`, pinned to `cores` (a taskset list) when given. */
function commandOn(
  cores: string | undefined,
  self: SelfCommand,
  args: readonly string[],
  io: Pick<Deno.CommandOptions, "stdout" | "stderr">,
): Deno.Command {
  const argv = [...self.args, ...args];
  return cores === undefined
    ? new Deno.Command(self.execPath, { args: argv, ...io })
    : new Deno.Command("taskset", { args: ["-c", cores, self.execPath, ...argv], ...io });
}

async function canPin(core: number): Promise<boolean> {
  try {
    const probe = new Deno.Command("taskset", { args: ["-c", String(core), "true"], stdout: "null", stderr: "null" });
    return (await probe.output()).success;
  } catch {
    return false;
  }
}

async function readLine(stream: ReadableStream<Uint8Array>, re: RegExp): Promise<string> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the reference server did not start (output: ${text.trim() || "nothing"})`);
    text += value;
    const m = re.exec(text);
    if (m) {
      (async () => {
        while (!(await reader.read()).done) { /* drain */ }
      })().catch(() => {});
      return m[1];
    }
  }
}
