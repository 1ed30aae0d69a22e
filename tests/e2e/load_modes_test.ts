/**
 * Load shapes and output placement: an open-loop --request-rate run, a --benchmark-duration run, custom export
 * names and directories, and the self-contained `demo` command.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  assertExit,
  consoleTableRows,
  exists,
  metric,
  type MetricBlock,
  rawInteger,
  readJson,
  readJsonl,
  recordValue,
  runCli,
  spawnCli,
  startSim,
  tempDir,
  walkFiles,
} from "./cli_harness.ts";

const DIR = "artifacts/m-chat-concurrency1";

Deno.test("profile --request-rate 50 sends open-loop arrivals and reports their schedule lateness", async () => {
  await using tmp = await tempDir();
  // Each answer takes ~100 ms while arrivals are ~20 ms apart: only an open loop keeps several in flight.
  await using sim = await startSim(["--ttft", "80", "--itl", "2"]);
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "m", "--streaming", "--url", sim.url, "--isl", "20", "--osl", "10",
    "--request-rate", "50", "--request-count", "20", "--random-seed", "5",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  // No --concurrency with --request-rate: the directory is named after the rate, as AIPerf's (a Python float).
  const dir = join(tmp.path, "artifacts/m-chat-request_rate50.0");
  const summary = await readJson<Record<string, unknown> & { input_config: { phases: Record<string, unknown>[] } }>(
    join(dir, "profile_export_aiperf.json"),
  );
  assert.equal(metric(summary, "request_count").avg, 20);
  assert.equal(summary.input_config.phases[0].rate, 50);

  // Lateness = actual start − scheduled start, one value per request; never negative (nothing starts early).
  const infermeter = summary.infermeter as Record<string, unknown>;
  const lateness = infermeter.schedule_lateness as MetricBlock;
  assert.ok(lateness, `no schedule_lateness in ${JSON.stringify(infermeter)}`);
  assert.equal(lateness.unit, "ms");
  assert.equal(lateness.count, 20);
  assert.ok(lateness.min! >= 0, `a request started ${-lateness.min!} ms before its schedule`);
  // A closed loop (each request waiting ~100 ms for the one before) would be ~800 ms late at the median; a busy
  // machine's stalls reach ~120 ms.
  assert.ok(lateness.p50! < 300, `median lateness ${lateness.p50} ms: the schedule was not kept`);
  // The console says what the client itself cost, with the same lateness.
  assert.match(
    run.stdout,
    new RegExp(
      `Client CPU: \\d+% of one core \\(1 engine thread\\); schedule lateness p50 ${lateness.p50!.toFixed(3)} ms`,
    ),
  );

  // 20 arrivals at 50/s take ~0.4 s; a closed loop would need 20 × 100 ms = 2 s.
  const duration = metric(summary, "benchmark_duration").avg;
  assert.ok(duration < 1.5, `benchmark_duration ${duration} s: requests were not sent open-loop`);
  const spans = (await readJsonl(join(dir, "profile_export.jsonl"))).map((l) => ({
    start: rawInteger(l.raw, "request_start_ns"),
    end: rawInteger(l.raw, "request_end_ns"),
  }));
  const maxInFlight = Math.max(...spans.map((a) => spans.filter((b) => b.start <= a.start && b.end > a.start).length));
  assert.ok(maxInFlight >= 2, `at most ${maxInFlight} request(s) in flight`);
});

Deno.test("profile --benchmark-duration 1 stops sending after about one second", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "5", "--itl", "1"]);
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "m", "--streaming", "--url", sim.url, "--isl", "20", "--osl", "10",
    "--benchmark-duration", "1",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  assert.ok(run.wallMs < 15_000, `the run took ${run.wallMs.toFixed(0)} ms`);
  const summary = await readJson(join(tmp.path, DIR, "profile_export_aiperf.json"));
  const duration = metric(summary, "benchmark_duration").avg;
  assert.ok(duration >= 0.95 && duration < 2, `benchmark_duration ${duration} s`);
  const count = metric(summary, "request_count").avg;
  assert.ok(count >= 5, `only ${count} requests in one second of ~15 ms requests`);
  const lines = await readJsonl(join(tmp.path, DIR, "profile_export.jsonl"));
  assert.equal(lines.length, count);
  const starts = lines.map((l) => rawInteger(l.raw, "request_start_ns"));
  const spanNs = starts.reduce((a, b) => (b > a ? b : a)) - starts.reduce((a, b) => (b < a ? b : a));
  assert.ok(spanNs <= 1_100_000_000n, `requests were started over ${Number(spanNs) / 1e6} ms, beyond the 1 s budget`);
});

Deno.test("profile --profile-export-prefix myrun names the export files after it", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--fast"]);
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "m", "--url", sim.url, "--isl", "20", "--osl", "5", "--request-count", "3",
    "--profile-export-prefix", "myrun",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  const files = await walkFiles(join(tmp.path, DIR));
  for (const f of ["myrun.json", "myrun.csv", "myrun.jsonl", "inputs.json"]) {
    assert.ok(files.includes(f), `${f} missing from ${files.join(", ")}`);
  }
  assert.equal(files.some((f) => f.startsWith("profile_export")), false, `default names remain: ${files.join(", ")}`);
  assert.equal(metric(await readJson(join(tmp.path, DIR, "myrun.json")), "request_count").avg, 3);
  assert.equal((await readJsonl(join(tmp.path, DIR, "myrun.jsonl"))).length, 3);
  assert.match(run.stdout, new RegExp(`JSON Export: ${DIR}/myrun\\.json`));
});

Deno.test("profile --artifact-dir out/x writes into that directory as is", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--fast"]);
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "m", "--url", sim.url, "--isl", "20", "--osl", "5", "--request-count", "3",
    "--artifact-dir", "out/x",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  for (const f of ["profile_export_aiperf.json", "profile_export_aiperf.csv", "profile_export.jsonl", "inputs.json"]) {
    assert.ok(await exists(join(tmp.path, "out/x", f)), `out/x/${f} missing`);
  }
  assert.equal(await exists(join(tmp.path, "artifacts")), false, "nothing under the default artifacts/");
  assert.match(run.stdout, /JSON Export: out\/x\/profile_export_aiperf\.json/);
  const summary = await readJson<{ input_config: { artifacts: { dir: string } } }>(
    join(tmp.path, "out/x/profile_export_aiperf.json"),
  );
  assert.equal(summary.input_config.artifacts.dir, "out/x");
});

Deno.test("demo runs a benchmark against its own simulated server, prints the table and stops the server", async () => {
  await using tmp = await tempDir();
  // The demo's server inherits the tag: should the demo hang and be killed, its server is stopped too.
  const tag = crypto.randomUUID();
  const run = await runCli(["demo"], { cwd: tmp.path, timeoutMs: 40_000, env: { E2E_PROCESS_TAG: tag } })
    .finally(() => stopTaggedProcesses(tag));
  assertExit(run, 0);
  const rows = consoleTableRows(run.stdout);
  assert.ok(rows.has("Time to First Token (ms)"));
  assert.equal(rows.get("Request Count (requests)")?.[0], "40.00");
  const dir = "artifacts/sim-model-chat-concurrency4";
  assert.equal(metric(await readJson(join(tmp.path, dir, "profile_export_aiperf.json")), "request_count").avg, 40);

  // The demo's server must be gone once the demo exits.
  const url = /listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(run.stderr);
  assert.ok(url, `the demo names its server's address on stderr:\n${run.stderr}`);
  await assert.rejects(async () => {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(url[2]) });
    conn.close();
  }, Deno.errors.ConnectionRefused);
});

Deno.test("profile --export-level summary writes the summary files but no per-record JSONL", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--fast"]);
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "m", "--url", sim.url, "--isl", "20", "--osl", "5", "--request-count", "3",
    "--export-level", "summary",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  const files = await walkFiles(join(tmp.path, DIR));
  assert.ok(files.includes("profile_export_aiperf.json") && files.includes("profile_export_aiperf.csv"));
  assert.equal(files.includes("profile_export.jsonl"), false, `files: ${files.join(", ")}`);
  assert.doesNotMatch(run.stdout, /JSONL Export/);
});

Deno.test({
  name: "profile --export-level raw also writes the raw requests and responses",
  fn: async () => {
    await using tmp = await tempDir();
    await using sim = await startSim(["--fast"]);
    // deno-fmt-ignore
    const run = await runCli([
      "profile", "--ui", "none", "-m", "m", "--url", sim.url, "--isl", "20", "--osl", "5", "--request-count", "3",
      "--export-level", "raw",
    ], { cwd: tmp.path });
    assertExit(run, 0);
    const raw = await readJsonl(join(tmp.path, DIR, "profile_export_raw.jsonl"));
    assert.equal(raw.length, 3);
  },
});

Deno.test({
  name: "demo stopped with SIGTERM also stops its simulated server",
  fn: async () => {
    await using tmp = await tempDir();
    // Every process of this run carries the tag, so a leaked server can be found and stopped afterwards.
    const tag = crypto.randomUUID();
    await using demo = spawnCli(["demo"], { cwd: tmp.path, env: { E2E_PROCESS_TAG: tag } });
    try {
      let url: RegExpExecArray | null = null;
      const deadline = performance.now() + 20_000;
      while (!(url = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(demo.stderrSoFar())) && !demo.hasExited()) {
        assert.ok(performance.now() < deadline, "the demo did not start its server within 20 s");
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.ok(url, `the demo exited before starting its server:\n${demo.stderrSoFar()}`);
      demo.kill("SIGTERM");
      await demo.result;
      // The server may take its shutdown grace (1 s) to close the port.
      let open = true;
      for (let i = 0; i < 40 && open; i++) {
        await new Promise((r) => setTimeout(r, 100));
        open = await portAccepts(Number(url[1]));
      }
      assert.equal(open, false, "the demo's server still listens after the demo was terminated");
    } finally {
      await stopTaggedProcesses(tag);
    }
  },
});

async function portAccepts(port: number): Promise<boolean> {
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    conn.close();
    return true;
  } catch {
    return false;
  }
}

/** SIGTERMs every process whose environment holds E2E_PROCESS_TAG=`tag` (Linux /proc; a no-op elsewhere). */
async function stopTaggedProcesses(tag: string): Promise<void> {
  const needle = `E2E_PROCESS_TAG=${tag}`;
  try {
    for await (const entry of Deno.readDir("/proc")) {
      if (!/^\d+$/.test(entry.name)) continue;
      try {
        const environ = await Deno.readTextFile(`/proc/${entry.name}/environ`);
        if (environ.split("\0").includes(needle)) Deno.kill(Number(entry.name), "SIGTERM");
      } catch {
        // Gone already, or not ours to read.
      }
    }
  } catch {
    // No /proc.
  }
}

Deno.test("profile --workers 2 splits the load over two engine Workers and merges their records", async () => {
  await using tmp = await tempDir();
  // Answers of ~60 ms over 30 tokens: each Worker paces tokens, slices work and yields on its own socket pair.
  await using sim = await startSim(["--ttft", "30", "--itl", "1"]);
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "m", "--streaming", "--url", sim.url, "--isl", "20", "--osl", "30",
    "--extra-inputs", "ignore_eos:true", "--concurrency", "4", "--request-count", "24", "--workers", "2",
    "--random-seed", "9",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  const dir = join(tmp.path, "artifacts/m-chat-concurrency4");
  const lines = await readJsonl(join(dir, "profile_export.jsonl"));
  assert.equal(lines.length, 24);
  const workers = new Set(lines.map((l) => l.record.metadata.worker_id));
  assert.deepEqual([...workers].sort(), ["worker_0", "worker_1"]);
  assert.equal(new Set(lines.map((l) => l.record.metadata.x_request_id)).size, 24);
  for (const { record } of lines) {
    assert.equal(record.error, undefined);
    assert.equal(recordValue(record, "output_sequence_length"), 30);
    // TTFT is the server's 30 ms plus loopback and the client: never less, and not far more on an idle machine.
    const ttft = recordValue(record, "time_to_first_token");
    assert.ok(ttft >= 30 && ttft < 1_000, `TTFT ${ttft} ms`);
  }
  const summary = await readJson(join(dir, "profile_export_aiperf.json"));
  assert.equal(metric(summary, "request_count").avg, 24);
});
