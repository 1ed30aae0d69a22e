// deno-lint-ignore-file no-explicit-any -- export documents are read as loose JSON
/**
 * The embedded API over real HTTP: `profile --api-port` against `serve-sim` (vLLM-style `/metrics` and synthetic
 * DCGM GPUs), every route polled during and after the run, `/metrics` validated by the strict parser, the files
 * route attacked with traversal attempts, and a sentinel secret (API key, Authorization header, URL password)
 * looked for in every response, log line and artifact. The same run checks the server-metrics and GPU exports.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parsePrometheusText } from "../../src/telemetry/prometheus_text.ts";
import { readJson, spawnCli, startSim, tempDir, unusedPort, walkFiles } from "./cli_harness.ts";

const MARK = "s3ntin3l";
const API_KEY = `key-${MARK}`;
const BEARER = `bearer-${MARK}`;
const URL_PASSWORD = `pw-${MARK}`;
const REQUESTS = 60;
const OSL = 20;

/** One raw HTTP/1.1 GET (no client-side path normalization), returning the status code. */
async function rawGetStatus(port: number, path: string): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(new TextEncoder().encode(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`));
    let text = "";
    const buf = new Uint8Array(4096);
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      text += new TextDecoder().decode(buf.subarray(0, n));
      if (text.includes("\r\n")) break;
    }
    return Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
  } finally {
    conn.close();
  }
}

Deno.test("profile --api-port serves every route during and after the run, leaks no secret and exports telemetry", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "5", "--itl", "2", "--dcgm-gpus", "2"]);
  const port = unusedPort();
  const base = `http://127.0.0.1:${port}`;
  const bodies: string[] = [];
  const get = async (path: string) => {
    const r = await fetch(base + path);
    const text = await r.text();
    bodies.push(text);
    return { status: r.status, text, type: r.headers.get("content-type") ?? "" };
  };
  await using cli = spawnCli([
    "profile",
    "--ui",
    "none",
    "-v",
    "-m",
    "m",
    "--streaming",
    "--url",
    `http://user:${URL_PASSWORD}@127.0.0.1:${sim.port}`,
    "--api-key",
    API_KEY,
    "-H",
    `Authorization: Bearer ${BEARER}`,
    "--isl",
    "20",
    "--osl",
    String(OSL),
    "--concurrency",
    "2",
    "--request-count",
    String(REQUESTS),
    "--gpu-telemetry",
    `${sim.url}/dcgm/metrics`,
    "--console",
    "full",
    "--api-port",
    String(port),
    "--api-keep-alive",
    "20",
  ], { cwd: tmp.path, timeoutMs: 60_000 });

  // During the run.
  let during: { progress: Record<string, unknown>; metrics: string } | undefined;
  for (let i = 0; i < 400 && during === undefined; i++) {
    await new Promise((r) => setTimeout(r, 25));
    try {
      const progress = JSON.parse((await get("/api/progress")).text);
      const profiling = progress.phases?.profiling;
      if (profiling === undefined || profiling.requests_completed < 5) continue;
      const results = JSON.parse((await get("/api/results")).text);
      if (results.status !== "running") break;
      assert.equal((await get("/readyz")).status, 200);
      assert.equal((await get("/healthz")).text, "ok");
      const list = JSON.parse((await get("/api/results/list")).text);
      assert.equal(list.ready, false);
      assert.deepEqual(list.files, []);
      assert.equal((await get("/api/results/files/profile_export.jsonl")).status, 404, "files wait for the exports");
      during = { progress, metrics: (await get("/metrics")).text };
    } catch (err) {
      if (err instanceof assert.AssertionError) throw err;
    }
  }
  assert.ok(during !== undefined, `never saw the run in progress; stderr:\n${cli.stderrSoFar()}`);
  const live = parsePrometheusText(during.metrics);
  assert.ok(live.every((f) => f.name.startsWith("infermeter_")), live.map((f) => f.name).join(", "));
  assert.ok(live.some((f) => f.name === "infermeter_requests_completed_total"));
  const liveJson = JSON.parse((await get("/api/metrics")).text);
  assert.equal(liveJson.model, "m");
  assert.ok(liveJson.metrics.request_count.value > 0);

  // After the run (the API stays up for --api-keep-alive).
  let results: Record<string, unknown> = {};
  for (let i = 0; i < 400; i++) {
    results = JSON.parse((await get("/api/results")).text);
    if (results.status !== "running") break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(results.status, "complete");
  const final = results.results as Record<string, { avg: number }>;
  assert.equal(final.request_count.avg, REQUESTS);
  const progress = JSON.parse((await get("/api/progress")).text);
  assert.equal(progress.phases.profiling.requests_completed, REQUESTS);
  assert.equal(progress.results_exported, true);
  const workers = JSON.parse((await get("/api/workers")).text);
  assert.equal(workers.workers.worker_0.task_stats.total, REQUESTS);
  const run = JSON.parse((await get("/api/run")).text);
  assert.match(run.cli_command, /--api-key '<redacted>'/);
  assert.match(run.cli_command, /Authorization: <redacted>/);
  const config = JSON.parse((await get("/api/config")).text);
  assert.equal(config.endpoint.api_key, undefined);
  const prom = parsePrometheusText((await get("/metrics")).text);
  const done = prom.find((f) => f.name === "infermeter_requests_completed_total")!;
  assert.equal(done.samples.find((s) => s.labels.phase === "profiling")?.value, REQUESTS);

  const list = JSON.parse((await get("/api/results/list")).text);
  assert.equal(list.ready, true);
  const names = (list.files as { name: string }[]).map((f) => f.name);
  for (const name of ["profile_export_aiperf.json", "server_metrics_export.json", "server_metrics_export.csv"]) {
    assert.ok(names.includes(name), `${name} not listed: ${names.join(", ")}`);
  }
  const file = await get("/api/results/files/profile_export_aiperf.json");
  assert.equal(file.status, 200);
  assert.equal(JSON.parse(file.text).request_count.avg, REQUESTS);
  assert.equal((await get("/api/results/files/logs/infermeter.log")).status, 200);
  assert.equal((await get("/api/results/files/nothing.json")).status, 404);

  // No way out of the artifact directory.
  const dir = join(tmp.path, "artifacts", "m-chat-concurrency2");
  await Deno.symlink("/etc/hostname", join(dir, "escape.txt"));
  for (
    const path of [
      "/api/results/files/../../../etc/hostname",
      "/api/results/files/%2e%2e/%2e%2e/%2e%2e/etc/hostname",
      "/api/results/files/..%2f..%2f..%2fetc%2fhostname",
      "/api/results/files/%2Fetc%2Fhostname",
      "/api/results/files//etc/hostname",
      "/api/results/files/logs/..%2f..%2f..%2f..%2fetc%2fhostname",
      "/api/results/files/escape.txt",
    ]
  ) {
    const status = await rawGetStatus(port, path);
    assert.ok(status === 400 || status === 404, `${path} answered ${status}`);
  }
  assert.equal(await rawGetStatus(port, "/api/results/files/escape.txt"), 400);

  // Docs work offline: no other host is referenced.
  const openapi = JSON.parse((await get("/openapi.json")).text);
  assert.ok(openapi.paths["/api/results/files/{filename}"]);
  for (const page of ["/docs", "/redoc"]) {
    const html = await get(page);
    assert.equal(html.status, 200);
    assert.match(html.type, /text\/html/);
    assert.ok(!/(src|href)\s*=\s*["']?(https?:)?\/\//i.test(html.text), `${page} loads from another host`);
    assert.match(html.text, /\/api\/progress/);
  }

  for (const body of bodies) assert.ok(!body.includes(MARK), `an API response leaks the secret: ${body.slice(0, 300)}`);
  cli.kill("SIGINT"); // ends the keep-alive
  const out = await cli.result;
  assert.equal(out.code, 0, out.stderr);
  assert.ok(!out.stdout.includes(MARK) && !out.stderr.includes(MARK), "stdout or stderr leaks the secret");
  for (const f of await walkFiles(tmp.path)) {
    if (f.endsWith("escape.txt")) continue;
    assert.ok(!(await Deno.readTextFile(join(tmp.path, f))).includes(MARK), `${f} leaks the secret`);
  }
  assert.match(out.stdout, /Server Metrics/);
  assert.match(out.stdout, /GPU Telemetry Summary/);

  // Server metrics: the counters' increase over the window is exactly what the run sent.
  const server = await readJson<Record<string, any>>(join(dir, "server_metrics_export.json"));
  const gen = server.metrics["vllm:generation_tokens"];
  assert.equal(gen.type, "counter");
  assert.equal(gen.series[0].stats.total, REQUESTS * OSL);
  const success = server.metrics["vllm:request_success"].series.find((s: any) => s.labels.finished_reason === "length");
  assert.equal(success.stats.total, REQUESTS);
  const ttft = server.metrics["vllm:time_to_first_token_seconds"].series[0].stats;
  assert.equal(ttft.count, REQUESTS);
  assert.ok(ttft.p50_estimate > 0.001 && ttft.p50_estimate <= 0.04, `TTFT p50 estimate ${ttft.p50_estimate}`);
  const csv = await Deno.readTextFile(join(dir, "server_metrics_export.csv"));
  assert.match(csv, /^# AIPerf Server Metrics Export \(CSV\)\n/);
  assert.match(csv, /counter,vllm:generation_tokens,tokens,1200\.0000,/);

  // GPU telemetry: two simulated GPUs, energy and tokens per joule.
  const summary = await readJson<Record<string, any>>(join(dir, "profile_export_aiperf.json"));
  const gpus = summary.telemetry_data.gpus;
  assert.equal(gpus.length, 2);
  assert.ok(gpus[0].energy_consumption.total > 0 && gpus[0].energy_consumption.from_counter);
  assert.ok(gpus[0].metrics.gpu_power_usage.avg >= 60);
  assert.ok(summary.telemetry_data.efficiency.output_tokens_per_joule.avg > 0);
});

Deno.test("without --api-port nothing listens, and --no-server-metrics writes no server-metrics export", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "1", "--itl", "0.1"]);
  await using cli = spawnCli(
    ["profile", "--ui", "none", "-m", "m", "--url", sim.url, "--request-count", "3", "--no-server-metrics"],
    { cwd: tmp.path },
  );
  const out = await cli.result;
  assert.equal(out.code, 0, out.stderr);
  assert.doesNotMatch(out.stderr, /API server/);
  const files = await walkFiles(tmp.path);
  assert.ok(!files.some((f) => f.includes("server_metrics")), files.join(", "));
});
