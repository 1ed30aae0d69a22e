/**
 * AIPerf itself (`aiperf profile`, installed from PyPI into .bench/aiperf-venv), with the flags that match ours,
 * read back from its `profile_export_aiperf.json` exactly like ours. AIPerf is a tree of processes (controller,
 * workers, record processors, …): its CPU and memory are summed over the whole tree, all pinned to the client
 * core(s); CPU inside the profiling window is read from /proc samples at its start_time / end_time.
 */
import type { ClientResult } from "./bench_types.ts";
import { type ClientContext, failedResult, measuredResult } from "./client_context.ts";
import { pinned, runChild, tail } from "./child_runner.ts";
import { readExportSummary } from "./export_summary.ts";
import type { AiperfTool } from "./tool_setup.ts";

export function aiperfArgv(ctx: ClientContext, tool: AiperfTool, artifactDir: string): string[] {
  const s = ctx.scenario;
  return pinned([
    tool.aiperf,
    "profile",
    "-m",
    ctx.model,
    "-u",
    ctx.server.url,
    "--endpoint-type",
    "chat",
    ...(s.streaming ? ["--streaming"] : []),
    "--isl",
    String(s.isl),
    "--osl",
    String(s.osl),
    "--extra-inputs",
    "ignore_eos:true",
    "--concurrency",
    String(s.concurrency),
    "--benchmark-duration",
    String(ctx.durationSec),
    ...(ctx.warmupRequests > 0 ? ["--warmup-request-count", String(ctx.warmupRequests)] : []),
    "--random-seed",
    "1",
    "--tokenizer",
    "builtin",
    "--ui",
    "none",
    // The simulated server has no GPU and its /metrics is not what is measured here.
    "--no-server-metrics",
    "--no-gpu-telemetry",
    "--artifact-dir",
    artifactDir,
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
  const windowStart = summary.windowStart ?? run.startedAt;
  const windowEnd = summary.windowEnd ?? windowStart + summary.durationSec * 1000;
  return measuredResult(ctx, "aiperf", argv, run, {
    requestsPerSec: summary.requestsPerSec,
    eventsPerSec: ctx.scenario.streaming ? summary.totalOsl / summary.durationSec : undefined,
    requests: summary.requests,
    errors: summary.errors,
    windowStart,
    windowEnd,
    message: run.code !== 0 ? `exit code ${run.code}` : undefined,
    artifactDir,
    extra: {
      version: summary.version ?? tool.version,
      benchmark_duration_sec: summary.durationSec,
      total_osl: summary.totalOsl,
    },
  });
}
