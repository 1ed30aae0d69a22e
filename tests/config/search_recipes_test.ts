import assert from "node:assert/strict";
import {
  expandSearchRecipe,
  logspaceIntSteps,
  parseIslOslPairs,
  type SearchInputs,
} from "../../src/config/search_recipes.ts";
import { ConfigError } from "../../src/config/config_error.ts";

const base: SearchInputs = { searchSla: [], streaming: true };

function problem(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.problems.join("\n");
  }
  assert.fail("expected a ConfigError");
}

Deno.test("max-concurrency-under-sla turns AIPerf's SLA flags into its filters, smooth-isotonic over [1, 1000]", () => {
  const spec = expandSearchRecipe({
    ...base,
    searchRecipe: "max-concurrency-under-sla",
    ttftSlaMs: 200,
    tpotSlaMs: 15,
    e2eSlaMs: 2000,
    errorRateSla: 0.05,
    searchSla: ["output_token_throughput:avg:gt:100"],
  })!;
  assert.deepEqual(spec.filters, [
    { metric_tag: "time_to_first_token", stat: "p95", op: "lt", threshold: 200 },
    { metric_tag: "inter_token_latency", stat: "p95", op: "lt", threshold: 15 },
    { metric_tag: "request_latency", stat: "p99", op: "lt", threshold: 2000 },
    { metric_tag: "request_error_rate", stat: "avg", op: "lt", threshold: 5 },
    { metric_tag: "output_token_throughput", stat: "avg", op: "gt", threshold: 100 },
  ]);
  assert.deepEqual(spec.probes, { kind: "boundary", style: "smooth_isotonic", lo: 1, hi: 1000, maxIterations: 30 });
  assert.equal(spec.answer, "concurrency");
});

Deno.test("the styles: monotonic gets 20 iterations, grid 8 log-spaced points and the sla_breach artifact", () => {
  const inputs = { ...base, searchRecipe: "max-concurrency-under-sla", e2eSlaMs: 900 };
  assert.deepEqual(expandSearchRecipe({ ...inputs, searchStyle: "monotonic" })!.probes, {
    kind: "boundary",
    style: "monotonic",
    lo: 1,
    hi: 1000,
    maxIterations: 20,
  });
  const grid = expandSearchRecipe({ ...inputs, searchStyle: "grid" })!;
  assert.deepEqual(grid.probes, { kind: "grid", concurrencies: [1, 3, 7, 19, 52, 139, 373, 1000] });
  assert.equal(grid.postProcess, "sla_breach");
  assert.equal(expandSearchRecipe({ ...inputs, searchMaxIterations: 7 })!.probes.kind, "boundary");
  assert.equal(expandSearchRecipe({ ...inputs, searchStyle: "bo" })!.probes.kind, "bayesian");
});

Deno.test("e2e and error-rate SLAs need no streaming; TTFT and ITL do, in AIPerf's words", () => {
  assert.ok(expandSearchRecipe({ ...base, streaming: false, searchRecipe: "max-concurrency-under-sla", e2eSlaMs: 1 }));
  assert.equal(
    problem(() =>
      expandSearchRecipe({ ...base, streaming: false, searchRecipe: "max-concurrency-under-sla", ttftSlaMs: 1 })
    ),
    "recipe 'max-concurrency-under-sla' requires --streaming (SLA filters reference streaming-only metrics (TTFT, " +
      "ITL/TPOT)); enable streaming on the endpoint or pick a different recipe.",
  );
});

Deno.test("the recipes' failure paths say what is missing or conflicting, as AIPerf does", () => {
  assert.equal(
    problem(() => expandSearchRecipe({ ...base, searchRecipe: "max-concurrency-under-sla" })),
    "recipe 'max-concurrency-under-sla' requires at least one of --ttft-sla-ms / --tpot-sla-ms / --itl-sla-ms / " +
      "--e2e-sla-ms / --error-rate-sla / --search-sla; pass at least one on the CLI alongside --search-recipe.",
  );
  assert.equal(
    problem(() => expandSearchRecipe({ ...base, searchRecipe: "max-goodput-under-slo", ttftSlaMs: 200 })),
    "recipe 'max-goodput-under-slo' requires --tpot-sla-ms, --e2e-sla-ms; all three (--ttft-sla-ms, --tpot-sla-ms / " +
      "--itl-sla-ms, --e2e-sla-ms) define what 'good' means per request for the goodput formula. Pass them on the " +
      "CLI alongside --search-recipe max-goodput-under-slo.",
  );
  assert.match(
    problem(() => expandSearchRecipe({ ...base, searchRecipe: "max-throughput-itl-sla", itlSlaMs: 1, tpotSlaMs: 2 })),
    /--tpot-sla-ms and --itl-sla-ms are aliases .* \(2 vs 1\); pass only one\./,
  );
  assert.equal(
    problem(() =>
      expandSearchRecipe({ ...base, searchRecipe: "concurrency-ramp", concurrencyMin: 10, concurrencyMax: 5 })
    ),
    "recipe 'concurrency-ramp': --concurrency-min (10) must be < --concurrency-max (5); inverted bounds collapse the " +
      "search space.",
  );
  assert.match(
    problem(() => expandSearchRecipe({ ...base, searchRecipe: "max-throughput-ttft-sla" })),
    /requires --ttft-sla-ms \(TTFT SLA threshold in milliseconds\)/,
  );
  assert.match(
    problem(() =>
      expandSearchRecipe({ ...base, streaming: true, searchRecipe: "prefill-ttft-curve", islMin: 512, islMax: 256 })
    ),
    /--isl-min \(512\) must be < --isl-max \(256\)/,
  );
  assert.match(problem(() => expandSearchRecipe({ ...base, searchRecipe: "nope" })), /use one of: max-concurrency/);
  assert.match(
    problem(() => expandSearchRecipe({ ...base, searchRecipe: "pareto-sweep" })),
    /requires --isl-osl-pairs/,
  );
});

Deno.test("max-goodput-under-slo sets the per-request SLOs and filters the good-request fraction", () => {
  const spec = expandSearchRecipe({
    ...base,
    searchRecipe: "max-goodput-under-slo",
    ttftSlaMs: 500,
    itlSlaMs: 15,
    e2eSlaMs: 2000,
  })!;
  assert.deepEqual(spec.slos, [
    { tag: "time_to_first_token", value: 500 },
    { tag: "inter_token_latency", value: 15 },
    { tag: "request_latency", value: 2000 },
  ]);
  assert.deepEqual(spec.filters, [{ metric_tag: "good_request_fraction", stat: "avg", op: "ge", threshold: 0.95 }]);
  assert.equal(spec.objective.metric, "goodput");
});

Deno.test("concurrency-ramp and pareto-sweep are grids with their own artifacts", () => {
  const ramp = expandSearchRecipe({
    ...base,
    searchRecipe: "concurrency-ramp",
    concurrencyMin: 2,
    concurrencyMax: 64,
    concurrencySteps: 6,
  })!;
  assert.deepEqual(ramp.probes, { kind: "grid", concurrencies: [2, 4, 8, 16, 32, 64] });
  assert.deepEqual(ramp.degradation, { threshold: 0.2, metricTag: "request_latency", stat: "p99" });
  const pareto = expandSearchRecipe({ ...base, searchRecipe: "pareto-sweep", islOslPairs: "128/128, 512/256" }, [
    1,
    8,
  ])!;
  assert.deepEqual(pareto.probes, {
    kind: "shapes",
    cells: [
      { isl: 128, osl: 128, concurrency: 1 },
      { isl: 128, osl: 128, concurrency: 8 },
      { isl: 512, osl: 256, concurrency: 1 },
      { isl: 512, osl: 256, concurrency: 8 },
    ],
  });
  assert.match(
    problem(() => expandSearchRecipe({ ...base, searchRecipe: "pareto-sweep", islOslPairs: "128/128" }, [4])),
    /a Pareto sweep with a single point is meaningless/,
  );
});

Deno.test("logspaceIntSteps keeps both ends and drops duplicates; parseIslOslPairs refuses bad pairs", () => {
  assert.deepEqual(logspaceIntSteps(1, 4, 5), [1, 2, 3, 4]);
  assert.deepEqual(logspaceIntSteps(1, 200, 6), [1, 3, 8, 24, 69, 200]);
  assert.deepEqual(parseIslOslPairs(" 128/128 ,512/256"), [[128, 128], [512, 256]]);
  assert.throws(() => parseIslOslPairs("128-128"), /expected '<isl>\/<osl>'/);
  assert.throws(() => parseIslOslPairs("0/128"), /both sides must be a positive int/);
  assert.throws(() => parseIslOslPairs("1/1,1/1"), /duplicate pair/);
});
