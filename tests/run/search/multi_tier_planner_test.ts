import assert from "node:assert/strict";
import { MultiTierPlanner } from "../../../src/run/search/multi_tier_planner.ts";
import { parseSlaTier, parseSlaTiers } from "../../../src/config/sla_tiers.ts";

/** Runs the planner against tiers whose true boundaries are `limits` (tier i passes while c ≤ limits[i]). */
function drive(limits: readonly number[], hi = 64, maxIterations = 30) {
  const planner = new MultiTierPlanner(limits.map((_, i) => `t${i}`), { lo: 1, hi, maxIterations });
  const probes: number[] = [];
  for (let v = planner.next(); v !== undefined; v = planner.next()) {
    planner.tell(v, limits.map((l) => v <= l), probes.length);
    probes.push(v);
  }
  return { planner, probes };
}

Deno.test("the multi-tier search pins each tier's boundary within precision, sharing its probes", () => {
  const { planner, probes } = drive([5, 23]);
  assert.deepEqual(probes.slice(0, 4), [1, 2, 4, 8], "doubling until a tier fails");
  assert.equal(planner.reason, "multi_tier_all_converged");
  assert.deepEqual(planner.brackets.map((b) => b.feasibleMax), [5, 23]);
  assert.deepEqual(planner.brackets.map((b) => b.infeasibleMin), [6, 24]);
  assert.ok(probes.length <= 12, probes.join(","));
  assert.equal(new Set(probes).size, probes.length);
});

Deno.test("the multi-tier search ends a tier that never fails or never passes", () => {
  const none = drive([0, 0]);
  assert.deepEqual(none.probes, [1]);
  assert.deepEqual(none.planner.brackets.map((b) => b.reason), ["no_pass_in_range", "no_pass_in_range"]);
  const top = drive([3, 100], 16);
  assert.equal(top.planner.brackets[1].reason, "no_failure_in_range");
  assert.equal(top.planner.brackets[1].feasibleMax, 16);
  assert.equal(MultiTierPlanner.status(top.planner.brackets[0]), "converged");
  const short = drive([5, 23], 64, 3);
  assert.equal(short.planner.reason, "max_iterations");
  assert.equal(MultiTierPlanner.status(short.planner.brackets[0]), "partial");
});

Deno.test("--search-sla-tier values parse as AIPerf reads them: a label when the first part has not three colons", () => {
  assert.deepEqual(parseSlaTier("fast:time_to_first_token:p95:lt:200,request_latency:p99:lt:900", 0), {
    label: "fast",
    filters: [
      { metric_tag: "time_to_first_token", stat: "p95", op: "lt", threshold: 200 },
      { metric_tag: "request_latency", stat: "p99", op: "lt", threshold: 900 },
    ],
  });
  assert.equal(parseSlaTier("time_to_first_token:p95:lt:200", 1).label, "tier_2");
  assert.throws(() => parseSlaTier("fast:", 0), /contains zero filters/);
  assert.throws(() => parseSlaTiers(["time_to_first_token:p95:lt:200"]), /expected between 2 and 10 tiers, got 1/);
  assert.throws(
    () => parseSlaTiers(["a:time_to_first_token:p95:lt:1", "a:time_to_first_token:p95:lt:2"]),
    /duplicate label 'a'/,
  );
});
