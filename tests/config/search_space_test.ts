import assert from "node:assert/strict";
import { expandSearchRecipe, type SearchInputs } from "../../src/config/search_recipes.ts";
import { parseSearchDimension } from "../../src/config/search_space.ts";

const inputs = (o: Partial<SearchInputs>): SearchInputs => ({ searchSla: [], streaming: true, ...o });

Deno.test("--search-space dimensions: AIPerf's paths and bare names, the kind, the bounds", () => {
  assert.deepEqual(parseSearchDimension("phases.profiling.concurrency:1,1000:int"), {
    path: "phases.profiling.concurrency",
    name: "concurrency",
    lo: 1,
    hi: 1000,
    kind: "int",
  });
  assert.deepEqual(parseSearchDimension("rate:0.5,20"), {
    path: "phases.profiling.rate",
    name: "rate",
    lo: 0.5,
    hi: 20,
    kind: "real",
  });
  assert.equal(parseSearchDimension("datasets.main.prompts.isl:128,4096:int").name, "isl");
  assert.throws(() => parseSearchDimension("concurrency:10,1:int"), /hi \(1\) must be > lo \(10\)/);
  assert.throws(() => parseSearchDimension("concurrency:1,10:float"), /kind must be 'int' or 'real'/);
  assert.throws(() => parseSearchDimension("rate:0,10"), /lower bound must be > 0/);
  assert.throws(() => parseSearchDimension("concurrency"), /expected 'path:lo,hi\[:kind\]'/);
});

Deno.test("--search-space expands into a seeded Bayesian search with the --search-sla constraints", () => {
  const spec = expandSearchRecipe(inputs({
    searchSpace: ["concurrency:1,64:int", "osl:16,256:int"],
    searchMetric: "output_token_throughput",
    searchStat: "p50",
    searchDirection: "maximize",
    searchMaxIterations: 12,
    searchRandomSeed: 4,
    searchSla: ["time_to_first_token:p95:lt:200"],
  }))!;
  assert.equal(spec.answer, "best");
  assert.deepEqual(spec.objective, { metric: "output_token_throughput", stat: "p50", direction: "maximize" });
  assert.equal(spec.filters.length, 1);
  const p = spec.probes;
  assert.equal(p.kind, "bayesian");
  if (p.kind !== "bayesian") return;
  assert.deepEqual(p.dims.map((d) => d.name), ["concurrency", "osl"]);
  assert.equal(p.seed, 4);
  assert.equal(p.initialPoints, 5);
  assert.equal(p.planner, "bayesian");
  // monotonic_sla runs the boundary search over concurrency.
  const boundary = expandSearchRecipe(inputs({
    searchSpace: ["concurrency:2,40:int"],
    searchMetric: "request_latency",
    searchDirection: "minimize",
    searchMaxIterations: 10,
    searchPlanner: "monotonic_sla",
    searchSla: ["request_latency:p99:lt:900"],
  }))!;
  assert.deepEqual(boundary.probes, { kind: "boundary", style: "monotonic", lo: 2, hi: 40, maxIterations: 10 });
});

Deno.test("optuna's names map onto the one optimizer, with a notice where they cannot mean the same", () => {
  const base = {
    searchSpace: ["concurrency:1,64:int"],
    searchMetric: "output_token_throughput",
    searchDirection: "maximize",
    searchMaxIterations: 12,
  };
  const tpe = expandSearchRecipe(inputs({ ...base, searchPlanner: "optuna", optunaSampler: "tpe" }))!;
  assert.match(tpe.notices!.join("\n"), /no Tree-Parzen estimator/);
  const regret = expandSearchRecipe(inputs({ ...base, searchPlanner: "optuna", optunaTerminator: "regret" }))!;
  assert.equal(regret.probes.kind === "bayesian" && regret.probes.terminator, "regret");
  const ignored = expandSearchRecipe(inputs({ ...base, optunaTerminator: "emmr" }))!;
  assert.match(ignored.notices!.join("\n"), /--optuna-terminator is read with --search-planner optuna only/);
});

Deno.test("recipes: --search-style bo searches concurrency by Bayes; the curve recipes' grids are AIPerf's", () => {
  const bo = expandSearchRecipe(inputs({
    searchRecipe: "max-concurrency-under-sla",
    ttftSlaMs: 200,
    searchStyle: "bo",
    searchRandomSeed: 1,
  }))!;
  assert.equal(bo.style, "bo");
  assert.equal(bo.probes.kind, "bayesian");
  const prefill = expandSearchRecipe(inputs({ searchRecipe: "prefill-ttft-curve" }))!;
  assert.equal(prefill.probes.kind, "shapes");
  if (prefill.probes.kind === "shapes") {
    assert.deepEqual(prefill.probes.cells.map((c) => c.isl), [256, 512, 1024, 2048, 4096, 8192, 16384, 32768]);
    assert.ok(prefill.probes.cells.every((c) => c.concurrency === 1));
  }
  const decode = expandSearchRecipe(inputs({ searchRecipe: "decode-itl-curve" }))!;
  if (decode.probes.kind === "shapes") {
    assert.deepEqual([...new Set(decode.probes.cells.map((c) => c.concurrency))], [1, 3, 8, 24, 69, 200]);
    assert.deepEqual([...new Set(decode.probes.cells.map((c) => c.osl))], [64, 161, 406, 1024]);
  } else assert.fail("decode-itl-curve is a grid of shapes");
  assert.throws(
    () => expandSearchRecipe(inputs({ searchRecipe: "prefill-ttft-curve", streaming: false })),
    /requires --streaming/,
  );
});
