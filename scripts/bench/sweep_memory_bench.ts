/**
 * The time-weighted metrics' cost at the end of a run, alone: synthetic streamed requests as a 256-stream run
 * leaves them (start, first token, end, lengths and 31 chunk gaps each, the gaps in a single-precision column as the
 * accumulator keeps them; a few failed), then `sweepStatsByGroup` over them. Prints one JSON line: the requests and
 * gaps, the seconds it took, the resident memory before and its peak during the statistics (Linux: the peak is reset
 * through `/proc/self/clear_refs` once the inputs are built), and a checksum of every statistic's bits, so that two
 * checkouts can be compared for identical results.
 *
 * `--scratch` gives the statistics a scratch file (in a temporary directory) to set their value ranges aside, as a
 * run does; without it each value range is a read of the curve.
 *
 *   deno run -A --v8-flags=--expose-gc scripts/bench/sweep_memory_bench.ts [--requests 250000] [--gaps 31]
 *     [--concurrency 256] [--seed 7] [--scratch]
 */
import { Float64Column } from "../../src/metrics/float64_column.ts";
import { scratchFiles } from "../../src/metrics/column_spill.ts";
import { SweepColumns, sweepStatsByGroup } from "../../src/metrics/sweep_line_metrics.ts";

function arg(name: string, fallback: number): number {
  const at = Deno.args.indexOf(`--${name}`);
  return at >= 0 && at + 1 < Deno.args.length ? Number(Deno.args[at + 1]) : fallback;
}

const requests = arg("requests", 250_000);
const gapsPer = arg("gaps", 31);
const concurrency = arg("concurrency", 256);
let seed = arg("seed", 7) >>> 0 || 1;
const rnd = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 2 ** 32;
};

function statusKiB(field: string): number {
  const m = Deno.readTextFileSync("/proc/self/status").match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"));
  return m === null ? NaN : Number(m[1]);
}

// Each of `concurrency` streams sends its next request when the last one ends; records arrive in end order.
const columns = new SweepColumns();
const gaps = new Float64Column(1024, true);
const streams = Float64Array.from({ length: concurrency }, () => rnd() * 50);
const pending: { start: number; gen: number; end: number; icl: number[] }[] = [];
for (let i = 0; i < requests; i++) {
  const s = i % concurrency;
  const start = streams[s] + rnd() * 0.2;
  const failed = rnd() < 0.02;
  const gen = failed ? NaN : start + 20 + rnd() * 10;
  const icl = failed ? [] : Array.from({ length: gapsPer }, () => Math.fround(rnd() < 0.03 ? 0 : 3 + rnd() * 2));
  const end = (failed ? start + 5 : gen + icl.reduce((a, b) => a + b, 0)) + rnd() * 0.5;
  streams[s] = end;
  pending.push({ start, gen, end, icl });
}
pending.sort((a, b) => a.end - b.end);
for (const r of pending) {
  for (const g of r.icl) gaps.push(g);
  columns.add(
    { start: r.start, gen: r.gen, end: r.end, isl: 64, osl: Number.isNaN(r.gen) ? NaN : gapsPer + 1 },
    gaps.length,
  );
}
pending.length = 0;

// The requests as built are dropped (a run keeps only the columns): a large live heap would let V8 leave that much
// more garbage uncollected during the statistics, and the peak would measure the bench, not them.
pending.length = 0;
(globalThis as { gc?: () => void }).gc?.(); // with --v8-flags=--expose-gc
const rssBefore = statusKiB("VmRSS");
try {
  Deno.writeTextFileSync("/proc/self/clear_refs", "5");
} catch {
  // Not Linux, or not permitted: the peak then includes building the inputs.
}
const t0 = performance.now();
const scratchDir = Deno.args.includes("--scratch") ? Deno.makeTempDirSync({ prefix: "sweep_scratch_" }) : undefined;
const scratch = scratchDir === undefined ? undefined : scratchFiles(scratchDir);
const stats = sweepStatsByGroup(columns.table(gaps.reader()), undefined, undefined, scratch);
if (scratchDir !== undefined) Deno.removeSync(scratchDir, { recursive: true });
const seconds = (performance.now() - t0) / 1000;
const peak = statusKiB("VmHWM");
// FNV-1a over every statistic's 64 bits, in the metrics' order.
let hash = 0x811c9dc5;
const bytes = new Uint8Array(8);
const view = new DataView(bytes.buffer);
for (const s of stats.values()) {
  for (const v of [s.avg, s.min, s.max, s.p50, s.p90, s.p95, s.p99, s.std]) {
    view.setFloat64(0, v);
    for (const b of bytes) hash = Math.imul(hash ^ b, 0x01000193) >>> 0;
  }
}
console.log(JSON.stringify({
  requests: columns.length,
  gaps: gaps.length,
  seconds: Number(seconds.toFixed(2)),
  rss_before_mib: Number((rssBefore / 1024).toFixed(1)),
  peak_rss_mib: Number((peak / 1024).toFixed(1)),
  checksum: hash.toString(16),
  scratch_files: scratch?.opened() ?? 0,
}));
