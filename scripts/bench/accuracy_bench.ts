/**
 * `deno task bench --accuracy`: the timing-accuracy levels at many streams, judged against the targets.
 *
 * On a host with at least 16 cores: `infermeter calibrate --streams 256,1000,2000 --itl 13 --workers auto`, and
 * - 1,000 streams (~75 k events/s): client TTFT and latency error p50 ≤ 0.5 ms and p99 ≤ 5 ms, within 2 ms of the
 *   bare-socket floor of the same run;
 * - 2,000 streams (~150 k events/s): the reference server holds ≥ 95 % of the asked events/s, client p99 ≤ 10 ms.
 * On a smaller host the same command runs levels scaled by cores/16 (at least 16 streams) and says so: the targets
 * are then read on the scaled levels, which show the trend, not the 16-core figures.
 *
 *   deno run -A scripts/bench/run_bench.ts --accuracy [--duration <s per level>] [--streams a,b,c]
 */
import { V8_FLAGS_ARG } from "../../src/runtime/v8_flags.ts";
import { allowedCores } from "../../src/runtime/thread_affinity.ts";
import type { CalibrationReport, LevelReport } from "../../src/calibrate/level_report.ts";
import { renderReport } from "../../src/calibrate/render_report.ts";

const FULL_LEVELS = [256, 1000, 2000];
const FULL_CORES = 16;

export async function runAccuracyBench(args: readonly string[]): Promise<number> {
  const get = (flag: string) => {
    const i = args.indexOf(flag);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const root = new URL("../../", import.meta.url).pathname;
  const cores = allowedCores()?.length ?? navigator.hardwareConcurrency;
  const scale = Math.min(1, cores / FULL_CORES);
  const levels = get("--streams")?.split(",").map(Number) ??
    FULL_LEVELS.map((s) => Math.max(16, Math.round(s * scale / 16) * 16));
  const duration = get("--duration") ?? (scale < 1 ? "4" : "10");
  if (scale < 1) {
    console.error(
      `accuracy: this host has ${cores} cores (< ${FULL_CORES}): running the scaled levels ${levels.join(", ")} ` +
        `instead of ${FULL_LEVELS.join(", ")}; the 16-core targets are read on them as a trend only.`,
    );
  }
  // deno-fmt-ignore
  const argv = [Deno.execPath(), "run", "-A", V8_FLAGS_ARG, `${root}main.ts`, "calibrate", "--streams",
    levels.join(","), "--itl", "13", "--duration", duration, "--workers", "auto", "--json"];
  console.error(`accuracy: ${argv.slice(1).join(" ")}`);
  const out = await new Deno.Command(argv[0], { args: argv.slice(1), stdout: "piped", stderr: "inherit" }).output();
  if (!out.success) {
    console.error(`accuracy: calibrate exited ${out.code}`);
    return 1;
  }
  const report = JSON.parse(new TextDecoder().decode(out.stdout)) as CalibrationReport;
  console.log(renderReport(report) + "\n");
  const lines = accuracyVerdict(report.levels, levels, scale < 1);
  for (const l of lines) console.log(l.text);
  const table = markdownTable(report.levels);
  console.log("\n" + table);
  await Deno.mkdir(`${root}.bench`, { recursive: true });
  await Deno.writeTextFile(
    `${root}.bench/accuracy.json`,
    JSON.stringify({ date: new Date().toISOString(), cores, scaled: scale < 1, levels, report }, null, 2) + "\n",
  );
  return lines.every((l) => l.pass) ? 0 : 1;
}

interface Line {
  readonly pass: boolean;
  readonly text: string;
}

/** The targets on the middle level (1,000 streams on 16 cores) and the top level (2,000). */
function accuracyVerdict(levels: readonly LevelReport[], asked: readonly number[], scaled: boolean): Line[] {
  const at = (streams: number) => levels.find((l) => l.streams === streams);
  const lines: Line[] = [];
  const note = scaled ? " (scaled level)" : "";
  const mid = at(asked[1]);
  if (mid) {
    const ttft = mid.ttftErrorMs;
    const lat = mid.requestLatencyErrorMs;
    const floorT = mid.floorTtftErrorMs?.p99 ?? 0;
    const floorL = mid.floorLatencyErrorMs?.p99 ?? 0;
    const ok = ttft !== undefined && lat !== undefined && ttft.p50 <= 0.5 && lat.p50 <= 0.5 && ttft.p99 <= 5 &&
      lat.p99 <= 5 && ttft.p99 - floorT <= 2 && lat.p99 - floorL <= 2;
    lines.push({
      pass: ok,
      text: `${ok ? "PASS" : "FAIL"} ${mid.streams} streams${note}: TTFT error p50/p99 ${ttft?.p50.toFixed(2)}/${
        ttft?.p99.toFixed(2)
      } ms (floor p99 ${floorT.toFixed(2)}), latency ${lat?.p50.toFixed(2)}/${lat?.p99.toFixed(2)} ms (floor p99 ${
        floorL.toFixed(2)
      }); target p50 ≤ 0.5, p99 ≤ 5 and within 2 ms of the floor`,
    });
  }
  const top = at(asked[2]);
  if (top) {
    const held = top.eventsPerSecond / top.scheduledEventsPerSecond;
    const p99 = Math.max(top.ttftErrorMs?.p99 ?? Infinity, top.requestLatencyErrorMs?.p99 ?? Infinity);
    const ok = held >= 0.95 && p99 <= 10;
    lines.push({
      pass: ok,
      text: `${ok ? "PASS" : "FAIL"} ${top.streams} streams${note}: ${Math.round(top.eventsPerSecond)} of ${
        Math.round(top.scheduledEventsPerSecond)
      } events/s asked (${(held * 100).toFixed(1)} %, target ≥ 95 %), client p99 ${p99.toFixed(2)} ms (target ≤ 10)`,
    });
  }
  return lines;
}

function markdownTable(levels: readonly LevelReport[]): string {
  const f = (v: number | undefined) => v === undefined ? "-" : v.toFixed(2);
  return [
    "| streams | TTFT err p50 / p99 (ms) | floor TTFT p99 | latency err p50 / p99 | floor latency p99 | events/s (asked) | client CPU |",
    "|---|---|---|---|---|---|---|",
    ...levels.map((l) =>
      `| ${l.streams} | ${f(l.ttftErrorMs?.p50)} / ${f(l.ttftErrorMs?.p99)} | ${f(l.floorTtftErrorMs?.p99)} | ${
        f(l.requestLatencyErrorMs?.p50)
      } / ${f(l.requestLatencyErrorMs?.p99)} | ${f(l.floorLatencyErrorMs?.p99)} | ${
        Math.round(l.eventsPerSecond).toLocaleString("en-US")
      } (${Math.round(l.scheduledEventsPerSecond).toLocaleString("en-US")}) | ${
        l.clientCpuPercentOfCore?.toFixed(0) ?? "-"
      } % |`
    ),
  ].join("\n");
}
