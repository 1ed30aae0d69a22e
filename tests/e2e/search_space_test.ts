/**
 * `--search-space` (AIPerf's Bayesian search) against serve-sim's capacity model, real processes end to end.
 * `--slots 4`, TTFT 40 ms, ITL 20 ms and 5 output tokens: a request holds a slot S = 120 ms, so up to 4 clients the
 * TTFT stays at 40 ms and output throughput grows with concurrency; at 5 and above one request in five waits a whole
 * S (p95 TTFT ≈ 160 ms, past the 100 ms SLA) while throughput stays flat. The best throughput within the SLA is at
 * the knee, 4, with 60 ms of margin on both sides of the threshold (a busy machine's stalls stay well inside it).
 */
import assert from "node:assert/strict";
import { assertExit, exists, readJson, runCli, startSim, tempDir } from "./cli_harness.ts";
import { BayesPlanner } from "../../src/run/search/bayes_planner.ts";

const KNEE = 4;

function args(url: string): string[] {
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
    "5",
    "--extra-inputs",
    "ignore_eos:true",
    "--request-count",
    "16",
    "--warmup-request-count",
    "4",
    "--no-server-metrics",
    "--ui-type",
    "none",
  ];
}

const SEARCH = [
  "--search-space",
  "concurrency:1,16:int",
  "--search-metric",
  "output_token_throughput",
  "--search-direction",
  "maximize",
  "--search-max-iterations",
  "8",
  "--search-initial-points",
  "4",
  "--search-random-seed",
  "3",
  "--search-sla",
  "time_to_first_token:p95:lt:100",
];

Deno.test("--search-space finds the best throughput within the SLA at the simulator's knee, seeded", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--slots", String(KNEE), "--ttft", "40", "--itl", "20", "--seed", "3"]);
  const run = await runCli([...args(sim.url), ...SEARCH, "--artifact-dir", "bo"], {
    cwd: tmp.path,
    timeoutMs: 120_000,
  });
  assertExit(run, 0);
  const answer = run.stdout.trimEnd().split("\n").at(-1)!;
  const m =
    /^best avg output_token_throughput within SLO: [\d,.]+ tokens\/sec at concurrency (\d+) \(search_iter_\d{4} of (\d+) probes; stopped: (\w+)\)$/
      .exec(answer);
  assert.ok(m !== null, answer);
  const best = Number(m[1]);
  assert.ok(Math.abs(best - KNEE) <= 1, `best ${best}, knee ${KNEE}`);

  const dir = `${tmp.path}/bo`;
  const history = await readJson<{
    config: { planner: string; random_seed: number; n_initial_points: number; search_space: unknown[] };
    iterations: { variation_values: Record<string, number>; feasible: boolean; objective_values: number[] | null }[];
    best_trials: { variation_values: Record<string, number>; feasible: boolean }[];
    convergence_reason: string;
  }>(`${dir}/search_history.json`);
  assert.equal(history.config.planner, "bayesian");
  assert.equal(history.config.random_seed, 3);
  assert.deepEqual(history.config.search_space, [
    { path: "phases.profiling.concurrency", lo: 1, hi: 16, kind: "int", prior: "uniform" },
  ]);
  assert.equal(history.iterations.length, Number(m[2]));
  assert.equal(history.best_trials[0].variation_values["phases.profiling.concurrency"], best);
  assert.equal(history.best_trials[0].feasible, true);
  assert.equal(history.convergence_reason, m[3]);
  // The feasibility the search saw follows the knee: within the SLA up to 4, past it from 5 (one step of slack).
  for (const it of history.iterations) {
    const c = it.variation_values["phases.profiling.concurrency"];
    if (c <= KNEE - 1) assert.equal(it.feasible, true, `concurrency ${c}`);
    if (c >= KNEE + 2) assert.equal(it.feasible, false, `concurrency ${c}`);
  }
  // The space-filling start is the seed's: the planner alone, with the same seed, proposes the same first points.
  const planner = new BayesPlanner({
    dims: [{ name: "concurrency", lo: 1, hi: 16, int: true }],
    maxIterations: 8,
    initialPoints: 4,
    seed: 3,
    direction: "maximize",
  });
  const first: number[] = [];
  for (let i = 0; i < 4; i++) {
    const v = planner.next()!;
    first.push(v.concurrency);
    planner.tell(v, { objective: 1, feasible: true, margins: [] });
  }
  assert.deepEqual(
    history.iterations.slice(0, 4).map((it) => it.variation_values["phases.profiling.concurrency"]),
    first,
  );
  assert.ok(await exists(`${dir}/search_iter_0000/profile_runs/run_0001/profile_export_aiperf.json`));
  assert.ok(await exists(`${dir}/sweep_aggregate/profile_export_aiperf_sweep.json`));
  const answerJson = await readJson<{ answer: string; best: { concurrency: number } }>(`${dir}/search_answer.json`);
  assert.equal(answerJson.answer, answer);
  assert.equal(answerJson.best.concurrency, best);
});

Deno.test("--search-space refuses what AIPerf refuses, before sending anything (exit 2)", async () => {
  await using tmp = await tempDir();
  const base = ["profile", "--url", "http://127.0.0.1:9", "-m", "m", "--ui-type", "none", "--streaming"];
  const space = ["--search-space", "concurrency:1,64:int"];
  const full = [...space, "--search-metric", "request_latency", "--search-direction", "minimize"];
  const cases: [string[], RegExp][] = [
    [space, /--search-space requires --search-metric \(companion flag missing\)/],
    [[...full], /--search-space requires --search-max-iterations/],
    [
      [...full, "--search-max-iterations", "10", "--search-percentile-pooling", "pooled"],
      /--search-percentile-pooling pooled requires --search-stat to be a percentile/,
    ],
    [
      [...full, "--search-max-iterations", "10", "--optuna-acquisition", "qnehvi"],
      /'qnehvi' is a multi-objective acquisition/,
    ],
    [[...full, "--search-max-iterations", "5", "--search-initial-points", "5"], /must be < --search-max-iterations/],
    [
      [
        "--search-space",
        "concurrency:1,64",
        "--search-metric",
        "request_latency",
        "--search-direction",
        "minimize",
        "--search-max-iterations",
        "10",
      ],
      /'concurrency' must use ':int' kind/,
    ],
    [[...full, "--search-max-iterations", "10", "--concurrency", "1,2"], /mutually exclusive with list values/],
    [[
      "--search-space",
      "phases.profiling.nope:1,2",
      "--search-metric",
      "request_latency",
      "--search-direction",
      "minimize",
      "--search-max-iterations",
      "10",
    ], /infermeter cannot set 'phases.profiling.nope'/],
    [["--search-metric", "request_latency"], /--search-metric .*--search-space/],
  ];
  for (const [extra, pattern] of cases) {
    const run = await runCli([...base, ...extra], { cwd: tmp.path, timeoutMs: 30_000 });
    assertExit(run, 2);
    assert.match(run.stderr, pattern, extra.join(" "));
  }
});

Deno.test("--search-sla-tier finds the highest concurrency within each SLO tier", async () => {
  // At concurrency C over 4 slots a request waits whole services of 120 ms: none up to 4 (TTFT 40 ms), one wave up to
  // 8 (TTFT 160 ms), two from 9 (280 ms). Tier fast (p95 TTFT < 100 ms) holds up to 4, relaxed (< 220 ms) up to 8.
  await using tmp = await tempDir();
  await using sim = await startSim(["--slots", String(KNEE), "--ttft", "40", "--itl", "20", "--seed", "3"]);
  const run = await runCli([
    ...args(sim.url),
    "--search-space",
    "concurrency:1,12:int",
    "--search-metric",
    "output_token_throughput",
    "--search-direction",
    "maximize",
    "--search-max-iterations",
    "14",
    "--search-sla-tier",
    "fast:time_to_first_token:p95:lt:100",
    "--search-sla-tier",
    "relaxed:time_to_first_token:p95:lt:220",
    "--artifact-dir",
    "tiers",
  ], { cwd: tmp.path, timeoutMs: 120_000 });
  assertExit(run, 0);
  const answer = run.stdout.trimEnd().split("\n").at(-1)!;
  const m = /^highest concurrency within each SLO tier: fast (\d+) \(.*\); relaxed (\d+) \(.*\)$/.exec(answer);
  assert.ok(m !== null, answer);
  assert.ok(Math.abs(Number(m[1]) - KNEE) <= 1, answer);
  assert.ok(Math.abs(Number(m[2]) - 2 * KNEE) <= 1, answer);
  const history = await readJson<{
    config: { tiers: { label: string; filters: unknown[] }[] };
    tier_results: { label: string; boundary_concurrency: number; convergence_status: string; bracket_upper: number }[];
    tier_metadata: { actual_probe_count: number };
    convergence_reason: string;
  }>(`${tmp.path}/tiers/search_history.json`);
  assert.deepEqual(history.config.tiers.map((t) => t.label), ["fast", "relaxed"]);
  assert.deepEqual(history.tier_results.map((t) => t.boundary_concurrency), [Number(m[1]), Number(m[2])]);
  for (const t of history.tier_results) {
    assert.equal(t.convergence_status, "converged");
    assert.equal(t.bracket_upper, t.boundary_concurrency + 1);
  }
  assert.equal(history.convergence_reason, "multi_tier_all_converged");
  assert.ok(history.tier_metadata.actual_probe_count <= 14);
});
