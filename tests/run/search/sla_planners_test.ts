import assert from "node:assert/strict";
import { type BoundaryPlanner, MonotonicPlanner, SmoothIsotonicPlanner } from "../../../src/run/search/sla_planners.ts";

/** Runs a planner against a server whose SLA margin at concurrency c is `margin(c)`; returns the probes. */
function drive(planner: BoundaryPlanner, margin: (c: number) => number): number[] {
  const probes: number[] = [];
  for (let v = planner.next(); v !== undefined; v = planner.next()) {
    probes.push(v);
    const m = margin(v);
    planner.tell(v, { feasible: m < 0, margins: [m] });
    assert.ok(probes.length < 100, "the search must end");
  }
  return probes;
}

/** A cliff at 37: fine up to it, far past the SLA after it. */
const cliff = (c: number) => (c <= 37 ? -0.5 : 1);
/** A smooth rise crossing the SLA at 100.5: margin = c/100.5 − 1. */
const smooth = (c: number) => c / 100.5 - 1;

Deno.test("monotonic search doubles to the first breach, then bisects to a gap of 1 or 5 %", () => {
  const p = new MonotonicPlanner({ lo: 1, hi: 1000, maxIterations: 20 });
  const probes = drive(p, cliff);
  assert.deepEqual(probes.slice(0, 7), [1, 2, 4, 8, 16, 32, 64]);
  // Bisection of [32, 64]: 48, 40, 36, 38, 37 → gap 1.
  assert.deepEqual(probes.slice(7), [48, 40, 36, 38, 37]);
  assert.equal(p.feasibleMax, 37);
  assert.equal(p.infeasibleMin, 38);
  assert.equal(p.reason, "monotonic_precision_reached");
});

Deno.test("monotonic search stops at 5 % precision before the gap reaches 1", () => {
  const p = new MonotonicPlanner({ lo: 1, hi: 1000, maxIterations: 20 });
  drive(p, (c) => (c <= 300 ? -1 : 1));
  assert.ok(p.infeasibleMin! - p.feasibleMax! < 0.05 * p.infeasibleMin!);
  assert.ok(p.feasibleMax! <= 300 && p.infeasibleMin! > 300);
});

Deno.test("a search whose every probe passes ends at hi; one whose first fails ends with no pass", () => {
  const up = new MonotonicPlanner({ lo: 4, hi: 50, maxIterations: 20 });
  assert.deepEqual(drive(up, () => -1), [4, 8, 16, 32, 50]);
  assert.equal(up.feasibleMax, 50);
  assert.equal(up.reason, "monotonic_no_failure_in_range");
  const down = new SmoothIsotonicPlanner({ lo: 4, hi: 50, maxIterations: 20 });
  assert.deepEqual(drive(down, () => 1), [4]);
  assert.equal(down.feasibleMax, undefined);
  assert.equal(down.reason, "smooth_isotonic_no_pass_in_range");
});

Deno.test("the iteration budget ends a search with max_iterations", () => {
  const p = new MonotonicPlanner({ lo: 1, hi: 1000, maxIterations: 5 });
  assert.equal(drive(p, cliff).length, 5);
  assert.equal(p.reason, "max_iterations");
});

Deno.test("smooth-isotonic search lands a smooth curve's crossing exactly where bisection stops at 5 %", () => {
  const s = new SmoothIsotonicPlanner({ lo: 1, hi: 1000, maxIterations: 30 });
  const probes = drive(s, smooth);
  assert.equal(s.feasibleMax, 100);
  assert.equal(s.infeasibleMin, 101);
  assert.equal(s.reason, "smooth_isotonic_precision_reached");
  // 8 doublings, 3 probes inside [64, 128], then the fitted crossing (100) and its neighbour.
  assert.deepEqual(probes, [1, 2, 4, 8, 16, 32, 64, 128, 80, 96, 112, 100, 101]);
  const m = new MonotonicPlanner({ lo: 1, hi: 1000, maxIterations: 30 });
  drive(m, smooth);
  assert.deepEqual([m.feasibleMax, m.infeasibleMin], [100, 104]);
});

Deno.test("smooth-isotonic search pins a cliff too, falling back to bisection where the fit stalls", () => {
  const s = new SmoothIsotonicPlanner({ lo: 1, hi: 1000, maxIterations: 30 });
  const probes = drive(s, cliff);
  assert.equal(s.feasibleMax, 37);
  assert.equal(s.infeasibleMin, 38);
  assert.ok(probes.length <= 16, `${probes.length} probes: ${probes}`);
});

Deno.test("a noisy probe that passes above a failure is flagged and does not move the bracket", () => {
  const p = new MonotonicPlanner({ lo: 1, hi: 100, maxIterations: 20 });
  assert.equal(p.tell(1, { feasible: true, margins: [-1] }), false);
  p.next();
  assert.equal(p.tell(2, { feasible: false, margins: [1] }), false);
  assert.equal(p.tell(3, { feasible: true, margins: [-1] }), true);
  assert.equal(p.feasibleMax, 1);
  assert.equal(p.infeasibleMin, 2);
});
