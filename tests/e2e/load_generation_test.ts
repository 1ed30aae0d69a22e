/**
 * Load options seen from the server: what the CLI sent and when is read from `serve-sim`'s request journal, and
 * the exports are read as files. Service times are fixed (no jitter) unless a test needs spread.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, exists, rawInteger, readJson, readJsonl, runCli, startSim, tempDir } from "./cli_harness.ts";
import { readRequestJournal } from "../../src/sim/read_request_journal.ts";

const CHAT = "/v1/chat/completions";

Deno.test("--prefill-concurrency: never more requests waiting for a first token than the limit", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim(["--ttft", "100", "--itl", "1", "--record-requests", journal]);
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "m", "--url", sim.url, "--streaming", "--concurrency", "6",
    "--prefill-concurrency", "2", "--request-count", "12", "--osl", "3", "--artifact-dir", "out",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  await sim.stop();
  const received = (await readRequestJournal(journal)).filter((e) => e.path === CHAT).map((e) => e.received_at_ms)
    .sort((a, b) => a - b);
  assert.equal(received.length, 12);
  // A slot frees only when the first token reaches the client, at least 100 ms after the server received the
  // request: within any 90 ms after an arrival, at most 2 arrivals. Concurrency 6 alone would send 6 at once.
  const most = Math.max(...received.map((t) => received.filter((u) => u >= t && u < t + 90).length));
  assert.equal(most, 2, `arrivals ${received.map((t) => (t - received[0]).toFixed(0)).join(", ")}`);
});

Deno.test("--request-cancellation-rate/-delay: that share is cut off after the delay, code 499, counted apart", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  // The delay leaves a loaded server time to read each whole request before the client cuts the connection.
  await using sim = await startSim(["--ttft", "600", "--itl", "1", "--record-requests", journal]);
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "m", "--url", sim.url, "--streaming", "--concurrency", "8",
    "--request-count", "16", "--osl", "3", "--request-cancellation-rate", "50", "--request-cancellation-delay",
    "0.15", "--random-seed", "3", "--artifact-dir", "out",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  await sim.stop();
  // The server received every request in full, cancelled or not.
  const sent = (await readRequestJournal(journal)).filter((e) => e.path === CHAT);
  assert.equal(sent.length, 16);
  for (const e of sent) assert.ok(Array.isArray((e.body as { messages?: unknown }).messages));
  const records = (await readJsonl(join(tmp.path, "out/profile_export.jsonl"))).map((l) => l.record);
  const cancelled = records.filter((r) => r.metadata.was_cancelled);
  // 16 draws at 50 % (seeded): neither none nor all.
  assert.ok(cancelled.length >= 3 && cancelled.length <= 13, `${cancelled.length} cancelled`);
  const durations: number[] = [];
  for (const r of cancelled) {
    assert.equal(r.error?.code, 499);
    assert.equal(r.error?.type, "RequestCancellationError");
    const ms = Number(BigInt(r.metadata.request_end_ns as number) - BigInt(r.metadata.request_start_ns as number)) /
      1e6;
    assert.ok(ms >= 150, `cancelled after ${ms.toFixed(1)} ms, before the 150 ms delay`);
    durations.push(ms);
  }
  // Cut off after the delay, well before the 600 ms answer (a loaded machine may fire a timer late, not early).
  durations.sort((a, b) => a - b);
  const median = durations[Math.floor(durations.length / 2)];
  assert.ok(median < 450, `cancelled requests lasted ${durations.map((d) => d.toFixed(0)).join(", ")} ms`);
  for (const r of records.filter((r) => !r.metadata.was_cancelled)) assert.equal(r.error ?? null, null);
  const summary = await readJson(join(tmp.path, "out/profile_export_aiperf.json"));
  const errors = summary.error_summary as { error_details: { code: number }; count: number }[];
  assert.deepEqual(errors.map((e) => [e.error_details.code, e.count]), [[499, cancelled.length]]);
  const load = (summary.infermeter as { load: { cancelled_requests: number } }).load;
  assert.equal(load.cancelled_requests, cancelled.length);
});

Deno.test("--user-centric-rate: each user's turns start num_users / rate apart", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim(["--ttft", "20", "--itl", "1", "--record-requests", journal]);
  const lines = [];
  for (let turn = 0; turn < 4; turn++) {
    for (const s of ["a", "b", "c"]) lines.push({ session_id: s, text: `${s}${turn}`, output_length: 2 });
  }
  await Deno.writeTextFile(join(tmp.path, "users.jsonl"), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  // 3 users at 12 req/s: each user's gap is 3 / 12 = 250 ms.
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "m", "--url", sim.url, "--input-file", "users.jsonl",
    "--user-centric-rate", "12", "--num-users", "3", "--request-count", "12", "--artifact-dir", "out",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  await sim.stop();
  const sent = (await readRequestJournal(journal)).filter((e) => e.path === CHAT);
  assert.equal(sent.length, 12);
  const byUser = new Map<string, number[]>();
  for (const e of sent) {
    const id = e.headers["x-correlation-id"];
    byUser.set(id, [...(byUser.get(id) ?? []), e.received_at_ms]);
  }
  let gaps = 0;
  for (const times of byUser.values()) {
    times.sort((a, b) => a - b);
    for (let i = 1; i < times.length; i++, gaps++) {
      // The schedule is exact (below); what the server sees carries the client's and server's scheduling noise.
      const gap = times[i] - times[i - 1];
      assert.ok(gap >= 150 && gap < 500, `a user's turns ${gap.toFixed(1)} ms apart at the server (250 expected)`);
    }
  }
  assert.ok(gaps >= 4, `${gaps} same-user gaps seen`);
  // Each turn was due `gap` after the user's previous due time (or at once, had the answer come later).
  const records = (await readJsonl(join(tmp.path, "out/profile_export.jsonl"))).map((l) => l.raw);
  const due = new Map<string, bigint[]>();
  for (const raw of records) {
    const id = JSON.parse(raw).metadata.x_correlation_id as string;
    due.set(id, [...(due.get(id) ?? []), rawInteger(raw, "scheduled_ns")]);
  }
  for (const times of due.values()) {
    times.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (let i = 1; i < times.length; i++) {
      const gap = Number(times[i] - times[i - 1]) / 1e6;
      assert.ok(gap >= 249.99 && gap < 400, `a user's turns due ${gap.toFixed(3)} ms apart (250 expected)`);
    }
  }
  // Users interleave: the first sends of different users are a stagger (1/12 s) apart, not a gap.
  const firsts = [...byUser.values()].map((t) => t[0]).sort((a, b) => a - b);
  assert.ok(firsts[1] - firsts[0] < 200, `first sends ${firsts.map((t) => (t - firsts[0]).toFixed(0))}`);
});

Deno.test("a 3-value sweep writes 3 directories and a summary; a failing sweep runs every point", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "5", "--itl", "1"]);
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "m", "--url", sim.url, "--concurrency", "1,2,3", "--request-count", "4",
    "--osl", "2", "--artifact-dir", "out",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  for (const point of ["concurrency_1", "concurrency_2", "concurrency_3"]) {
    assert.ok(await exists(join(tmp.path, "out", point, "profile_export_aiperf.json")), point);
  }
  const sweep = await readJson(join(tmp.path, "out/sweep_aggregate/profile_export_aiperf_sweep.json"));
  assert.equal(sweep.aggregation_type, "sweep");
  assert.deepEqual((sweep.metadata as { sweep_parameters: unknown }).sweep_parameters, [
    { name: "concurrency", values: [1, 2, 3] },
  ]);
  const points = sweep.per_combination_metrics as { parameters: unknown; metrics: Record<string, unknown> }[];
  assert.deepEqual(points.map((p) => p.parameters), [{ concurrency: 1 }, { concurrency: 2 }, { concurrency: 3 }]);
  assert.ok(points.every((p) => "request_latency_avg" in p.metrics));
  assert.ok(await exists(join(tmp.path, "out/sweep_aggregate/profile_export_aiperf_sweep.csv")));
  assert.match(run.stdout, /Sweep Summary/);
  for (const point of ["concurrency_1", "concurrency_2", "concurrency_3"]) assert.match(run.stdout, new RegExp(point));

  await using failing = await startSim(["--ttft", "5", "--error-rate", "100"]);
  // deno-fmt-ignore
  const failed = await runCli([
    "profile", "--ui", "none", "-m", "m", "--url", failing.url, "--concurrency", "1,2", "--request-count", "2",
    "--artifact-dir", "bad",
  ], { cwd: tmp.path });
  assertExit(failed, 1);
  assert.ok(await exists(join(tmp.path, "bad/concurrency_2/profile_export_aiperf.json")), "the second point ran");
  const bad = await readJson(join(tmp.path, "bad/sweep_aggregate/profile_export_aiperf_sweep.json"));
  assert.equal((bad.failed_runs as unknown[]).length, 2);
});

Deno.test("three repeated runs give confidence intervals that contain the simulator's configured TTFT", async () => {
  await using tmp = await tempDir();
  // TTFT 60 ms with a 30 % lognormal spread of mean 1 (seeded server): the runs differ, their mean is 60 ms.
  await using sim = await startSim(["--ttft", "60", "--ttft-jitter", "0.3", "--itl", "1", "--seed", "5"]);
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "m", "--url", sim.url, "--streaming", "--concurrency", "1",
    "--request-count", "8", "--osl", "2", "--num-profile-runs", "3", "--confidence-level", "0.99",
    "--artifact-dir", "out",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  for (const label of ["run_0001", "run_0002", "run_0003"]) {
    assert.ok(await exists(join(tmp.path, "out/profile_runs", label, "profile_export_aiperf.json")), label);
  }
  const agg = await readJson(join(tmp.path, "out/aggregate/profile_export_aiperf_aggregate.json"));
  const meta = agg.metadata as Record<string, unknown>;
  assert.deepEqual([meta.aggregation_type, meta.num_profile_runs, meta.num_successful_runs], ["confidence", 3, 3]);
  const ttft = (agg.metrics as Record<string, Record<string, number>>).time_to_first_token_avg;
  assert.ok(Math.abs(ttft.t_critical - 9.924843200918287) < 1e-9, `t(0.995, 2) = ${ttft.t_critical}`);
  assert.ok(ttft.std > 0, "the runs differ");
  assert.ok(ttft.ci_low <= 60 && 60 <= ttft.ci_high, `99 % CI [${ttft.ci_low}, ${ttft.ci_high}] holds 60 ms`);
  assert.equal(ttft.unit, "ms");
  assert.ok(await exists(join(tmp.path, "out/aggregate/profile_export_aiperf_aggregate.csv")));
});
