/**
 * `deno task bench`: infermeter's full product path against the references, in one invocation, against one
 * `serve-sim --fast` instance.
 *
 *   deno run -A scripts/bench/run_bench.ts [--quick] [--duration 5] [--scenarios sse-c64,...|all]
 *       [--clients ours,wrk,aiperf] [--keep] [--no-pin] [--no-install] [--no-calibrate] [--no-extras]
 *       [--aiperf-venv DIR] [--out path]
 *
 * Per scenario it runs, one after the other: ours (`infermeter profile` as a subprocess, real exports), wrk (POSTs
 * the same body, no SSE parsing: the ceiling) and AIPerf (`pip install aiperf==0.13.0` into .bench/aiperf-venv; skipped
 * with a message when that fails). For each it reports requests/s, SSE events/s, client CPU per event (user +
 * system of the client's whole process tree inside its measured window), peak RSS (sum of each process's
 * VmHWM) and serve-sim's CPU in the same window; then the verdict against the targets. Server, clients and this
 * harness are pinned to separate cores when the machine has two or more. Loopback only.
 * Results (machine, commands, raw numbers) go to .bench/results.json.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ClientName, ClientResult, JsonValue, ResponseShape, Scenario, ScenarioResult } from "./bench_types.ts";
import { type BenchOptions, parseBenchOptions, USAGE } from "./bench_options.ts";
import { pickScenarios, requestBody } from "./bench_scenarios.ts";
import { delay, hasGnuTime, installExitHandlers, interruptedBy, killAllChildren, pinned } from "./child_runner.ts";
import type { ClientContext, OtherLoad } from "./client_context.ts";
import { CoreMonitor } from "./core_monitor.ts";
import { TreeMonitor } from "./tree_monitor.ts";
import { runOurs } from "./client_ours.ts";
import { runWrk } from "./client_wrk.ts";
import { runAiperf } from "./client_aiperf.ts";
import { hasProcFs, initClockTicks } from "./proc_tree.ts";
import { type SimServer, startSimServer } from "./sim_launcher.ts";
import { type AiperfTool, setupAiperf, setupWrk, type Tool, type WrkTool } from "./tool_setup.ts";
import { type CoreLayout, coreLayout, machineInfo, pinSelf } from "./machine_info.ts";
import { sampleResponse } from "./response_shape.ts";
import { renderScenarioTable, renderVerdict, verdict, type VerdictLine } from "./bench_report.ts";
import { asCalibrationReport, calibrationVerdict } from "./calibration_verdict.ts";
import { renderReport } from "../../src/calibrate/render_report.ts";
import { runCalibrate } from "./calibrate_step.ts";
import { costVerdict, type Extras } from "./target_verdict.ts";
import type { LongAnswerResults } from "./long_answer_bench.ts";
import { type SoakMemory, soakMemoryOf } from "./soak_rss.ts";
import { buildBundle } from "../release/build_bundle.ts";

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const BENCH_DIR = join(REPO_ROOT, ".bench");
const MODEL = "sim-model";

function log(text: string): void {
  console.error(`bench: ${text}`);
}

function fmtRate(n: number | undefined): string {
  return n === undefined ? "-" : Math.round(n).toLocaleString("en-US");
}

interface Tools {
  readonly wrk?: Tool<WrkTool>;
  readonly aiperf?: Tool<AiperfTool>;
}

async function setupTools(options: BenchOptions): Promise<Tools> {
  const [wrk, aiperf] = await Promise.all([
    options.clients.includes("wrk") ? setupWrk(options.install) : undefined,
    options.clients.includes("aiperf") ? setupAiperf(BENCH_DIR, options.install, options.aiperfVenv) : undefined,
  ]);
  if (wrk && !wrk.ok) log(`wrk: ${wrk.reason}`);
  if (aiperf && !aiperf.ok) log(`aiperf: ${aiperf.reason}`);
  return { wrk, aiperf };
}

function skipped(client: ClientName, reason: string): ClientResult {
  return { client, status: "skipped", message: reason };
}

async function runClient(client: ClientName, ctx: ClientContext, tools: Tools): Promise<ClientResult> {
  await Deno.mkdir(ctx.workDir, { recursive: true });
  try {
    switch (client) {
      case "ours":
        return await runOurs(ctx);
      case "wrk":
        if (!tools.wrk) return skipped(client, "not selected");
        if ((ctx.scenario.endpointType ?? "chat") !== "chat") return skipped(client, "wrk posts the chat body only");
        return tools.wrk.ok ? await runWrk(ctx, tools.wrk.value) : skipped(client, tools.wrk.reason);
      case "aiperf":
        if (!tools.aiperf) return skipped(client, "not selected");
        return tools.aiperf.ok ? await runAiperf(ctx, tools.aiperf.value) : skipped(client, tools.aiperf.reason);
    }
  } catch (err) {
    return { client, status: "failed", message: (err as Error).message };
  }
}

type OtherLoadFn = (from: number, to: number, clientCpuSec: number) => OtherLoad;

/**
 * Other processes' share of the client core (its busy time minus the client's CPU) and of the server core (minus
 * serve-sim and, when it sits there, this harness).
 */
function otherLoadProbe(
  cores: CoreMonitor,
  server: SimServer,
  harness: TreeMonitor,
  layout: { client?: string; server?: string; harness?: string },
): OtherLoadFn | undefined {
  if (layout.client === undefined || layout.server === undefined) return undefined;
  const clientCore = Number(layout.client);
  const serverCore = Number(layout.server);
  const harnessOnServer = layout.harness === layout.server;
  return (from, to, clientCpuSec) => {
    const sec = (to - from) / 1000;
    if (sec <= 0) return {};
    const c = cores.busyBetween(clientCore, from, to);
    const s = cores.busyBetween(serverCore, from, to);
    const sim = server.monitor.cpuBetween(from, to);
    const own = harnessOnServer ? harness.cpuBetween(from, to) ?? 0 : 0;
    return {
      clientCore: c === undefined ? undefined : Math.max(0, 100 * (c - clientCpuSec) / sec),
      serverCore: s === undefined || sim === undefined ? undefined : Math.max(0, 100 * (s - sim - own) / sec),
    };
  };
}

async function runScenario(
  scenario: Scenario,
  server: SimServer,
  options: BenchOptions,
  tools: Tools,
  workRoot: string,
  clientCores: string | undefined,
  otherLoad: OtherLoadFn | undefined,
): Promise<ScenarioResult> {
  const body = requestBody(scenario, MODEL);
  let response: ResponseShape | undefined;
  if ((scenario.endpointType ?? "chat") === "chat") {
    try {
      response = await sampleResponse(server.url, body, scenario.streaming);
    } catch (err) {
      log(`${scenario.id}: sample request failed: ${(err as Error).message}`);
    }
  }
  const clients: ClientResult[] = [];
  for (const client of options.clients) {
    if (interruptedBy() !== undefined) break;
    const ctx: ClientContext = {
      scenario,
      server,
      model: MODEL,
      body,
      response,
      durationSec: options.durationSec,
      warmupRequests: options.warmupPerUser * scenario.concurrency,
      clientCores,
      workDir: join(workRoot, scenario.id, client),
      repoRoot: REPO_ROOT,
      gnuTime: hasGnuTime(),
      otherLoad,
    };
    const t0 = performance.now();
    const r = await runClient(client, ctx, tools);
    const took = ((performance.now() - t0) / 1000).toFixed(1);
    log(
      r.status === "ok"
        ? `${scenario.id} ${client}: ${fmtRate(r.requestsPerSec)} req/s, ${fmtRate(r.eventsPerSec)} events/s, ` +
          `server CPU ${r.serverCpuPercent?.toFixed(0) ?? "-"}% (${took} s)`
        : `${scenario.id} ${client}: ${r.status}: ${r.message ?? ""}`,
    );
    clients.push(r);
    // Let the server close the last connections before the next client starts.
    await delay(300);
  }
  return { scenario, body, response, clients };
}

async function main(args: readonly string[]): Promise<number> {
  // Timing accuracy at many streams only (accuracy_bench.ts): a separate, longer measurement.
  if (args.includes("--accuracy")) {
    const { runAccuracyBench } = await import("./accuracy_bench.ts");
    return await runAccuracyBench(args);
  }
  let options: BenchOptions;
  let scenarios: Scenario[];
  try {
    options = parseBenchOptions(args, REPO_ROOT);
    scenarios = pickScenarios(options.scenarios);
  } catch (err) {
    console.error(`error: ${(err as Error).message}`);
    return 2;
  }
  if (options.help) {
    console.log(USAGE);
    return 0;
  }
  if (!hasProcFs()) {
    console.error("error: the bench reads CPU and memory from /proc; run it on Linux.");
    return 2;
  }
  installExitHandlers();
  const startedAt = new Date();
  await initClockTicks();
  const layout = await coreLayout(options.pin);
  const machine = await machineInfo(layout);
  if (layout.harness !== undefined) await pinSelf(layout.harness);
  log(layout.note);
  const tools = await setupTools(options);

  const workRoot = await Deno.makeTempDir({ prefix: "infermeter-bench-" });
  let server: SimServer | undefined;
  const results: ScenarioResult[] = [];
  let calibrate: { [k: string]: JsonValue } | undefined;
  let calibrateNote = "skipped (--no-calibrate)";
  const cores = new CoreMonitor().start();
  const harness = new TreeMonitor(Deno.pid, { rootOnly: true }).start();
  try {
    server = await startSimServer({ repoRoot: REPO_ROOT, cores: layout.server });
    const otherLoad = otherLoadProbe(cores, server, harness, layout);
    log(
      `serve-sim at ${server.url} (pid ${server.pid}); ${scenarios.length} scenario(s) × ` +
        `${options.clients.join(", ")}, ${options.durationSec} s each`,
    );
    for (const scenario of scenarios) {
      if (interruptedBy() !== undefined) break;
      results.push(await runScenario(scenario, server, options, tools, workRoot, layout.client, otherLoad));
    }
    if (options.calibrate && interruptedBy() === undefined) {
      calibrate = await runCalibrate(
        REPO_ROOT,
        layout.pinned ? layout.allowed : undefined,
        options.calibrateDurationSec,
      );
      calibrateNote = calibrate === undefined ? "not available yet" : `exit code ${calibrate.exit_code}`;
      console.error(`calibrate: ${calibrateNote}`);
    }
  } finally {
    cores.stop();
    harness.stop();
    await server?.stop();
    await killAllChildren();
  }

  const extras = interruptedBy() === undefined ? await runExtras(layout, options, workRoot) : {};
  console.log("");
  for (const r of results) console.log(renderScenarioTable(r) + "\n");
  const calibration = asCalibrationReport(calibrate?.output);
  if (calibration) console.log(renderReport(calibration) + "\n");
  const lines = [...verdict(results), ...timingVerdict(calibrate), ...costVerdict(results, extras)];
  console.log(renderVerdict(lines));
  console.log(
    "\nRatios in parentheses are this client ÷ ours, measured in the same run against the same server. " +
      "CPU µs = user + system of the client's whole process tree inside its measured window, per event (or " +
      "request); client/server CPU = share of one core in that window; peak RSS = sum of each process's VmHWM. " +
      "'server-bound': serve-sim used ≥ 90% of its core, so the client could not go faster.",
  );

  const interrupted = interruptedBy();
  if (interrupted !== undefined) console.log(`\nInterrupted (${interrupted}): the results above are partial.`);
  const finishedAt = new Date();
  const out = {
    schema: "infermeter-bench/1",
    interrupted: interrupted ?? null,
    started_at: startedAt.toISOString(),
    finished_at: finishedAt.toISOString(),
    wall_sec: (finishedAt.getTime() - startedAt.getTime()) / 1000,
    command: ["deno", "run", "-A", "scripts/bench/run_bench.ts", ...args],
    machine,
    load_average_at_end: Deno.loadavg(),
    options: { ...options, clients: [...options.clients], scenarios: [...options.scenarios] },
    server: server ? { url: server.url, argv: [...server.argv], pinned_cores: layout.server ?? null } : null,
    client_cores: layout.client ?? null,
    tools: {
      wrk: tools.wrk ? (tools.wrk.ok ? { ...tools.wrk.value } : { skipped: tools.wrk.reason }) : null,
      aiperf: tools.aiperf
        ? (tools.aiperf.ok
          ? { version: tools.aiperf.value.version, aiperf: tools.aiperf.value.aiperf }
          : { skipped: tools.aiperf.reason })
        : null,
      gnu_time: hasGnuTime(),
    },
    calibrate: calibrate ?? calibrateNote,
    long_answers: (extras.longAnswers ?? null) as unknown as JsonValue,
    startup: (extras.startup ?? null) as unknown as JsonValue,
    soak: (extras.soak ?? null) as unknown as JsonValue,
    scenarios: results,
    verdict: lines,
    artifacts: options.keep ? workRoot : null,
  };
  await Deno.mkdir(dirname(options.outPath), { recursive: true });
  await Deno.writeTextFile(options.outPath, JSON.stringify(out, null, 2) + "\n");
  if (options.keep) console.log(`\nArtifacts: ${workRoot}`);
  else await Deno.remove(workRoot, { recursive: true }).catch(() => {});
  console.log(`\nResults: ${options.outPath}`);
  return interrupted === "SIGINT" ? 130 : interrupted === "SIGTERM" ? 143 : 0;
}

/**
 * The measurements beside the clients': token counting of long answers (a child on the client core), the first
 * request of a bundle built now from this checkout (`startup_bench.ts --only bundle`, 5 runs), and with `--soak N`
 * a 1-minute and an N-minute soak at 256 streams (their resident memory over the run).
 */
async function runExtras(layout: CoreLayout, options: BenchOptions, workRoot: string): Promise<Extras> {
  // This harness may be pinned to one core: a child given every allowed core sets its own mask.
  const allCores = layout.pinned ? layout.allowed.join(",") : undefined;
  const child = async (script: string, args: string[], pin = true): Promise<string> => {
    const base = [Deno.execPath(), "run", "-A", join(REPO_ROOT, "scripts/bench", script), ...args];
    const argv = pinned(base, pin ? layout.client : allCores);
    const out = await new Deno.Command(argv[0], { args: argv.slice(1), stdout: "piped", stderr: "piped" }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    if (!out.success) {
      throw new Error(`${script}: ${(new TextDecoder().decode(out.stderr) + stdout).slice(-400)}`);
    }
    return stdout;
  };
  const json = (text: string): unknown => JSON.parse(text.slice(text.indexOf("{")));
  const extras: { -readonly [K in keyof Extras]: Extras[K] } = {};
  if (options.extras) {
    try {
      log("token counting of long answers (long_answer_bench.ts)…");
      extras.longAnswers = json(await child("long_answer_bench.ts", ["--json"])) as LongAnswerResults;
    } catch (err) {
      log(`long answers: ${(err as Error).message}`);
    }
    try {
      // The bundle of this checkout, as `deno task bundle` makes it (its smoke tests left to that task).
      const bundle = join(workRoot, "bundle", "infermeter.js");
      await Deno.mkdir(dirname(bundle), { recursive: true });
      const built = await buildBundle(REPO_ROOT, bundle);
      if (!built.ok) throw new Error(`deno bundle: ${built.out.slice(-400)}`);
      log("the bundle's start-up (startup_bench.ts --only bundle)…");
      const r = json(
        await child("startup_bench.ts", ["--json", "--runs", "5", "--only", "bundle", "--bundle", bundle]),
      ) as {
        runs: number;
        results: Record<string, { median: number; min: number; max: number }>;
      };
      const warm = r.results["bundle first request, warm table cache"];
      const version = r.results["bundle --version"];
      if (warm !== undefined) {
        extras.startup = {
          medianMs: warm.median,
          minMs: warm.min,
          maxMs: warm.max,
          versionMs: version?.median,
          runs: r.runs,
        };
      }
    } catch (err) {
      log(`start-up: ${(err as Error).message}`);
    }
  }
  if (options.soakMinutes !== undefined) {
    const soaks: SoakMemory[] = [];
    for (const minutes of [1, options.soakMinutes]) {
      const out = join(workRoot, `soak-${minutes}`);
      try {
        log(`soak: ${minutes} min at 256 streams (soak.ts)…`);
        // On every core: the soak starts its own fault-injecting server beside the CLI.
        await child("soak.ts", ["--minutes", String(minutes), "--out", out], false).catch((err) => {
          log(`soak ${minutes} min: ${(err as Error).message}`); // an unbalanced audit still measured memory
        });
        const memory = soakMemoryOf(JSON.parse(await Deno.readTextFile(join(out, "audit.json"))));
        if (memory !== undefined) soaks.push(memory);
      } catch (err) {
        log(`soak ${minutes} min: ${(err as Error).message}`);
      }
    }
    if (soaks.length === 2) extras.soak = { short: soaks[0], long: soaks[1] };
  }
  return extras;
}

/** The accuracy targets judged on calibrate's report; a failed calibrate run is a failed line, a skipped one none. */
function timingVerdict(calibrate: { [k: string]: JsonValue } | undefined): VerdictLine[] {
  if (calibrate === undefined) return [];
  const report = asCalibrationReport(calibrate.output);
  if (report && calibrate.exit_code === 0) return calibrationVerdict(report);
  return [{
    target: "timing accuracy (calibrate)",
    pass: false,
    detail: `not measured: calibrate exited ${calibrate.exit_code} (its stderr is in the results file)`,
  }];
}

if (import.meta.main) {
  let code = 1;
  try {
    code = await main(Deno.args);
  } catch (err) {
    console.error(`error: ${(err as Error).message}`);
    await killAllChildren();
  }
  Deno.exit(code);
}
