/**
 * `--workers` scaling: `infermeter profile --workers N` for several N, interleaved, against
 * servers that cost next to nothing, so what grows with N is what the client's engine threads can do.
 *
 *   deno run -A scripts/bench/workers_scaling.ts [--workers 1,2] [--rounds 3] [--duration 5]
 *                                                [--concurrency 32 × largest N, ≥ 64] [--events 512]
 *                                                [--out .bench/workers.json]
 *
 * The servers are raw_sse_server.ts processes that answer every request with one precomputed 512-event SSE stream
 * in a single write (a few % of a core at millions of events/s), pinned to cores of their own at the end of the
 * allowed list (one per 4 engine threads of the largest N); the client gets the other cores. Where that leaves
 * fewer free cores than the largest N (a 2-core machine), the client runs on every core, sharing the servers', and
 * the report says so. Per run: output tokens/s and client CPU from the export; the servers' CPU over the same
 * profiling window, polled from /proc (sim_launcher.ts). Speed-up = median tokens/s ÷ that of the smallest N; efficiency = tokens per
 * client CPU-second ÷ that of the smallest N (1.0: sharding costs nothing per core used).
 */
import { V8_FLAGS_ARG } from "../../src/runtime/v8_flags.ts";
import { installExitHandlers, killAllChildren, pinned, quickCommand } from "./child_runner.ts";
import { allowedCores } from "./machine_info.ts";
import { initClockTicks } from "./proc_tree.ts";
import { readExportSummary, summaryMeasures } from "./export_summary.ts";
import { type SimServer, startServerProcess } from "./sim_launcher.ts";
import { scalingLayout, type ScalingRun, summarizeScaling } from "./workers_scaling_plan.ts";

const root = new URL("../../", import.meta.url).pathname;

interface Options {
  readonly workers: readonly number[];
  readonly rounds: number;
  readonly duration: number;
  readonly concurrency: number;
  readonly events: number;
  readonly out: string;
}

function parseOptions(args: readonly string[]): Options {
  const get = (name: string): string | undefined => {
    const at = args.indexOf(`--${name}`);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const positive = (name: string, fallback: number): number => {
    const text = get(name);
    const n = text === undefined ? fallback : Number(text);
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`--${name} ${text}: needs a whole number ≥ 1.`);
    return n;
  };
  const workers = (get("workers") ?? "1,2").split(",").map((w) => {
    const n = Number(w);
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`--workers ${w}: needs whole numbers ≥ 1.`);
    return n;
  });
  return {
    workers,
    rounds: positive("rounds", 3),
    duration: positive("duration", 5),
    // 32 streams per engine thread of the largest run (at least 64): enough to keep each shard busy, while the
    // smallest run's one thread is not drowned in connections (at 256 on 2 cores, efficiency fell to 0.90).
    concurrency: positive("concurrency", Math.max(64, 32 * Math.max(...workers))),
    events: positive("events", 512),
    out: get("out") ?? `${root}.bench/workers.json`,
  };
}

function startServer(core: number, events: number): Promise<SimServer> {
  // deno-fmt-ignore
  return startServerProcess({
    label: "raw_sse_server",
    argv: [
      Deno.execPath(), "run", "-A", `${root}scripts/bench/raw_sse_server.ts`, "--port", "0",
      "--events", String(events), "--framing", "length", "--chunking", "single",
    ],
    cores: String(core),
    listening: /listening (\d+)/,
  });
}

async function main(): Promise<number> {
  const opts = parseOptions(Deno.args);
  installExitHandlers();
  const allowed = allowedCores();
  if (allowed.length < 2) {
    console.error("workers_scaling: needs at least 2 cores (servers and client on separate ones).");
    return 2;
  }
  const layout = scalingLayout(allowed, Math.max(...opts.workers));
  await initClockTicks();
  const servers: SimServer[] = [];
  const runs: (ScalingRun & { round: number })[] = [];
  const dir = await Deno.makeTempDir({ prefix: "infermeter-workers-" });
  try {
    for (const core of layout.serverCores) servers.push(await startServer(core, opts.events));
    console.log(
      `workers_scaling: ${layout.note}; ${opts.events}-event streams, concurrency ${opts.concurrency}, ` +
        `${opts.duration} s per run, --workers ${opts.workers.join(", ")} × ${opts.rounds} rounds, interleaved`,
    );
    for (let round = 1; round <= opts.rounds; round++) {
      for (const workers of opts.workers) {
        const artifacts = `${dir}/r${round}w${workers}`;
        const started = Date.now();
        // deno-fmt-ignore
        const r = await quickCommand(pinned([
          Deno.execPath(), "run", "-A", V8_FLAGS_ARG, `${root}main.ts`, "profile", "-m", "scaling",
          ...servers.flatMap((s) => ["--url", s.url]), "--endpoint-type", "chat", "--streaming",
          "--isl", "32", "--osl", String(opts.events), "--concurrency", String(opts.concurrency),
          "--benchmark-duration", String(opts.duration), "--warmup-request-count", String(opts.concurrency),
          "--random-seed", "1", "--ui", "none", "--workers", String(workers), "--artifact-dir", artifacts,
        ], layout.clientCores.join(",")), 120_000 + opts.duration * 1000);
        if (r.code !== 0) throw new Error(`profile --workers ${workers} exited ${r.code}:\n${r.stderr}`);
        const summary = await readExportSummary(`${artifacts}/profile_export_aiperf.json`);
        const m = summaryMeasures(summary, started, true);
        const cpu = summary.clientCpu;
        const run = {
          round,
          workers,
          tokensPerSec: m.eventsPerSec!,
          clientCpuPercent: cpu ? (cpu.userMs + cpu.systemMs) / cpu.wallMs * 100 : NaN,
          serverCpuPercent: servers.reduce((sum, x) => sum + (x.cpuPercent(m.windowStart, m.windowEnd) ?? NaN), 0),
          requests: m.requests,
          errors: m.errors,
        };
        runs.push(run);
        console.log(
          `  round ${round}, --workers ${workers}: ${Math.round(run.tokensPerSec).toLocaleString("en-US")} ` +
            `tokens/s, client CPU ${run.clientCpuPercent.toFixed(0)}%, servers ${run.serverCpuPercent.toFixed(0)}%, ` +
            `${run.requests} requests, ${run.errors} errors`,
        );
      }
    }
  } finally {
    for (const s of servers) await s.stop();
    await killAllChildren();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
  const rows = summarizeScaling(runs);
  console.log("\nworkers  tokens/s (median)  speed-up  client CPU  servers CPU  efficiency  errors");
  for (const r of rows) {
    console.log(
      `${String(r.workers).padStart(7)}  ${Math.round(r.tokensPerSec).toLocaleString("en-US").padStart(17)}  ` +
        `${(r.speedup.toFixed(2) + "×").padStart(8)}  ${(r.clientCpuPercent.toFixed(0) + "%").padStart(10)}  ` +
        `${(r.serverCpuPercent.toFixed(0) + "%").padStart(11)}  ${r.efficiency.toFixed(2).padStart(10)}  ` +
        `${String(r.errors).padStart(6)}`,
    );
  }
  console.log(
    "speed-up: median tokens/s ÷ the first row's; efficiency: tokens per client CPU-second ÷ the first row's." +
      (layout.shared ? `\nnote: ${layout.note}.` : ""),
  );
  await Deno.mkdir(new URL(".", `file://${opts.out}`).pathname, { recursive: true });
  await Deno.writeTextFile(
    opts.out,
    JSON.stringify(
      { date: new Date().toISOString(), options: opts, cores: allowed, layout, runs, summary: rows },
      null,
      2,
    ) + "\n",
  );
  console.log(`Results: ${opts.out}`);
  return rows.some((r) => r.errors > 0) ? 1 : 0;
}

if (import.meta.main) {
  try {
    Deno.exit(await main());
  } catch (err) {
    console.error(`workers_scaling: ${(err as Error).message}`);
    Deno.exit(1);
  }
}
