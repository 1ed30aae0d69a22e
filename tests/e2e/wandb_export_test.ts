/**
 * `--wandb-project` against the W&B calls the upload makes (`_wandb_fake.ts`: W&B's server cannot run offline): the
 * run with AIPerf's configuration and tags, the metrics table in history and summary, the result files as an
 * `aiperf-run` artifact whose files and manifest match their digests, the key sent yet never shown, and a W&B that
 * fails never failing the run.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { assertExit, readJson, runCli, startSim, tempDir, walkFiles } from "./cli_harness.ts";
import { fakeWandb, md5b64 } from "./_wandb_fake.ts";

const KEY = "wandb-s3cr3t-0123456789abcdef0123456789";

function profile(cwd: string, sim: string, base: string, extra: readonly string[] = []) {
  return runCli([
    "profile",
    "-m",
    "m",
    "--url",
    sim,
    "--streaming",
    "--request-count",
    "6",
    "--concurrency",
    "2",
    "--artifact-dir",
    "art",
    "--wandb-project",
    "bench",
    ...extra,
  ], { cwd, timeoutMs: 90_000, env: { WANDB_API_KEY: KEY, WANDB_BASE_URL: base } });
}

Deno.test("wandb upload makes AIPerf's run: configuration, tags, the metrics table and an aiperf-run artifact", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "5", "--itl", "1"]);
  await using wandb = fakeWandb(KEY);
  const run = await profile(tmp.path, sim.url, wandb.url, ["--wandb-tag", "nightly,gpu", "--wandb-run-name", "r1"]);
  assertExit(run, 0);
  assert.match(run.stderr, /Uploaded the run to Weights & Biases: r1 with \d+ files/);
  const art = join(tmp.path, "art");
  const summary = await readJson(join(art, "profile_export_aiperf.json"));
  const benchmarkId = summary.benchmark_id as string;
  assert.deepEqual(wandb.operations.slice(0, 3), ["Viewer", "UpsertBucket", "CreateRunFiles"]);
  assert.equal(wandb.runs.length, 1);
  const [r] = wandb.runs;
  assert.match(r.id, /^[a-z0-9]{8}$/);
  assert.deepEqual([r.entity, r.project, r.displayName], ["team-e", "bench", "r1"]);
  assert.deepEqual(r.tags, ["infermeter-0.1.0", `benchmark-${benchmarkId.slice(0, 8)}`, "nightly", "gpu"]);
  assert.deepEqual(r.config.endpoint.value, (summary.input_config as Record<string, unknown>).endpoint);
  assert.match(String(r.config["aiperf.cli_command"].value), /^infermeter profile /);

  // The table: the console's main rows, AIPerf's labels and rounding, referred to by history and summary.
  const [history, end] = r.stream;
  const files = history.files as Record<string, { content: string[] }>;
  const row = JSON.parse(files["wandb-history.jsonl"].content[0]);
  assert.deepEqual(JSON.parse(files["wandb-summary.json"].content[0]), row);
  const ref = row.summary_metrics;
  assert.equal(ref._type, "table-file");
  const table = JSON.parse(new TextDecoder().decode(r.files.get(ref.path)!));
  assert.equal(ref.sha256, createHash("sha256").update(r.files.get(ref.path)!).digest("hex"));
  assert.equal(ref.path, `media/table/summary_metrics_0_${ref.sha256.slice(0, 20)}.table.json`);
  assert.deepEqual(table.columns, ["Metric", "avg", "min", "max", "p99", "p90", "p50", "std"]);
  const ttft = table.data.find((d: unknown[]) => d[0] === "TTFT (ms)");
  const jsonTtft = summary.time_to_first_token as Record<string, number>;
  assert.deepEqual(ttft.slice(1, 4), [jsonTtft.avg, jsonTtft.min, jsonTtft.max].map((v) => Math.round(v * 100) / 100));
  assert.equal(ref.nrows, table.data.length);
  assert.deepEqual(end, { complete: true, exitcode: 0, uploaded: [ref.path, "wandb-summary.json"] });

  // The artifact: every default-glob file, uploaded with its digest, listed in a manifest, committed.
  assert.equal(wandb.artifacts.length, 1);
  const [a] = wandb.artifacts;
  assert.equal(a.input.artifactTypeName, "aiperf-run");
  assert.equal(a.input.artifactCollectionName, `aiperf-${r.id}`);
  assert.ok(a.committed);
  const names = [...a.files.keys()].sort();
  // AIPerf's globs over the directory (the manifest is written after the upload, so it is not among them).
  const expected = (await walkFiles(art))
    .filter((f) => (/^[^/]+\.(json|csv|jsonl)$/.test(f) || f.endsWith(".html")) && f !== "run_manifest.json")
    .sort();
  assert.deepEqual(names, expected);
  assert.ok(names.includes("profile_export_aiperf.json") && names.includes("report.html"));
  for (const name of names) {
    const local = await Deno.readFile(join(art, name));
    assert.deepEqual(a.files.get(name)!.data, local, `${name} uploaded as written`);
    assert.equal((a.manifest!.contents as Record<string, { digest: string }>)[name].digest, md5b64(local));
  }
  const digest = createHash("md5").update("wandb-artifact-manifest-v1\n");
  for (const name of names) digest.update(`${name}:${a.files.get(name)!.md5}\n`);
  assert.equal(a.input.digest, digest.digest("hex"));

  assert.ok(!run.stdout.includes(KEY) && !run.stderr.includes(KEY));
  for (const file of await walkFiles(tmp.path)) {
    assert.ok(!(await Deno.readTextFile(join(tmp.path, file))).includes(KEY), `${file} leaks the W&B key`);
  }
});

Deno.test("wandb upload that W&B refuses warns and leaves the run and its files whole", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "2", "--itl", "0.2"]);
  await using wandb = fakeWandb("another-key");
  const run = await profile(tmp.path, sim.url, wandb.url);
  assertExit(run, 0);
  assert.match(run.stderr, /the Weights & Biases upload to http:\/\/127\.0\.0\.1:\d+ failed \(HTTP 401/);
  const summary = await readJson(join(tmp.path, "art", "profile_export_aiperf.json"));
  assert.equal((summary.request_count as { avg: number }).avg, 6);
  assert.equal(wandb.runs.length, 0);
});
