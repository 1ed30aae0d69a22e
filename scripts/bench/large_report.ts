/**
 * Reports of a very large run: times `plot` (PNG and SVG), `compare` and the report.html a run writes at its end
 * (`renderRunReport`, as `report_output.ts` calls it) on a run directory, each under GNU time (`/usr/bin/time -v`):
 * wall time, user and system CPU, peak RSS, and the load average before and after. Prints a Markdown table.
 *
 *   deno run -A scripts/gen/large_run.ts --dir /tmp/run10m --records 10000000   # ~27 GiB, ~20 min
 *   deno run -A scripts/bench/large_report.ts --dir /tmp/run10m [--other DIR] [--out DIR]
 *
 * `--other`: a second run to compare the large one with (besides the large run with itself, which is read once).
 * Targets: each ≤ 60 s and ≤ 1 GiB peak RSS at 10 M records. The charts' files go to --out (default a temporary
 * directory, removed at the end).
 */
import { fileURLToPath } from "node:url";
import { GNU_TIME } from "./child_runner.ts";
import { renderRunReport } from "../../src/report/run_report.ts";

const MAIN = fileURLToPath(new URL("../../main.ts", import.meta.url));
const SELF = fileURLToPath(import.meta.url);

function arg(name: string): string | undefined {
  const at = Deno.args.indexOf(`--${name}`);
  return at >= 0 && at + 1 < Deno.args.length ? Deno.args[at + 1] : undefined;
}

// Child mode: the report a run writes at its end, drawn from the run directory's exports.
const reportOf = arg("write-report");
if (reportOf !== undefined) {
  const { html } = await renderRunReport(reportOf);
  await Deno.writeTextFile(arg("to")!, html);
  Deno.exit(0);
}

const dir = arg("dir");
if (dir === undefined) {
  console.error("usage: large_report.ts --dir RUN_DIR [--other RUN_DIR] [--out DIR]");
  Deno.exit(2);
}
const out = arg("out") ?? await Deno.makeTempDir({ prefix: "large_report_" });
await Deno.mkdir(out, { recursive: true });

interface Measured {
  readonly what: string;
  readonly command: string;
  readonly exit: number;
  readonly wallS: number;
  readonly userS: number;
  readonly sysS: number;
  readonly peakMiB: number;
  readonly loadBefore: string;
  readonly loadAfter: string;
}

async function loadAverage(): Promise<string> {
  return (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
}

function timeField(text: string, label: string): number {
  const line = text.split("\n").find((l) => l.trim().startsWith(label));
  if (line === undefined) return NaN;
  const value = line.slice(line.lastIndexOf(": ") + 2).trim();
  if (!value.includes(":")) return Number(value);
  // h:mm:ss or m:ss.ss
  return value.split(":").map(Number).reduce((acc, part) => acc * 60 + part, 0);
}

async function measure(what: string, args: readonly string[]): Promise<Measured> {
  const timeFile = `${out}/time.txt`;
  const loadBefore = await loadAverage();
  const child = await new Deno.Command(GNU_TIME, {
    args: ["-v", "-o", timeFile, Deno.execPath(), ...args],
    stdout: "null",
    stderr: "piped",
  }).output();
  const loadAfter = await loadAverage();
  const text = await Deno.readTextFile(timeFile);
  if (!child.success) console.error(new TextDecoder().decode(child.stderr).slice(-2000));
  return {
    what,
    command: `deno ${args.join(" ")}`,
    exit: child.code,
    wallS: timeField(text, "Elapsed (wall clock) time"),
    userS: timeField(text, "User time (seconds)"),
    sysS: timeField(text, "System time (seconds)"),
    peakMiB: timeField(text, "Maximum resident set size (kbytes)") / 1024,
    loadBefore,
    loadAfter,
  };
}

const results = [
  await measure("plot (PNG) + report.html", ["run", "-A", MAIN, "plot", dir, "-o", `${out}/png`]),
  await measure("plot --format svg + report.html", [
    "run",
    "-A",
    MAIN,
    "plot",
    dir,
    "--format",
    "svg",
    "-o",
    `${out}/svg`,
  ]),
  await measure("report.html at the end of a run", ["run", "-A", SELF, "--write-report", dir, "--to", `${out}/r.html`]),
  await measure("compare (the run with itself)", ["run", "-A", MAIN, "compare", dir, dir]),
];
const other = arg("other");
if (other !== undefined) {
  results.push(await measure(`compare with ${other}`, ["run", "-A", MAIN, "compare", dir, other]));
}
console.log(`| What | Wall (s) | User + sys CPU (s) | Peak RSS (MiB) | Load average before → after | Exit |`);
console.log(`| ---- | -------: | -----------------: | -------------: | --------------------------- | ---: |`);
for (const r of results) {
  console.log(
    `| ${r.what} | ${r.wallS.toFixed(1)} | ${r.userS.toFixed(1)} + ${r.sysS.toFixed(1)} | ${r.peakMiB.toFixed(0)} | ` +
      `${r.loadBefore} → ${r.loadAfter} | ${r.exit} |`,
  );
}
for (const r of results) console.log(`${r.what}: ${r.command}`);
if (arg("out") === undefined) await Deno.remove(out, { recursive: true });
Deno.exit(results.every((r) => r.exit === 0) ? 0 : 1);
