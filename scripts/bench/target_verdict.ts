/**
 * The bench's verdict on the cost targets beyond raw throughput, each with its ratio to the target and the command
 * that measures it: CPU per 1-token request, `wrk` ÷ ours, SSE events per core, every endpoint type against AIPerf,
 * token counting of long answers, the bundle's start-up. Targets this bench does not measure (memory over a long
 * run, 10 M-record reports, many cores) are listed with their commands, marked as not measured here.
 */
import type { ClientResult, ScenarioResult } from "./bench_types.ts";
import type { VerdictLine } from "./bench_report.ts";
import { ENDPOINT_SCENARIO_IDS } from "./bench_scenarios.ts";
import type { LongAnswerResults } from "./long_answer_bench.ts";

export const COST_TARGETS = {
  /** Client CPU µs per 1-token request (streaming and not), every export written, one shard. */
  cpuUsPerRequest: 30,
  /** wrk's requests/s ÷ ours on the same server, at most. */
  wrkOverOurs: 1.6,
  /** Parsed SSE events/s one client core sustains (1e6 / CPU µs per event), on an idle machine. */
  eventsPerCore: 900_000,
  /** AIPerf's CPU per request ÷ ours, every endpoint type. */
  timesAiperfPerType: 40,
  /** Token counting of long answers, MB of text per CPU-second. */
  countMbPerSec: 30,
  /** Wall seconds to count a 64 MiB answer through the counting Worker. */
  count64MiBSec: 3,
  /** The bundle's first request after spawn, ms. */
  bundleFirstRequestMs: 120,
} as const;

const BENCH = "deno task bench";

function ok(results: readonly ScenarioResult[], id: string, client: string): ClientResult | undefined {
  const r = results.find((x) => x.scenario.id === id)?.clients.find((c) => c.client === client);
  return r?.status === "ok" ? r : undefined;
}

function line(target: string, value: number | undefined, pass: boolean | undefined, detail: string): VerdictLine {
  return { target, value, pass, detail };
}

/** `a` passes when at most (or, with `atLeast`, at least) the target; the ratio is value ÷ target. */
function judged(value: number, target: number, atLeast: boolean): string {
  const pass = atLeast ? value >= target : value <= target;
  return `${pass ? "PASS" : "FAIL"} (${(value / target).toFixed(2)}× target)`;
}

export function costVerdict(
  results: readonly ScenarioResult[],
  extras: { readonly longAnswers?: LongAnswerResults; readonly startup?: { medianMs: number; runs: number } },
): VerdictLine[] {
  const lines: VerdictLine[] = [];
  // 1. CPU per 1-token request, wrk ÷ ours, SSE events per core.
  for (const id of ["rps-stream-c64", "rps-nonstream-c64"]) {
    const label = `client CPU ≤ ${COST_TARGETS.cpuUsPerRequest} µs/request (${id})`;
    const ours = ok(results, id, "ours");
    if (ours?.cpuUsPerRequest === undefined) {
      lines.push(line(label, undefined, undefined, `not measured; ${BENCH} --scenarios ${id}`));
      continue;
    }
    const v = ours.cpuUsPerRequest;
    lines.push(line(
      label,
      v,
      v <= COST_TARGETS.cpuUsPerRequest,
      `ours ${v.toFixed(1)} µs → ${judged(v, COST_TARGETS.cpuUsPerRequest, false)}; ${BENCH} --scenarios ${id}`,
    ));
  }
  for (const id of ["rps-stream-c64", "rps-nonstream-c64"]) {
    const label = `wrk ÷ ours ≤ ${COST_TARGETS.wrkOverOurs}× requests/s (${id})`;
    const ours = ok(results, id, "ours"), wrk = ok(results, id, "wrk");
    if (!ours?.requestsPerSec || !wrk?.requestsPerSec) {
      lines.push(line(label, undefined, undefined, `not measured (wrk or ours missing); ${BENCH} --scenarios ${id}`));
      continue;
    }
    const x = wrk.requestsPerSec / ours.requestsPerSec;
    lines.push(line(
      label,
      x,
      x <= COST_TARGETS.wrkOverOurs,
      `${x.toFixed(2)}× → ${judged(x, COST_TARGETS.wrkOverOurs, false)}; ${BENCH} --scenarios ${id}`,
    ));
  }
  {
    const label = `SSE ≥ ${(COST_TARGETS.eventsPerCore / 1000).toFixed(0)} k events/s per core (idle machine)`;
    let best: { id: string; perCore: number } | undefined;
    for (const r of results) {
      const us = r.scenario.kind === "events" ? ok(results, r.scenario.id, "ours")?.cpuUsPerEvent : undefined;
      if (us !== undefined && us > 0 && (best === undefined || 1e6 / us > best.perCore)) {
        best = { id: r.scenario.id, perCore: 1e6 / us };
      }
    }
    lines.push(
      best === undefined ? line(label, undefined, undefined, `not measured; ${BENCH} --scenarios sse-c16`) : line(
        label,
        best.perCore,
        best.perCore >= COST_TARGETS.eventsPerCore,
        `~${Math.round(best.perCore).toLocaleString("en-US")} in ${best.id} (1e6 ÷ CPU µs/event) → ${
          judged(best.perCore, COST_TARGETS.eventsPerCore, true)
        }; ${BENCH} --scenarios sse-c16`,
      ),
    );
  }
  // 2. Every endpoint type against AIPerf, CPU per request.
  {
    const label = `every endpoint type ≥ ${COST_TARGETS.timesAiperfPerType}× AIPerf's CPU/request`;
    const parts: string[] = [];
    let min: number | undefined;
    const missing: string[] = [];
    for (const id of ENDPOINT_SCENARIO_IDS) {
      const ours = ok(results, id, "ours"), ai = ok(results, id, "aiperf");
      const type = results.find((r) => r.scenario.id === id)?.scenario.endpointType ?? "chat";
      if (!ours?.cpuUsPerRequest || ai?.cpuUsPerRequest === undefined) {
        missing.push(type);
        continue;
      }
      const x = ai.cpuUsPerRequest / ours.cpuUsPerRequest;
      min = min === undefined ? x : Math.min(min, x);
      parts.push(`${type} ${x.toFixed(0)}×`);
    }
    const cmd = `${BENCH} --scenarios ${ENDPOINT_SCENARIO_IDS.join(",")}`;
    const detail = min === undefined
      ? `not measured (AIPerf or ours missing for ${missing.join(", ")}); ${cmd}`
      : `${parts.join(", ")} → ${judged(min, COST_TARGETS.timesAiperfPerType, true)} at the lowest${
        missing.length > 0 ? `; not measured: ${missing.join(", ")}` : ""
      }; ${cmd}`;
    lines.push(
      line(
        label,
        min,
        min === undefined || missing.length > 0 ? undefined : min >= COST_TARGETS.timesAiperfPerType,
        detail,
      ),
    );
  }
  // 3 and 4: measured outside this bench.
  lines.push(line(
    "memory flat: 30-min peak RSS ≤ 1.5× 1-min, ≤ 400 MB; ≤ 300 B/request",
    undefined,
    undefined,
    "not measured here (minutes of load): deno run -A scripts/bench/soak.ts --minutes 1, then --minutes 30 " +
      "(RSS over the run, its slope, retained B/request in the JSON export's infermeter.retained_bytes_per_request)",
  ));
  lines.push(line(
    "reports at 10 M records: ≤ 60 s, peak RSS ≤ 1 GB",
    undefined,
    undefined,
    "not measured here: generate a 10 M-record run directory, then time report.html, plot and compare on it",
  ));
  // 5. Token counting of long answers.
  const long = extras.longAnswers;
  const countCmd = "deno run -A scripts/bench/long_answer_bench.ts";
  if (long === undefined) {
    lines.push(
      line(
        `token counting ≥ ${COST_TARGETS.countMbPerSec} MB/s per core`,
        undefined,
        undefined,
        `not run; ${countCmd}`,
      ),
    );
  } else {
    const corpus = long.rows[0];
    const worst = long.rows.reduce((a, b) => a.mbPerCpuSec <= b.mbPerCpuSec ? a : b);
    lines.push(line(
      `token counting ≥ ${COST_TARGETS.countMbPerSec} MB/s per core`,
      corpus.mbPerCpuSec,
      corpus.mbPerCpuSec >= COST_TARGETS.countMbPerSec,
      `ordinary text ${corpus.mbPerCpuSec.toFixed(0)} MB/s → ${
        judged(corpus.mbPerCpuSec, COST_TARGETS.countMbPerSec, true)
      }; slowest shape: ${worst.label} ${worst.mbPerCpuSec.toFixed(1)} MB/s; ${countCmd}`,
    ));
    const slowest = long.worker.reduce((a, b) => a.wallSec >= b.wallSec ? a : b);
    lines.push(line(
      `64 MiB answer counted in ≤ ${COST_TARGETS.count64MiBSec} s`,
      slowest.wallSec,
      slowest.wallSec <= COST_TARGETS.count64MiBSec,
      `slowest ${slowest.wallSec.toFixed(2)} s (${slowest.label}) → ${
        judged(slowest.wallSec, COST_TARGETS.count64MiBSec, false)
      }; ${countCmd}`,
    ));
  }
  // 6. Start-up.
  const startCmd = "deno task bundle && deno run -A scripts/bench/startup_bench.ts --only bundle";
  const s = extras.startup;
  lines.push(
    s === undefined
      ? line(
        `bundle's first request ≤ ${COST_TARGETS.bundleFirstRequestMs} ms`,
        undefined,
        undefined,
        `not run (no dist/infermeter.js); ${startCmd}`,
      )
      : line(
        `bundle's first request ≤ ${COST_TARGETS.bundleFirstRequestMs} ms`,
        s.medianMs,
        s.medianMs <= COST_TARGETS.bundleFirstRequestMs,
        `median of ${s.runs}: ${s.medianMs.toFixed(0)} ms → ${
          judged(s.medianMs, COST_TARGETS.bundleFirstRequestMs, false)
        }; ${startCmd}`,
      ),
  );
  // 7. Many cores.
  const cores = navigator.hardwareConcurrency;
  lines.push(line(
    "many cores: --workers efficiency ≥ 0.9 at 16; calibrate --streams 1000 p99 ≤ 5 ms; 100,000 streams",
    undefined,
    undefined,
    `${cores < 16 ? `not measurable on ${cores} cores; ` : ""}deno run -A scripts/bench/workers_scaling.ts ` +
      "--workers 1,2,4,8,16; deno run -A main.ts calibrate --streams 1000 --workers auto; deno run -A " +
      "scripts/bench/scale_streams.ts --streams 100000 --per-server 7000 --ttft 3000 --itl 5000 --ramp 20",
  ));
  return lines;
}
