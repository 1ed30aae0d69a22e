import assert from "node:assert/strict";
import { expandSearchRecipe } from "../../../src/config/search_recipes.ts";
import {
  degradationKneeJson,
  markPareto,
  paretoSweepJson,
  searchHistoryJson,
  slaBreachJson,
} from "../../../src/run/search/search_artifacts.ts";
import { boundaryAnswer, kneeAnswer, paretoAnswer } from "../../../src/run/search/search_answer.ts";
import { probeOf } from "./search_fixtures.ts";

const spec = expandSearchRecipe({
  searchRecipe: "max-concurrency-under-sla",
  searchStyle: "monotonic",
  ttftSlaMs: 100,
  searchSla: [],
  streaming: true,
})!;
const probes = [probeOf(0, 1, true, 40), probeOf(1, 2, true, 60), probeOf(2, 4, false, 150), probeOf(3, 3, true, 90)];

Deno.test("search_history.json has AIPerf's keys: config, iterations, best_trials, boundary_summary", () => {
  const h = searchHistoryJson(
    spec,
    probes,
    { feasibleMax: 3, infeasibleMin: 4 },
    "monotonic_precision_reached",
  ) as Record<string, unknown>;
  assert.deepEqual(Object.keys(h), [
    "config",
    "iterations",
    "best_trials",
    "boundary_summary",
    "recipe",
    "convergence_reason",
  ]);
  const config = h.config as Record<string, unknown>;
  assert.equal(config.planner, "monotonic_sla");
  assert.deepEqual(config.search_space, [{ path: "phases.profiling.concurrency", lo: 1, hi: 1000, kind: "int" }]);
  assert.deepEqual((h.iterations as unknown[])[2], {
    iteration_idx: 2,
    variation_values: { "phases.profiling.concurrency": 4 },
    objective_values: [400],
    feasible: false,
    non_monotonic_warning: false,
  });
  assert.deepEqual(h.best_trials, [{
    iteration_idx: 3,
    objective_values: [300],
    variation_values: { "phases.profiling.concurrency": 3 },
    feasible: true,
    feasible_count: 3,
    pareto_rank: 0,
  }]);
  assert.deepEqual(h.boundary_summary, {
    swept_dim_path: "phases.profiling.concurrency",
    feasible_max: { value: 3, iteration_idx: 3, objective_value: 300 },
    infeasible_min: {
      value: 4,
      iteration_idx: 2,
      first_breach: { metric_tag: "time_to_first_token", stat: "p95", op: "lt", threshold: 100, observed: 150 },
    },
  });
  assert.equal(h.recipe, "max-concurrency-under-sla");
});

Deno.test("sla_breach.json finds max passing and first failing in ascending order, and flags non-monotony", () => {
  const b = slaBreachJson(spec, probes) as Record<string, unknown>;
  assert.equal(b.max_passing_concurrency, 3);
  assert.equal(b.first_failing_concurrency, 4);
  assert.equal(b.monotonicity_check, true);
  assert.deepEqual((b.all_points as { concurrency: number }[]).map((p) => p.concurrency), [1, 2, 3, 4]);
  const wobbly = slaBreachJson(spec, [...probes, probeOf(4, 8, true, 80)]) as Record<string, unknown>;
  assert.equal(wobbly.monotonicity_check, false);
  assert.equal(wobbly.max_passing_concurrency, 8);
});

Deno.test("degradation_knee.json names the first point past baseline × (1 + threshold)", () => {
  const ramp = expandSearchRecipe({ searchRecipe: "concurrency-ramp", searchSla: [], streaming: false })!;
  const k = degradationKneeJson(ramp, [[1, 100], [4, 115], [16, 121], [64, 300]]) as Record<string, unknown>;
  assert.equal(k.baseline_concurrency, 1);
  assert.equal(k.baseline_p99, 100);
  assert.equal(k.knee_concurrency, 16);
  assert.equal(k.knee_p99, 121);
  assert.deepEqual((k.all_points as unknown[])[1], { concurrency: 4, p99: 115 });
  assert.equal(
    kneeAnswer(ramp, [], [1, 100], [16, 121]).sentence,
    "Latency knee at concurrency 16: p99 Latency 121 ms passes 1.2 × 100 ms (its value at concurrency 1)",
  );
});

Deno.test("pareto_sweep.json marks the cells no other cell beats on both axes", () => {
  const cells = markPareto([
    { isl: 128, osl: 128, concurrency: 1, x: 10, y: 50 },
    { isl: 128, osl: 128, concurrency: 4, x: 20, y: 150 },
    { isl: 512, osl: 256, concurrency: 1, x: 25, y: 100 },
    { isl: 512, osl: 256, concurrency: 4, x: undefined, y: 500 },
  ]);
  assert.deepEqual(cells.map((c) => c.pareto_optimal), [true, true, false, false]);
  const json = paretoSweepJson(cells) as { cells: { x: number | null }[]; x_stat: string };
  assert.equal(json.x_stat, "p95");
  assert.equal(json.cells[3].x, null);
  const pareto = expandSearchRecipe({
    searchRecipe: "pareto-sweep",
    islOslPairs: "1/1",
    searchSla: [],
    streaming: true,
  }, [1, 4])!;
  assert.match(
    paretoAnswer(pareto, [], cells).sentence,
    /^Pareto frontier of p95 TTFT against output tok\/s: 2 of 4 points: 128\/128 at 4 \(20\.0 ms, 150 tok\/s\); 128\/128 at 1/,
  );
});

Deno.test("the answer names the highest concurrency within SLO, its binding figure, throughput, and what fails above", () => {
  const a = boundaryAnswer(spec, probes, probes[3], probes[2], "monotonic_precision_reached", { lo: 1, hi: 1000 });
  assert.equal(a.sentence, "highest concurrency within SLO: 3 (p95 TTFT 90.0 ms ± 5.0, 300 tok/s); 4 fails TTFT");
  const json = a.json as Record<string, { concurrency: number } | string>;
  assert.equal(json.answer, a.sentence);
  assert.equal((json.highest_within_slo as { concurrency: number }).concurrency, 3);
  assert.equal((json.first_failing as { concurrency: number }).concurrency, 4);
  assert.equal(
    boundaryAnswer(spec, [probes[2]], undefined, probes[2], "monotonic_no_pass_in_range", { lo: 4, hi: 1000 }).sentence,
    "no concurrency within SLO from 4: 4 fails TTFT (p95 TTFT 150 ms ± 5.0)",
  );
  assert.equal(
    boundaryAnswer(spec, [probes[0]], probes[0], undefined, "monotonic_no_failure_in_range", { lo: 1, hi: 1 }).sentence,
    "highest concurrency within SLO: 1 (p95 TTFT 40.0 ms ± 5.0, 100 tok/s), the top of the searched range (raise " +
      "--concurrency-max to look further)",
  );
  const tput = expandSearchRecipe({
    searchRecipe: "max-throughput-ttft-sla",
    ttftSlaMs: 100,
    searchSla: [],
    streaming: true,
  })!;
  assert.equal(
    boundaryAnswer(tput, probes, probes[3], probes[2], undefined, { lo: 1, hi: 1000 }).sentence,
    "highest output token throughput within SLO: 300 tok/s at concurrency 3 (p95 TTFT 90.0 ms ± 5.0); 4 fails TTFT",
  );
});
