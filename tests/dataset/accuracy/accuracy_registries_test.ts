import assert from "node:assert/strict";
import { ACCURACY_BENCHMARKS } from "../../../src/dataset/accuracy/accuracy_benchmarks.ts";
import { ACCURACY_GRADERS } from "../../../src/dataset/accuracy/accuracy_graders.ts";

Deno.test("each accuracy benchmark and grader starts from its declaration: the same name and help line", async () => {
  for (const declared of ACCURACY_BENCHMARKS.entries()) {
    const benchmark = await declared.benchmark();
    assert.equal(benchmark.name, declared.name);
    assert.equal(benchmark.description, declared.description);
    assert.equal(await declared.benchmark(), benchmark, `${declared.name}: one object`);
    // Its default grader is a registered one.
    assert.ok(ACCURACY_GRADERS.has(benchmark.defaultGrader), `${declared.name}: grader ${benchmark.defaultGrader}`);
  }
  for (const declared of ACCURACY_GRADERS.entries()) {
    const grader = await declared.grader();
    assert.equal(grader.name, declared.name);
    assert.equal(grader.description, declared.description);
  }
  assert.equal(ACCURACY_BENCHMARKS.entries().length, 11);
  assert.equal(ACCURACY_GRADERS.entries().length, 9);
});
