/**
 * AIPerf itself (`aiperf profile`, installed from PyPI into .bench/aiperf-venv), with the flags that match ours,
 * read back from its `profile_export_aiperf.json` exactly like ours. AIPerf is a tree of processes (controller,
 * workers, record processors, …): its CPU and memory are summed over the whole tree, all pinned to the client
 * core(s); CPU inside the profiling window is read from /proc samples at its start_time / end_time.
 */
import type { ClientResult } from "./bench_types.ts";
import { type ClientContext, failedResult, measuredResult, profileArgs } from "./client_context.ts";
import { pinned, runChild, tail } from "./child_runner.ts";
import { readExportSummary, summaryMeasures } from "./export_summary.ts";
import type { AiperfTool } from "./tool_setup.ts";

export function aiperfArgv(ctx: ClientContext, tool: AiperfTool, artifactDir: string): string[] {
  return pinned([
    tool.aiperf,
    ...profileArgs(ctx, artifactDir),
    "--tokenizer",
    "builtin",
    // The simulated server has no GPU and its /metrics is not what is measured here.
    "--no-server-metrics",
    "--no-gpu-telemetry",
  ], ctx.clientCores);
}

export async function runAiperf(ctx: ClientContext, tool: AiperfTool): Promise<ClientResult> {
  const artifactDir = `${ctx.workDir}/artifacts`;
  const argv = aiperfArgv(ctx, tool, artifactDir);
  const run = await runChild({
    label: "aiperf",
    argv,
    cwd: ctx.workDir,
    env: tool.env,
    timeoutMs: (ctx.durationSec + 120) * 1000,
    stdoutPath: `${ctx.workDir}/stdout.txt`,
    stderrPath: `${ctx.workDir}/stderr.txt`,
    gnuTimePath: ctx.gnuTime ? `${ctx.workDir}/time.txt` : undefined,
  });
  let summary;
  try {
    summary = await readExportSummary(`${artifactDir}/profile_export_aiperf.json`);
  } catch (err) {
    const why = run.code !== 0 ? `exit code ${run.code}` : (err as Error).message;
    return failedResult("aiperf", argv, run, `${why}: ${tail(run.stdout + run.stderr, 6)}`);
  }
  return measuredResult(ctx, "aiperf", argv, run, {
    ...summaryMeasures(summary, run.startedAt, ctx.scenario.streaming),
    message: run.code !== 0 ? `exit code ${run.code}` : undefined,
    artifactDir,
    extra: {
      version: summary.version ?? tool.version,
      benchmark_duration_sec: summary.durationSec,
      total_osl: summary.totalOsl,
    },
  });
}
