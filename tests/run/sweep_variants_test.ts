import assert from "node:assert/strict";
import { parseVariant, planVariants } from "../../src/run/sweep_variants.ts";
import { planSweep } from "../../src/run/sweep_plan.ts";
import type { ConfigError } from "../../src/config/config_error.ts";

Deno.test("--variant values parse as AIPerf's: an optional name, key=value pairs, typed values", () => {
  assert.deepEqual(parseVariant("short: isl=128, osl=64, streaming=true, model='m x'"), {
    name: "short",
    pairs: [["isl", 128], ["osl", 64], ["streaming", true], ["model", "m x"]],
  });
  assert.deepEqual(parseVariant("request_rate=2.5"), { name: undefined, pairs: [["request_rate", 2.5]] });
  assert.throws(() => parseVariant("a: isl"), /'isl' has no '='/);
  assert.throws(() => parseVariant("isl=1, isl=2"), /key 'isl' given twice/);
});

Deno.test("--variant twice or more is a scenario sweep: each point the command line with its options put in", () => {
  const args = ["-m", "m", "--concurrency", "3", "--variant", "short: isl=128, concurrency=8", "--variant=osl=64"];
  const plan = planSweep(args);
  assert.equal(plan.type, "scenarios");
  assert.deepEqual(plan.points.map((p) => p.label), ["short", "v1"]);
  assert.deepEqual(plan.points[0].args, ["-m", "m", "--prompt-input-tokens-mean=128", "--concurrency=8"]);
  assert.deepEqual(plan.points[1].args, ["-m", "m", "--concurrency", "3", "--prompt-output-tokens-mean=64"]);
  assert.deepEqual(plan.points[0].values, { isl: 128, concurrency: 8 });
  assert.deepEqual(plan.parameters.map((p) => p.name), ["isl", "concurrency", "osl"]);
  assert.equal(planVariants(["-m", "m"]), undefined);
});

Deno.test("--variant refuses one variant, unknown keys, a name twice and lists beside it", () => {
  const problems = (args: string[]) => {
    try {
      planSweep(args);
    } catch (err) {
      return (err as ConfigError).problems.join("\n");
    }
    return "";
  };
  assert.match(problems(["--variant", "isl=1"]), /a single variant is not a sweep/);
  assert.match(problems(["--variant", "nope=1", "--variant", "isl=2"]), /'nope' is not a profile option/);
  assert.match(problems(["--variant", "a: isl=1", "--variant", "a: isl=2"]), /both named 'a'/);
  assert.match(
    problems(["--variant", "isl=1", "--variant", "isl=2", "--concurrency", "1,2"]),
    /would make another sweep/,
  );
});
