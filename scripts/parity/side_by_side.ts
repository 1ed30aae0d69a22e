/**
 * AIPerf 0.13 and infermeter side by side against the same `serve-sim` (usage details on, prompt tokens counted with
 * the fixture tokenizer both clients use), scenario by scenario (`harness.ts`). Reports every CSV row, JSON metric
 * and console row AIPerf writes that infermeter lacks, multi-turn ISL per turn against the server's
 * `usage.prompt_tokens`, server-metric percentile estimates against AIPerf's (within one bucket width), and the
 * request count of a file dataset given no bound.
 *
 *   deno run -A scripts/parity/side_by_side.ts [--aiperf /path/to/aiperf] [--fixtures] [--write docs/aiperf_parity.md]
 *
 * `--fixtures` reads AIPerf's side from `tests/fixtures/aiperf_0_13/<scenario>/` (written by `capture_aiperf.ts`)
 * instead of running it. `--write` replaces this report's section of the file (between its markers) and leaves
 * the rest as it is. Exit status 1 when something AIPerf writes is missing or a check fails.
 */
import { dirname, join } from "node:path";
import { parsePrometheusText } from "../../src/telemetry/prometheus_text.ts";
import {
  estimatePercentiles,
  type HistogramPoint,
  learnBucketStatistics,
} from "../../src/telemetry/histogram_estimate.ts";
import { aiperfBin, ROOT, runScenario, type Scenario, SCENARIOS } from "./harness.ts";
import {
  comparePercentiles,
  compareShapes,
  islByTurn,
  type Missing,
  type PercentileCheck,
  readJsonlText,
} from "./compare_exports.ts";

const AIPERF = aiperfBin(Deno.args);
const FROM_FIXTURES = Deno.args.includes("--fixtures");
const WRITE = Deno.args.includes("--write") ? Deno.args[Deno.args.indexOf("--write") + 1] : undefined;
const FIXTURES = join(ROOT, "tests/fixtures/aiperf_0_13");
/** The Python that has AIPerf installed (its virtual environment's, beside the `aiperf` script). */
const PYTHON = Deno.args.includes("--python")
  ? Deno.args[Deno.args.indexOf("--python") + 1]
  : join(dirname(AIPERF), "python");
export const SECTION_START = "<!-- side-by-side check: start (scripts/parity/side_by_side.ts) -->";
export const SECTION_END = "<!-- side-by-side check: end -->";

type Json = Record<string, unknown>;

interface Side {
  readonly csv: string;
  readonly json: Json;
  readonly console: string;
  readonly jsonl: string;
  readonly serverMetrics?: Json;
}

async function readText(path: string): Promise<string> {
  return await Deno.readTextFile(path).catch(() => "");
}

async function side(dir: string, consoleText: string): Promise<Side> {
  const serverMetrics = await readText(join(dir, "server_metrics_export.json"));
  return {
    csv: await readText(join(dir, "profile_export_aiperf.csv")),
    json: JSON.parse(await readText(join(dir, "profile_export_aiperf.json"))),
    console: consoleText,
    jsonl: await readText(join(dir, "profile_export.jsonl")),
    serverMetrics: serverMetrics === "" ? undefined : JSON.parse(serverMetrics),
  };
}

interface ScenarioResult {
  readonly scenario: Scenario;
  readonly shapes: Missing[];
  readonly isl: string[];
  readonly percentiles: PercentileCheck[];
  /** Percentiles outside one bucket width whose runs' server-side means differ by more than a bucket too. */
  readonly dataDiffer: string[];
  /** Both estimators on one scrape series of infermeter's run: series compared, largest relative difference. */
  readonly sameData?: { series: number; worst: number } | string;
  readonly requests: { theirs: number; ours: number };
  readonly failures: string[];
}

interface SeriesCase {
  readonly name: string;
  readonly les: string[];
  readonly points: HistogramPoint[];
}

type DraftPoint = { buckets: Map<string, number>; sum: number; count: number };

/** Every histogram series in a run's scrapes (cumulative counts by `le`, ascending), with new observations. */
function histogramCases(scrapes: readonly string[]): SeriesCase[] {
  const byKey = new Map<string, { name: string; les: string[]; points: DraftPoint[] }>();
  for (const text of scrapes) {
    for (const family of parsePrometheusText(text)) {
      for (const h of family.histograms ?? []) {
        const key = `${family.name}${JSON.stringify(h.labels)}`;
        const entry = byKey.get(key) ?? { name: key, les: [], points: [] };
        entry.les = h.buckets.map((b) => b.leText ?? String(b.le));
        const buckets = new Map(h.buckets.map((b) => [b.leText ?? String(b.le), b.count]));
        entry.points.push({ buckets, sum: h.sum, count: h.count });
        byKey.set(key, entry);
      }
    }
  }
  return [...byKey.values()]
    .filter((e) => e.points.length > 1 && e.points[e.points.length - 1].count > e.points[0].count)
    .map((e) => ({
      name: e.name,
      les: e.les,
      points: e.points.map((p) => ({
        cumulative: e.les.map((le) => p.buckets.get(le) ?? 0),
        sum: p.sum,
        count: p.count,
      })),
    }));
}

/** infermeter's and AIPerf's own estimator (its Python code) on the same series: the largest relative difference. */
async function sameDataCheck(scrapes: readonly string[]): Promise<{ series: number; worst: number } | string> {
  const cases = histogramCases(scrapes);
  try {
    await Deno.stat(PYTHON);
  } catch {
    return `no AIPerf Python at ${PYTHON} (--python)`;
  }
  const child = new Deno.Command(PYTHON, {
    args: [join(ROOT, "scripts/parity/capture_histogram_cases.py"), "--stdin"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(JSON.stringify({ cases })));
  await writer.close();
  const out = await child.output();
  if (!out.success) return `AIPerf's estimator failed: ${new TextDecoder().decode(out.stderr).slice(-500)}`;
  const theirs = JSON.parse(new TextDecoder().decode(out.stdout)).cases as { aiperf: Record<string, number> | null }[];
  let worst = 0;
  cases.forEach((c, i) => {
    const bounds = c.les.map((le) => ({ le, bound: le === "+Inf" ? Infinity : Number(le) }));
    const first = c.points[0];
    const last = c.points[c.points.length - 1];
    const ours = estimatePercentiles(
      bounds,
      last.cumulative.map((v, k) => v - first.cumulative[k]),
      last.sum - first.sum,
      last.count - first.count,
      learnBucketStatistics(c.points),
    );
    for (const [stat, t] of Object.entries(theirs[i].aiperf ?? {})) {
      const o = ours?.[stat];
      const diff = o === undefined ? Infinity : Math.abs(o - t) / Math.max(1e-12, Math.abs(t));
      worst = Math.max(worst, t === 0 && o === 0 ? 0 : diff);
    }
  });
  return { series: cases.length, worst };
}

function count(s: Side): number {
  return s.jsonl.split("\n").filter((l) => l !== "").length;
}

async function compareScenario(scenario: Scenario, work: string): Promise<ScenarioResult> {
  const theirs = FROM_FIXTURES
    ? await side(join(FIXTURES, scenario.name), await readText(join(FIXTURES, scenario.name, "console_stdout.txt")))
    : await (async () => {
      const r = await runScenario(scenario, "aiperf", work, AIPERF);
      return await side(r.artifacts, r.run.stdout);
    })();
  const mine = await runScenario(scenario, "infermeter", work, AIPERF, { scrapeEveryMs: 333 });
  const ours = await side(mine.artifacts, mine.run.stdout);
  const failures: string[] = [];
  const shapes = compareShapes(theirs, ours);
  for (const m of shapes) if (m.missing.length > 0) failures.push(`${m.what}: missing ${m.missing.join(", ")}`);

  const isl: string[] = [];
  const t = islByTurn(readJsonlText(theirs.jsonl));
  const o = islByTurn(readJsonlText(ours.jsonl));
  if (t.size > 1 || o.size > 1) {
    for (const turn of [...new Set([...t.keys(), ...o.keys()])].sort((a, b) => a - b)) {
      const a = t.get(turn);
      const b = o.get(turn);
      const gap = (x?: { isl: number[]; server: number[] }) =>
        x === undefined ? "—" : x.isl.map((v, i) => v - x.server[i]).join("/");
      isl.push(
        `| ${turn} | ${a?.isl.join("/") ?? "—"} | ${a?.server.join("/") ?? "—"} | ${gap(a)} | ${
          b?.isl.join("/") ?? "—"
        } | ${b?.server.join("/") ?? "—"} | ${gap(b)} |`,
      );
      // The ISL counts what the request carried: at least the server's per-message count, one token more at most
      // per message boundary (texts joined by a space), as AIPerf's.
      if (b !== undefined && b.isl.some((v, i) => v < b.server[i] || v - b.server[i] > 2 * turn)) {
        failures.push(`multi-turn ISL of turn ${turn} is off the server's counts: ${b.isl} vs ${b.server}`);
      }
    }
  }
  const percentiles = theirs.serverMetrics && ours.serverMetrics
    ? comparePercentiles(theirs.serverMetrics, ours.serverMetrics)
    : [];
  // Two runs, two sets of server-side observations: an estimate more than a bucket from AIPerf's counts as a
  // failure only where the observations it interpolates between sit within a bucket of each other in both runs.
  const dataDiffer: string[] = [];
  for (const p of percentiles) {
    if (p.withinOneBucket) continue;
    const line = `${p.metric} ${p.stat}: ${fmt(p.ours)} vs AIPerf ${
      fmt(p.theirs)
    } (the observations it lies between are ${p.rankBucketsApart ?? "?"} buckets apart in the two runs)`;
    if (p.rankBucketsApart !== undefined && p.rankBucketsApart > 1) dataDiffer.push(line);
    else failures.push(line);
  }
  const sameData = await sameDataCheck(mine.scrapes);
  if (typeof sameData === "string") failures.push(sameData);
  else if (sameData.worst > 1e-9) failures.push(`the estimators differ on the same data by ${sameData.worst}`);
  const requests = { theirs: count(theirs), ours: count(ours) };
  if (scenario.name === "file_default_count" && requests.theirs !== requests.ours) {
    failures.push(`file dataset without a bound: ${requests.ours} requests vs AIPerf ${requests.theirs}`);
  }
  return { scenario, shapes, isl, percentiles, dataDiffer, sameData, requests, failures };
}

function fmt(x: number | undefined): string {
  return x === undefined ? "—" : x.toPrecision(4);
}

function list(items: readonly string[]): string {
  return items.length === 0 ? "none" : items.map((x) => `\`${x}\``).join(", ");
}

function render(results: readonly ScenarioResult[], command: string, version: string): string {
  const date = new Date().toISOString().slice(0, 10);
  const lines = [
    SECTION_START,
    "## Side-by-side check against AIPerf 0.13",
    "",
    `Run on ${date} with \`${command}\` (AIPerf ${version}): both tools ran each scenario against a fresh ` +
    "`serve-sim --usage-details --tokenizer tests/fixtures/tiny_bpe` (OpenAI usage details on, prompt tokens " +
    "counted with the tokenizer both clients use). Missing = AIPerf writes it and infermeter does not; extra = " +
    "only infermeter writes it.",
    "",
  ];
  for (const r of results) {
    lines.push(`### ${r.scenario.name}: ${r.scenario.about}`, "");
    lines.push("| Output | Missing | Extra | Order |", "| --- | --- | --- | --- |");
    for (const m of r.shapes) {
      lines.push(`| ${m.what} | ${list(m.missing)} | ${list(m.extra)} | ${m.sameOrder ? "same" : "differs"} |`);
    }
    lines.push("", `Requests: AIPerf ${r.requests.theirs}, infermeter ${r.requests.ours}.`, "");
    if (r.isl.length > 0) {
      lines.push(
        "ISL per turn against the server's `usage.prompt_tokens` (each request of the turn; gap = ISL − server):",
        "",
        "| Turn | AIPerf ISL | server | gap | infermeter ISL | server | gap |",
        "| --: | --- | --- | --- | --- | --- | --- |",
        ...r.isl,
        "",
      );
    }
    const checked = r.percentiles.filter((p) => p.ours !== undefined);
    if (r.percentiles.length > 0) {
      const worst = checked.reduce(
        (w, p) => Math.max(w, Math.abs((p.ours ?? 0) - p.theirs) / (p.bucketWidth || 1)),
        0,
      );
      lines.push(
        `Server-metric percentile estimates: ${checked.filter((p) => p.withinOneBucket).length} of ` +
          `${r.percentiles.length} within one bucket width of AIPerf's (largest gap ${
            worst.toFixed(3)
          } bucket widths)` +
          (r.dataDiffer.length === 0
            ? "."
            : `; the others come from runs whose server saw different latencies: ${r.dataDiffer.join("; ")}.`),
        "",
      );
    }
    if (r.sameData !== undefined && typeof r.sameData !== "string") {
      lines.push(
        `Same data, both estimators (AIPerf's Python code and infermeter's, on the ${r.sameData.series} histogram ` +
          `series of the simulator's /metrics scraped every 333 ms during infermeter's run): largest relative ` +
          `difference ${r.sameData.worst.toExponential(1)}.`,
        "",
      );
    }
    lines.push(
      r.failures.length === 0 ? "Result: pass." : `Result: **${r.failures.length} failed** — ${r.failures.join("; ")}.`,
      "",
    );
  }
  lines.push(SECTION_END);
  return lines.join("\n");
}

const version = FROM_FIXTURES ? "0.13.0 (captured files)" : new TextDecoder().decode(
  (await new Deno.Command(AIPERF, { args: ["--version"], stdout: "piped", stderr: "null" }).output()).stdout,
).trim();
const work = await Deno.makeTempDir({ prefix: "parity-" });
const results: ScenarioResult[] = [];
try {
  for (const scenario of SCENARIOS) {
    console.error(`${scenario.name}…`);
    results.push(await compareScenario(scenario, work));
  }
} finally {
  await Deno.remove(work, { recursive: true });
}
// The AIPerf path is the user's own (a virtual environment with `pip install aiperf==0.13.0`).
const aiperfFlag = Deno.args.includes("--aiperf") ? " --aiperf <venv>/bin/aiperf" : "";
const command = `deno run -A scripts/parity/side_by_side.ts${aiperfFlag}${FROM_FIXTURES ? " --fixtures" : ""}${
  WRITE ? ` --write ${WRITE}` : ""
}`;
const report = render(results, command, version);
if (WRITE !== undefined) {
  const path = join(ROOT, WRITE);
  const text = await readText(path);
  const start = text.indexOf(SECTION_START);
  const end = text.indexOf(SECTION_END);
  const next = start >= 0 && end > start
    ? text.slice(0, start) + report + text.slice(end + SECTION_END.length)
    : text.trimEnd() + "\n\n" + report + "\n";
  await Deno.writeTextFile(path, next);
  console.error(`wrote ${WRITE}`);
} else {
  console.log(report);
}
Deno.exit(results.some((r) => r.failures.length > 0) ? 1 : 0);
