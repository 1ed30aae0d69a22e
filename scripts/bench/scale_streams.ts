/**
 * Scale check: N concurrent streaming connections (default 20,000) from one `infermeter profile` run against
 * `serve-sim` on loopback, with no client errors; reports peak RSS (per 1,000 streams) and memory retained per
 * finished request.
 *
 *   deno run -A scripts/bench/scale_streams.ts [--streams 20000] [--per-server 7000] [--per-process <fd limit − 300>]
 *                                           [--tokens 10] [--ttft 3000] [--itl 2000] [--ramp 10]
 *
 * Every stream is a file descriptor on both sides, so the servers are several processes (`--per-server`
 * streams each), each listening on its own loopback address (127.0.0.2, 127.0.0.3, …) and reached by round-robin
 * over several `--url`s, which spreads the client's ephemeral ports over several destinations. A process holds at
 * most its open-file limit: when the streams exceed what one holds (`--per-process`, by default the hard limit less
 * 300), the client runs `--workers-mode processes` with enough shard processes, and their records are merged
 * exactly in the parent. Proof of concurrency: the servers' own `sim_requests_max_in_flight` gauges, summed. Streams are long and slow (defaults: 10 tokens, TTFT 3 s, ITL 2 s,
 * ~21 s each) and opened over a `--concurrency-ramp-duration` of 10 s, so they all overlap while the servers,
 * which accept connections on their JS thread, are not also saturated by token traffic.
 */
import { V8_FLAGS_ARG } from "../../src/runtime/v8_flags.ts";

const args = new Map<string, string>();
for (let i = 0; i < Deno.args.length; i += 2) args.set(Deno.args[i].replace(/^--/, ""), Deno.args[i + 1]);
const wanted = Number(args.get("streams") ?? 20000);
const perServer = Number(args.get("per-server") ?? 7000);
const tokens = Number(args.get("tokens") ?? 10);
const itl = Number(args.get("itl") ?? 2000);
const ttft = Number(args.get("ttft") ?? 3000);
const ramp = Number(args.get("ramp") ?? 10);
const perProcessArg = args.get("per-process");

const root = new URL("../../", import.meta.url).pathname;
const main = `${root}main.ts`;

function hardFdLimit(): number {
  const limits = Deno.readTextFileSync("/proc/self/limits");
  const m = /Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/.exec(limits);
  return m ? (m[2] === "unlimited" ? Infinity : Number(m[2])) : Infinity;
}

// A shard process keeps ~300 descriptors of its own (stdio, epoll, eventfd, worker channels, log files).
const limit = hardFdLimit();
const perProcess = perProcessArg !== undefined ? Number(perProcessArg) : limit - 300;
const streams = wanted;
const processes = Math.ceil(streams / perProcess);
const servers = Math.ceil(streams / perServer);

interface Sim {
  readonly child: Deno.ChildProcess;
  readonly url: string;
}

async function startSim(index: number): Promise<Sim> {
  // deno-fmt-ignore
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", main, "serve-sim", "--host", `127.0.0.${2 + index}`, "--port", "0", "--ttft", String(ttft),
      "--itl", String(itl)],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`serve-sim did not start: ${text}`);
    text += value;
    const m = /listening on (\S+)/.exec(text);
    if (m) {
      (async () => {
        while (!(await reader.read()).done) { /* drain */ }
      })().catch(() => {});
      return { child, url: m[1] };
    }
  }
}

async function gauge(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, "m").exec(text);
  return m ? Number(m[1]) : NaN;
}

const sims = await Promise.all(Array.from({ length: servers }, (_, i) => startSim(i)));
const dir = await Deno.makeTempDir({ prefix: "infermeter-scale-" });
try {
  console.log(
    `${streams} streams over ${servers} serve-sim processes (TTFT ${ttft} ms, ITL ${itl} ms, ${tokens} tokens ` +
      `each, ramp ${ramp} s); client: ${processes > 1 ? `${processes} shard processes` : "one process"} ` +
      `(open-file hard limit ${limit}, at most ${perProcess} streams per process)`,
  );
  const started = performance.now();
  const profile = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      V8_FLAGS_ARG,
      main,
      "profile",
      "-m",
      "scale",
      ...sims.flatMap((s) => ["--url", s.url]),
      "--streaming",
      "--concurrency",
      String(streams),
      "--request-count",
      String(streams),
      "--synthetic-input-tokens-mean",
      "8",
      "--output-tokens-mean",
      String(tokens),
      "--extra-inputs",
      "ignore_eos:true",
      "--request-timeout-seconds",
      "300",
      "--concurrency-ramp-duration",
      String(ramp),
      "--artifact-dir",
      dir,
      "--ui",
      "none",
      "--workers",
      String(processes),
      "--workers-mode",
      processes > 1 ? "processes" : "threads",
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  const wallSec = (performance.now() - started) / 1000;
  const stderr = new TextDecoder().decode(profile.stderr);
  const summary = JSON.parse(await Deno.readTextFile(`${dir}/profile_export_aiperf.json`));
  const maxInFlight = (await Promise.all(sims.map((s) => gauge(s.url, "sim_requests_max_in_flight"))))
    .reduce((a, b) => a + b, 0);
  const ok = summary.request_count?.avg ?? 0;
  const errors = summary.error_request_count?.avg ?? 0;
  const children: { peak_rss_bytes: number; start_lateness_ms: number | null }[] =
    summary.infermeter?.shard_processes ??
      [];
  const parentRss = summary.infermeter?.peak_rss_bytes ?? 0;
  const totalRss = parentRss + children.reduce((a, c) => a + c.peak_rss_bytes, 0);
  const peakRssMb = totalRss / 1024 / 1024;
  const result = {
    date: new Date().toISOString(),
    streamsRequested: wanted,
    streams,
    fdHardLimit: limit,
    servers,
    serverAddresses: sims.map((s) => s.url),
    clientProcesses: processes,
    successfulRequests: ok,
    failedRequests: errors,
    errorSummary: summary.error_summary,
    serverMaxInFlightSum: maxInFlight,
    clientPeakRssMb: Math.round(peakRssMb),
    clientParentPeakRssMb: Math.round(parentRss / 1024 / 1024),
    shardProcessPeakRssMb: children.map((c) => Math.round(c.peak_rss_bytes / 1024 / 1024)),
    shardStartLatenessMs: children.map((c) => c.start_lateness_ms),
    peakRssMbPer1000Streams: Math.round(peakRssMb / streams * 1000 * 10) / 10,
    retainedBytesPerRequest: summary.infermeter?.retained_bytes_per_request,
    clientCpuPercentOfCore: summary.infermeter?.client_cpu?.percent_of_core,
    ttftP50Ms: summary.time_to_first_token?.p50,
    ttftP99Ms: summary.time_to_first_token?.p99,
    wallSec,
    exitCode: profile.code,
  };
  console.log(JSON.stringify(result, null, 2));
  await Deno.mkdir(`${root}.bench`, { recursive: true });
  await Deno.writeTextFile(`${root}.bench/scale.json`, JSON.stringify(result, null, 2) + "\n");
  const pass = profile.code === 0 && errors === 0 && ok === streams && maxInFlight >= streams &&
    peakRssMb < 2048 * Math.max(1, streams / 20000);
  console.log(
    pass
      ? `PASS: ${streams} concurrent streams, 0 errors, peak RSS ${Math.round(peakRssMb)} MB`
      : `FAIL (exit ${profile.code}):\n${stderr.split("\n").slice(-15).join("\n")}`,
  );
  Deno.exitCode = pass ? 0 : 1;
} finally {
  for (const s of sims) {
    try {
      s.child.kill("SIGTERM");
    } catch { /* gone */ }
    await s.child.status;
  }
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}
