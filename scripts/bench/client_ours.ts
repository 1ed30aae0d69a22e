/**
 * Ours: `infermeter profile` as a subprocess — the whole product path (dataset synthesis, engine, token counting,
 * metrics, console table, JSON/CSV/JSONL exports) — read back from its `profile_export_aiperf.json`.
 *
 * requests/s = request_throughput.avg; SSE events/s = total_osl.avg / benchmark_duration.avg (serve-sim sends one
 * token per event); client CPU = the export's `infermeter.client_cpu` (profiling phase, all threads), cross-checked
 * against /proc polling in the results file.
 */
import type { ClientResult } from "./bench_types.ts";
import { type ClientContext, failedResult, measuredResult, profileArgs } from "./client_context.ts";
import { pinned, runChild, tail } from "./child_runner.ts";
import { readExportSummary, summaryMeasures } from "./export_summary.ts";
import { V8_FLAGS_ARG } from "../../src/runtime/v8_flags.ts";

export function oursArgv(ctx: ClientContext, artifactDir: string): string[] {
  return pinned([
    Deno.execPath(),
    "run",
    "-A",
    V8_FLAGS_ARG, // as the compiled binary runs
    `${ctx.repoRoot}/main.ts`,
    ...profileArgs(ctx, artifactDir),
  ], ctx.clientCores);
}

export async function runOurs(ctx: ClientContext): Promise<ClientResult> {
  const artifactDir = `${ctx.workDir}/artifacts`;
  const argv = oursArgv(ctx, artifactDir);
  const run = await runChild({
    label: "ours (infermeter profile)",
    argv,
    cwd: ctx.workDir,
    timeoutMs: (ctx.durationSec + 60) * 1000,
    stdoutPath: `${ctx.workDir}/stdout.txt`,
    stderrPath: `${ctx.workDir}/stderr.txt`,
    gnuTimePath: ctx.gnuTime ? `${ctx.workDir}/time.txt` : undefined,
  });
  if (run.code !== 0 && run.code !== 1) {
    return failedResult("ours", argv, run, `exit code ${run.code}: ${tail(run.stderr, 4) || tail(run.stdout, 4)}`);
  }
  let summary;
  try {
    summary = await readExportSummary(`${artifactDir}/profile_export_aiperf.json`);
  } catch (err) {
    return failedResult("ours", argv, run, `${(err as Error).message}\n${tail(run.stderr, 4)}`);
  }
  const cpu = summary.clientCpu;
  return measuredResult(ctx, "ours", argv, run, {
    ...summaryMeasures(summary, run.startedAt, ctx.scenario.streaming),
    windowCpuSec: cpu ? (cpu.userMs + cpu.systemMs) / 1000 : undefined,
    windowCpuSource: "infermeter.client_cpu (in-process, profiling phase)",
    message: run.code === 1 ? `exit code 1: ${tail(run.stderr, 2)}` : undefined,
    artifactDir,
    extra: {
      version: summary.version ?? null,
      benchmark_duration_sec: summary.durationSec,
      total_osl: summary.totalOsl,
      client_cpu_wall_ms: cpu?.wallMs ?? null,
    },
  });
}
