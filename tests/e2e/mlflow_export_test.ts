/**
 * `--mlflow-tracking-uri` against MLflow's REST API on loopback (`_mlflow_fake.ts`, strict about MLflow's limits):
 * the run, its live and summary metrics, AIPerf's parameters and tags, the result files byte for byte, the credential
 * sent yet never shown, and a server that fails or is absent never failing the run. `scripts/tracking/
 * check_real_receivers.ts` runs the same upload against a real `mlflow server`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, readJson, runCli, startSim, tempDir, unusedPort, walkFiles } from "./cli_harness.ts";
import { fakeMlflow } from "./_mlflow_fake.ts";

const TOKEN = "mlflow-s3cr3t";

function profile(cwd: string, sim: string, tracking: string, extra: readonly string[] = []) {
  return runCli([
    "profile",
    "-m",
    "m",
    "--url",
    sim,
    "--streaming",
    "--request-count",
    "8",
    "--concurrency",
    "2",
    "--warmup-request-count",
    "2",
    "--artifact-dir",
    "art",
    "--mlflow-tracking-uri",
    tracking,
    "--otel-export-interval",
    "0.2",
    ...extra,
  ], { cwd, timeoutMs: 90_000, env: { MLFLOW_TRACKING_TOKEN: TOKEN } });
}

Deno.test("mlflow upload creates AIPerf's run: live and summary metrics, parameters, tags and the result files", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "5", "--itl", "1"]);
  await using mlflow = fakeMlflow();
  const run = await profile(tmp.path, sim.url, mlflow.url, [
    "--mlflow-experiment",
    "bench",
    "--mlflow-tag",
    "team:perf",
    "--mlflow-parent-run-id",
    "0123456789abcdef",
  ]);
  assertExit(run, 0);
  assert.match(run.stderr, /MLflow parent run 0123456789abcdef does not exist/);
  assert.deepEqual([...mlflow.authorizations], [`Bearer ${TOKEN}`]);
  assert.equal(mlflow.runs.length, 1);
  const [r] = mlflow.runs;
  const art = join(tmp.path, "art");
  const summary = await readJson(join(art, "profile_export_aiperf.json"));
  const benchmarkId = summary.benchmark_id as string;
  assert.equal(mlflow.experiments.get("bench"), r.experimentId);
  assert.equal(r.name, `infermeter-${benchmarkId.slice(0, 8)}`);
  assert.equal(r.status, "FINISHED");
  assert.equal(r.tags.get("mlflow.parentRunId"), undefined);
  assert.equal(r.tags.get("team"), "perf");
  assert.equal(r.tags.get("benchmark_id"), benchmarkId);
  assert.equal(r.tags.get("aiperf.was_cancelled"), "false");
  assert.deepEqual(Object.fromEntries([...r.params].filter(([k]) => k !== "aiperf.cli_command")), {
    "endpoint.type": "chat",
    "endpoint.models": "m",
    "endpoint.urls": sim.url,
    "output.artifact_directory": "art",
    "timing.mode": "concurrency",
    "loadgen.concurrency": "2",
    "loadgen.request_count": "8",
  });
  assert.match(r.params.get("aiperf.cli_command")!, /^infermeter profile /);

  // Summary metrics: AIPerf's keys, the JSON export's values.
  const summaryOf = (key: string) => r.metrics.filter((m) => m.key === key).map((m) => m.value);
  const latency = summary.request_latency as Record<string, number>;
  assert.deepEqual(summaryOf("request_latency"), [latency.avg]);
  assert.deepEqual(summaryOf("request_latency.p99"), [latency.p99]);
  assert.deepEqual(summaryOf("request_latency.count"), [8]);
  assert.deepEqual(summaryOf("request_count"), [8]);
  assert.deepEqual(summaryOf("aiperf.completed_requests"), [8]);
  // Live metrics: one value per request (warmup too), on steps that only go up.
  const live = r.metrics.filter((m) => m.key.startsWith("live."));
  assert.equal(live.filter((m) => m.key === "live.gen_ai.client.operation.duration").length, 10);
  assert.ok(live.every((m, i) => i === 0 || m.step > live[i - 1].step), "live steps increase");
  assert.deepEqual(live.filter((m) => m.key === "live.aiperf.timing.requests.completed.profiling").at(-1)?.value, 8);

  // Files: AIPerf's globs, byte for byte; the metadata written, listed and uploaded last.
  const bytes = (path: string) => Deno.readFile(join(art, path));
  assert.deepEqual(r.artifacts.get("exports/profile_export_aiperf.json"), await bytes("profile_export_aiperf.json"));
  assert.deepEqual(r.artifacts.get("exports/profile_export.jsonl"), await bytes("profile_export.jsonl"));
  assert.ok(r.artifacts.has("plots/report.html"));
  assert.ok(!r.artifacts.has("exports/profile_export_console.txt"), "AIPerf's globs leave the console text out");
  const metadata = await readJson(join(art, "mlflow_export.json"));
  assert.deepEqual(r.artifacts.get("exports/mlflow_export.json"), await bytes("mlflow_export.json"));
  assert.equal(metadata.run_id, r.id);
  assert.equal(metadata.experiment, "bench");
  assert.equal(metadata.parent_run_id, null);
  assert.equal(metadata.live_streaming, true);
  assert.ok((metadata.metric_keys as string[]).includes("time_to_first_token.p50"));
  assert.ok((metadata.uploaded_artifacts as string[]).includes("profile_export_aiperf.csv"));
  const manifest = await readJson<{ files: { role: string; path: string }[] }>(join(art, "run_manifest.json"));
  assert.ok(manifest.files.some((f) => f.role === "mlflow_export_json" && f.path === "mlflow_export.json"));

  assert.ok(!run.stdout.includes(TOKEN) && !run.stderr.includes(TOKEN));
  for (const file of await walkFiles(tmp.path)) {
    assert.ok(!(await Deno.readTextFile(join(tmp.path, file))).includes(TOKEN), `${file} leaks the token`);
  }
});

Deno.test("mlflow upload to a failing or absent server warns and leaves the run and its files whole", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "2", "--itl", "0.2"]);
  await using failing = fakeMlflow();
  failing.failWith = 503;
  for (const [name, url] of [["failing", failing.url], ["absent", `http://127.0.0.1:${unusedPort()}`]] as const) {
    const cwd = join(tmp.path, name);
    await Deno.mkdir(cwd);
    const run = await profile(cwd, sim.url, url, ["--mlflow-timeout", "5"]);
    assertExit(run, 0);
    assert.match(run.stderr, /could not start the MLflow run/);
    assert.match(run.stderr, /the MLflow upload to http:\/\/127\.0\.0\.1:\d+ failed/);
    const summary = await readJson(join(cwd, "art", "profile_export_aiperf.json"));
    assert.equal((summary.request_count as { avg: number }).avg, 8);
    await assert.rejects(Deno.stat(join(cwd, "art", "mlflow_export.json")), Deno.errors.NotFound);
  }
  assert.ok(failing.calls.length >= 2, "the failing server was called during and after the run");
});
