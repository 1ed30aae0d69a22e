/**
 * `--search-recipe` against serve-sim's capacity model, real processes end to end. `--slots 4`, TTFT 40 ms, ITL 40 ms
 * and 9 output tokens give a service time S = 40 + 40 × 8 = 360 ms: up to 4 clients TTFT stays at 40 ms; at 5 one
 * request in five waits a whole S (TTFT ≈ 400 ms), so the p95 TTFT jumps past the 240 ms SLA. The knee is 4, with
 * 200 ms of margin below the SLA and 160 ms above it: only stalls of the busy test machine longer than 200 ms on two
 * of a probe's 24 requests could move a verdict, the warm-up readies the client before the first probe, and a probe
 * whose p95 lands near the line is repeated before the search decides.
 */
import assert from "node:assert/strict";
import { assertExit, exists, readJson, runCli, spawnCli, startSim, tempDir } from "./cli_harness.ts";

const KNEE = 4;
const SIM = ["--slots", String(KNEE), "--ttft", "40", "--itl", "40", "--seed", "3"];

function profileArgs(url: string): string[] {
  return [
    "profile",
    "--url",
    url,
    "-m",
    "sim-model",
    "--endpoint-type",
    "chat",
    "--streaming",
    "--synthetic-input-tokens-mean",
    "16",
    "--output-tokens-mean",
    "9",
    "--extra-inputs",
    "ignore_eos:true",
    "--request-count",
    "24",
    "--warmup-request-count",
    "12",
    "--ui-type",
    "none",
    "--search-recipe",
    "max-concurrency-under-sla",
    "--ttft-sla-ms",
    "240",
    "--concurrency-min",
    "2",
    "--concurrency-max",
    "16",
  ];
}

for (const style of ["monotonic", "smooth_isotonic"] as const) {
  Deno.test(`--search-recipe max-concurrency-under-sla (${style}) finds the simulator's knee and says so`, async () => {
    await using tmp = await tempDir();
    await using sim = await startSim(SIM);
    const styleArgs = style === "monotonic" ? ["--search-style", "monotonic"] : [];
    const run = await runCli([...profileArgs(sim.url), ...styleArgs, "--artifact-dir", "search"], {
      cwd: tmp.path,
      timeoutMs: 120_000,
    });
    assertExit(run, 0);
    const lines = run.stdout.trimEnd().split("\n");
    const answer = lines[lines.length - 1];
    const m =
      /^highest concurrency within SLO: (\d+) \(p95 TTFT [\d.]+ ms( ± [\d.]+)?, [\d,.]+ tok\/s.*\); (\d+) fails TTFT$/
        .exec(answer);
    assert.ok(m !== null, `answer: ${answer}`);
    const found = Number(m[1]);
    assert.ok(Math.abs(found - KNEE) <= 1, `found ${found}, knee ${KNEE}`);
    assert.equal(Number(m[3]), found + 1);
    // Short console: per probe its headline block and one verdict line (and a line per repeat), then the answer.
    const verdicts = lines.filter((l) => /^[✓✗] concurrency \d+/.test(l));
    assert.ok(verdicts.length >= 3 && verdicts.length <= 8, run.stdout);
    assert.ok(lines.length <= verdicts.length * 14 + 1, `${lines.length} lines`);

    const base = `${tmp.path}/search`;
    const answerJson = await readJson<{ answer: string; highest_within_slo: { concurrency: number } }>(
      `${base}/search_answer.json`,
    );
    assert.equal(answerJson.answer, answer);
    assert.equal(answerJson.highest_within_slo.concurrency, found);
    const history = await readJson<{
      recipe: string;
      config: { planner: string; sla_filters: unknown[] };
      iterations: { variation_values: Record<string, number>; feasible: boolean }[];
      boundary_summary: { feasible_max: { value: number }; infeasible_min: { value: number } };
      convergence_reason: string;
    }>(`${base}/search_history.json`);
    assert.equal(history.recipe, "max-concurrency-under-sla");
    assert.equal(history.config.planner, style === "monotonic" ? "monotonic_sla" : "smooth_isotonic");
    assert.deepEqual(history.config.sla_filters, [
      { metric_tag: "time_to_first_token", stat: "p95", op: "lt", threshold: 240 },
    ]);
    assert.equal(history.boundary_summary.feasible_max.value, found);
    assert.equal(history.boundary_summary.infeasible_min.value, found + 1);
    assert.equal(history.convergence_reason, `${style}_precision_reached`);
    assert.equal(history.iterations[0].variation_values["phases.profiling.concurrency"], 2);

    const manifest = await readJson<{ kind: string; points: { dir: string; values: { concurrency: number } }[] }>(
      `${base}/run_manifest.json`,
    );
    assert.equal(manifest.kind, "sweep");
    assert.ok(manifest.points.length >= history.iterations.length);
    for (const p of manifest.points) {
      assert.match(p.dir, /^search_iter_\d{4}\/profile_runs\/run_\d{4}$/);
      assert.ok(await exists(`${base}/${p.dir}/profile_export_aiperf.json`), p.dir);
    }
    assert.ok(await exists(`${base}/sweep_aggregate/profile_export_aiperf_sweep.json`));
    const html = await Deno.readTextFile(`${base}/report.html`);
    assert.ok(html.includes("highest concurrency within SLO"), "the report opens with the answer");
    assert.ok(html.includes("SLO: p95 TTFT &#60; 240 ms"), "the SLO is named");
    assert.ok(html.includes("p95 TTFT \\u003c 240 ms"), "the SLO line is drawn on the charts");
  });
}

Deno.test("--search-recipe refuses a missing SLA, a missing --streaming and a list of its own load, exit 2", async () => {
  await using tmp = await tempDir();
  const base = ["profile", "--url", "http://127.0.0.1:9", "-m", "m", "--ui-type", "none"];
  const cases: [string[], RegExp][] = [
    [
      ["--search-recipe", "max-concurrency-under-sla", "--streaming"],
      /recipe 'max-concurrency-under-sla' requires at least one of --ttft-sla-ms/,
    ],
    [
      ["--search-recipe", "max-concurrency-under-sla", "--ttft-sla-ms", "200"],
      /recipe 'max-concurrency-under-sla' requires --streaming \(SLA filters reference streaming-only metrics/,
    ],
    [
      ["--search-recipe", "max-throughput-itl-sla", "--streaming", "--itl-sla-ms", "10", "--tpot-sla-ms", "12"],
      /--tpot-sla-ms and --itl-sla-ms are aliases for the same inter-token-latency SLA/,
    ],
    [
      ["--search-recipe", "max-concurrency-under-sla", "--e2e-sla-ms", "900", "--concurrency", "1,4"],
      /chooses the load itself/,
    ],
  ];
  for (const [args, expected] of cases) {
    const run = await runCli([...base, ...args], { cwd: tmp.path });
    assertExit(run, 2);
    assert.match(run.stderr, expected);
  }
});

Deno.test("a search stopped by SIGINT exits 130 and writes what it knew, said to be interrupted", async () => {
  await using tmp = await tempDir();
  // A slow probe (one slot, 200 requests of 360 ms each) so the signal lands while it runs.
  await using sim = await startSim(["--slots", "1", "--ttft", "20", "--itl", "20", "--seed", "1"]);
  const args = profileArgs(sim.url).map((a) => (a === "24" ? "200" : a));
  await using cli = spawnCli([...args, "--artifact-dir", "search"], { cwd: tmp.path, timeoutMs: 60_000 });
  const deadline = Date.now() + 45_000;
  while (!cli.stderrSoFar().includes("is PROFILING") && Date.now() < deadline && !cli.hasExited()) {
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 500));
  cli.kill("SIGINT");
  const run = await cli.result;
  assertExit(run, 130);
  const answer = await readJson<{ answer: string }>(`${tmp.path}/search/search_answer.json`);
  assert.match(answer.answer, /^interrupted before the search ended; so far: /);
  const history = await readJson<{ convergence_reason: string }>(`${tmp.path}/search/search_history.json`);
  assert.equal(history.convergence_reason, "cancelled");
  assert.ok(await exists(`${tmp.path}/search/run_manifest.json`));
});
