/**
 * Soak: the real CLI at high concurrency for minutes against `serve-sim` injecting faults — HTTP 500s, connections
 * dropped mid-answer, answers stalled past the request timeout — then an audit (soak_audit.ts) that the server's
 * request journal and counters, the per-record export and the summary agree exactly. Exits 1 when they do not.
 *
 *   deno run -A scripts/bench/soak.ts [--minutes 10] [--concurrency 256] [--error-rate 2] [--disconnect-rate 2]
 *     [--stall-rate 1] [--stall-ms 4000] [--timeout-s 2] [--workers N] [--out DIR] [--keep] [--heap]
 *
 * Everything it writes (journal, artifacts, CLI output, audit.json) goes to --out (default a temp directory,
 * removed afterwards unless --keep or the audit fails). It also samples the CLI's resident memory every second and
 * prints it over the run with its slope (MiB per minute past the first fifth of the run): memory flat in run length
 * reads near 0; compare the peaks of a 1-minute and a 30-minute soak (`--minutes 1`, `--minutes 30`).
 *
 * `--heap` also runs the CLI under its inspector and reads its live JS heap and ArrayBuffers after a full garbage
 * collection every 10 s (`inspector_heap.ts`): the slope of that line over the run's request rate is what the CLI
 * really keeps per finished request (the RSS slope also counts garbage not yet collected). The collections pause
 * the CLI (tens of milliseconds on a busy machine), so its timings are not for reading, and a request timed out by
 * a pause can unbalance the audit's timeout line.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readLines } from "../../src/dataset/read_lines.ts";
import { startServerProcess } from "./sim_launcher.ts";
import { renderRss, summarizeRss } from "./soak_rss.ts";
import { freePort, InspectorHeap } from "./inspector_heap.ts";
import { auditSoak, type ClientSide, errorClass, type ServerSide, type SummarySide } from "./soak_audit.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const PATH = "/v1/chat/completions";

function arg(name: string, fallback: string): string {
  const at = Deno.args.indexOf(`--${name}`);
  return at >= 0 && at + 1 < Deno.args.length ? Deno.args[at + 1] : fallback;
}

const minutes = Number(arg("minutes", "10"));
const concurrency = Number(arg("concurrency", "256"));
const errorRate = Number(arg("error-rate", "2"));
const disconnectRate = Number(arg("disconnect-rate", "2"));
const stallRate = Number(arg("stall-rate", "1"));
const stallMs = Number(arg("stall-ms", "4000"));
const timeoutS = Number(arg("timeout-s", "2"));
const workers = Deno.args.includes("--workers") ? ["--workers", arg("workers", "1")] : [];
if (stallMs <= timeoutS * 1000) throw new RangeError("--stall-ms must exceed --timeout-s, so every stall times out.");
const out = Deno.args.includes("--out") ? arg("out", "") : await Deno.makeTempDir({ prefix: "infermeter_soak_" });
await Deno.mkdir(out, { recursive: true });
const journal = join(out, "journal.jsonl");
const artifacts = join(out, "artifacts");

const sim = await startServerProcess({
  label: "serve-sim",
  // deno-fmt-ignore
  argv: [
    Deno.execPath(), "run", "-A", "main.ts", "serve-sim", "--port", "0", "--ttft", "20", "--itl", "4", "--seed", "7",
    "--error-rate", String(errorRate), "--disconnect-rate", String(disconnectRate), "--stall-rate", String(stallRate),
    "--stall-ms", String(stallMs), "--record-requests", journal,
  ],
  cwd: REPO,
  listening: /serve-sim listening on (http:\/\/\S+)/,
});
console.error(`soak: ${minutes} min at concurrency ${concurrency} against ${sim.url}; output in ${out}`);

const heapPort = Deno.args.includes("--heap") ? freePort() : undefined;
// deno-fmt-ignore
const cliArgs = [
  "run", ...(heapPort === undefined ? [] : [`--inspect=127.0.0.1:${heapPort}`]), "-A", join(REPO, "main.ts"), "profile", "--ui", "none", "-m", "sim-model", "--url", sim.url, "--streaming",
  "--concurrency", String(concurrency), "--benchmark-duration", String(minutes * 60), "--isl", "64", "--osl", "32",
  "--num-dataset-entries", "2000", "--random-seed", "11", "--request-timeout-seconds", String(timeoutS),
  "--artifact-dir", artifacts, ...workers,
];
const started = Date.now();
const child = new Deno.Command(Deno.execPath(), { args: cliArgs, cwd: out, stdout: "piped", stderr: "piped" }).spawn();
// The CLI's resident memory every second (Linux): the curve over the run, and its slope.
const rss: { t: number; mib: number }[] = [];
const sampler = setInterval(() => {
  const mib = residentMiB(child.pid);
  if (mib !== undefined) rss.push({ t: (Date.now() - started) / 1000, mib });
}, 1000);
// The live heap after a full GC every 10 s while the benchmark runs (--heap).
const heap: { t: number; mib: number }[] = [];
const heapDone = heapPort === undefined ? Promise.resolve() : sampleHeap(heapPort, minutes * 60);
const cli = await child.output();
clearInterval(sampler);
await heapDone;
const wallS = (Date.now() - started) / 1000;
await Deno.writeFile(join(out, "cli_stdout.txt"), cli.stdout);
await Deno.writeFile(join(out, "cli_stderr.txt"), cli.stderr);

// Stalled answers outlive the client's timeout: wait until the server has answered everything it received.
let metrics = "";
for (let i = 0; i < 300; i++) {
  metrics = await (await fetch(`${sim.url}/metrics`)).text();
  if (/^sim_requests_in_flight 0$/m.test(metrics)) break;
  await new Promise((resolve) => setTimeout(resolve, 100));
}
await sim.stop();

const server = await serverSide(metrics, journal);
const { client, ids } = await clientSide(join(artifacts, "profile_export.jsonl"), server.ids);
const summary = summarySide(JSON.parse(await Deno.readTextFile(join(artifacts, "profile_export_aiperf.json"))));
const lines = auditSoak(server.side, client, summary);
const exitOk = cli.code === 0;
const balanced = lines.every((l) => l.ok) && exitOk;
ids.clear();

const summaryJson = JSON.parse(await Deno.readTextFile(join(artifacts, "profile_export_aiperf.json")));
const rssSummary = summarizeRss(rss, minutes * 60);
const report = [
  `Soak: ${minutes} min, concurrency ${concurrency}, faults: ${errorRate} % HTTP 500, ${disconnectRate} % dropped ` +
  `mid-answer, ${stallRate} % stalled ${stallMs} ms (request timeout ${timeoutS} s)`,
  `CLI exit ${cli.code} after ${wallS.toFixed(0)} s; ${client.records} requests, ` +
  `${summaryJson.request_throughput?.avg?.toFixed(1)} req/s, peak RSS ` +
  `${((summaryJson.infermeter?.peak_rss_bytes ?? 0) / 2 ** 20).toFixed(0)} MiB`,
  renderRss(rssSummary),
  ...(heapPort === undefined ? [] : [renderHeap(heap, minutes * 60, client.records)]),
  "",
  "| Check | Values | |",
  "| --- | --- | --- |",
  ...lines.map((l) => `| ${l.check} | ${l.values} | ${l.ok ? "ok" : "MISMATCH"} |`),
  "",
  balanced ? "AUDIT BALANCED" : `AUDIT FAILED${exitOk ? "" : ` (CLI exit ${cli.code})`}`,
].join("\n");
console.log(report);
await Deno.writeTextFile(
  join(out, "audit.json"),
  JSON.stringify({
    minutes,
    concurrency,
    balanced,
    server: server.side,
    client,
    summary,
    lines,
    rss,
    rss_summary: rssSummary ?? null,
    heap: heapPort === undefined ? null : heap,
    // The CLI's own view: its peak RSS and what its metric columns keep per finished request.
    peak_rss_bytes: summaryJson.infermeter?.peak_rss_bytes ?? null,
    retained_bytes_per_request: summaryJson.infermeter?.retained_bytes_per_request ?? null,
  }),
);
if (!balanced || Deno.args.includes("--keep") || Deno.args.includes("--out")) {
  console.error(`soak: output kept in ${out}`);
} else {
  await Deno.remove(out, { recursive: true });
}
Deno.exit(balanced ? 0 : 1);

async function sampleHeap(port: number, runSec: number): Promise<void> {
  let inspector: InspectorHeap;
  try {
    inspector = await InspectorHeap.connect(port);
  } catch (err) {
    console.error(`soak: no inspector on port ${port} (${(err as Error).message}); heap not sampled`);
    return;
  }
  try {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      const t = (Date.now() - started) / 1000;
      if (t > runSec) break;
      const bytes = await inspector.liveBytes();
      if (bytes !== undefined) heap.push({ t, mib: bytes / 2 ** 20 });
    }
  } finally {
    inspector.close();
  }
}

/** The post-GC heap samples and their slope past the first fifth, per minute and per finished request. */
function renderHeap(samples: readonly { t: number; mib: number }[], runSec: number, records: number): string {
  const s = summarizeRss(samples, runSec);
  if (s === undefined) return "Live heap + buffers after GC: too few samples";
  const perRequest = s.slopeMiBPerMin * 2 ** 20 / (records / (runSec / 60));
  return `Live heap + buffers after GC, MiB: ${
    samples.map((x) => `${x.t.toFixed(0)} s ${x.mib.toFixed(1)}`).join(", ")
  }; ` +
    `slope past the first fifth ${s.slopeMiBPerMin.toFixed(2)} MiB/min = ${perRequest.toFixed(0)} B per finished ` +
    `request (${records} requests in ${runSec} s)`;
}

/** VmRSS of a process in MiB, or undefined where /proc cannot tell. */
function residentMiB(pid: number): number | undefined {
  try {
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(Deno.readTextFileSync(`/proc/${pid}/status`))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

async function serverSide(text: string, path: string): Promise<{ side: ServerSide; ids: Set<string> }> {
  const byStatus: Record<string, number> = {};
  for (const m of text.matchAll(/^sim_requests_total\{endpoint="([^"]*)",status="(\d+)"\} (\d+)$/gm)) {
    if (m[1] === PATH) byStatus[m[2]] = Number(m[3]);
  }
  const fault = (kind: string) =>
    Number(new RegExp(`^sim_faults_total\\{kind="${kind}"\\} (\\d+)$`, "m").exec(text)?.[1] ?? 0);
  const ids = new Set<string>();
  let received = 0;
  let duplicateIds = 0;
  for await (const { text: line } of readLines(path)) {
    if (line === "") continue;
    const entry = JSON.parse(line) as { method: string; path: string; headers: Record<string, string> };
    if (entry.method !== "POST" || entry.path !== PATH) continue;
    received++;
    const id = entry.headers["x-request-id"];
    if (ids.has(id)) duplicateIds++;
    ids.add(id);
  }
  return {
    side: { received, duplicateIds, byStatus, disconnects: fault("disconnect"), stalls: fault("stall") },
    ids,
  };
}

async function clientSide(path: string, received: Set<string>): Promise<{ client: ClientSide; ids: Set<string> }> {
  const ids = new Set<string>();
  const c = { records: 0, duplicateIds: 0, unknownRecords: 0, successes: 0, http500: 0, cut: 0, timeouts: 0 };
  const other: Record<string, number> = {};
  for await (const { text } of readLines(path)) {
    if (text === "") continue;
    const record = JSON.parse(text) as {
      metadata: { x_request_id: string; was_cancelled: boolean };
      // Absent on a success (the per-record export writes `error` only for failures).
      error?: { code?: number; type: string } | null;
    };
    c.records++;
    const id = record.metadata.x_request_id;
    if (ids.has(id)) c.duplicateIds++;
    ids.add(id);
    if (!received.has(id)) c.unknownRecords++;
    const kind = record.error === undefined || record.error === null
      ? (record.metadata.was_cancelled ? "cancelled" : "ok")
      : errorClass(record.error);
    if (kind === "ok") c.successes++;
    else if (kind === "500 Internal Server Error") c.http500++;
    else if (kind === "N/A ConnectionResetError") c.cut++;
    else if (kind === "N/A TimeoutError") c.timeouts++;
    else other[kind] = (other[kind] ?? 0) + 1;
  }
  let missingRecords = 0;
  for (const id of received) if (!ids.has(id)) missingRecords++;
  return { client: { ...c, missingRecords, other }, ids };
}

function summarySide(json: Record<string, unknown>): SummarySide {
  const avg = (tag: string) => (json[tag] as { avg?: number } | undefined)?.avg ?? 0;
  const errorSummary: Record<string, number> = {};
  for (const e of (json.error_summary ?? []) as { error_details: { code?: number; type: string }; count: number }[]) {
    const key = errorClass(e.error_details);
    errorSummary[key] = (errorSummary[key] ?? 0) + e.count;
  }
  return { requestCount: avg("request_count"), errorRequestCount: avg("error_request_count"), errorSummary };
}
