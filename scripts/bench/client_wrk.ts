/**
 * wrk, the C HTTP load generator, as the ceiling of what one client core can pull through this server: it POSTs
 * the scenario's exact body over keep-alive connections (one thread, `-c concurrency`) and reads each response
 * to its end without parsing SSE. events/s = requests/s × content events per response (counted once from a sample
 * response); CPU is wrk's own (GNU time when installed, else /proc polling).
 */
import type { ClientResult } from "./bench_types.ts";
import { type ClientContext, failedResult, measuredResult } from "./client_context.ts";
import { pinned, runChild, tail } from "./child_runner.ts";
import type { WrkTool } from "./tool_setup.ts";

/** A wrk Lua script that sends `body` as a JSON POST on every request. */
export function wrkScript(body: string): string {
  let level = "";
  while (body.includes(`]${level}]`)) level += "=";
  return [
    'wrk.method = "POST"',
    'wrk.headers["Content-Type"] = "application/json"',
    `wrk.body = [${level}[${body}]${level}]`,
    "",
  ].join("\n");
}

export interface WrkReport {
  readonly requests: number;
  readonly seconds: number;
  readonly requestsPerSec: number;
  readonly non2xx: number;
  readonly socketErrors: number;
}

const UNIT_SECONDS: Readonly<Record<string, number>> = { us: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** Parses wrk's text report; undefined when it has no "N requests in T" line. */
export function parseWrkReport(text: string): WrkReport | undefined {
  const done = /(\d+) requests in ([\d.]+)(us|ms|s|m|h)\b/.exec(text);
  if (!done) return undefined;
  const requests = Number(done[1]);
  const seconds = Number(done[2]) * UNIT_SECONDS[done[3]];
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(text);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(text)?.[1] ?? 0);
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const socketErrors = sock ? sock.slice(1, 5).reduce((a, b) => a + Number(b), 0) : 0;
  return {
    requests,
    seconds,
    requestsPerSec: rps ? Number(rps[1]) : requests / seconds,
    non2xx,
    socketErrors,
  };
}

export async function runWrk(ctx: ClientContext, tool: WrkTool): Promise<ClientResult> {
  const script = `${ctx.workDir}/post.lua`;
  await Deno.writeTextFile(script, wrkScript(ctx.body));
  const s = ctx.scenario;
  const argv = pinned([
    tool.path,
    "-t1",
    `-c${s.concurrency}`,
    `-d${ctx.durationSec}s`,
    "--timeout",
    "30s",
    "-s",
    script,
    `${ctx.server.url}/v1/chat/completions`,
  ], ctx.clientCores);
  const run = await runChild({
    label: "wrk",
    argv,
    cwd: ctx.workDir,
    timeoutMs: (ctx.durationSec + 40) * 1000,
    stdoutPath: `${ctx.workDir}/stdout.txt`,
    stderrPath: `${ctx.workDir}/stderr.txt`,
    gnuTimePath: ctx.gnuTime ? `${ctx.workDir}/time.txt` : undefined,
  });
  const report = parseWrkReport(run.stdout);
  if (run.code !== 0 || report === undefined) {
    return failedResult("wrk", argv, run, `exit code ${run.code}: ${tail(run.stderr + run.stdout, 4)}`);
  }
  const errors = report.non2xx + report.socketErrors;
  const perResponse = ctx.response?.contentEvents;
  // wrk's whole run is its window: from its own "in T s" back from the exit.
  const windowEnd = run.endedAt;
  const windowStart = windowEnd - report.seconds * 1000;
  const cpu = run.gnuTime ? run.gnuTime.userSec + run.gnuTime.systemSec : undefined;
  return measuredResult(ctx, "wrk", argv, run, {
    requestsPerSec: report.requestsPerSec,
    eventsPerSec: s.streaming && perResponse !== undefined ? report.requestsPerSec * perResponse : undefined,
    requests: report.requests,
    errors,
    windowStart,
    windowEnd,
    windowCpuSec: cpu,
    windowCpuSource: "GNU time (whole wrk run)",
    message: errors > 0 ? `${errors} errors (non-2xx or socket)` : undefined,
    extra: { version: tool.version, content_events_per_response: perResponse ?? null },
  });
}
