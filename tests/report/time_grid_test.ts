import assert from "node:assert/strict";
import { TimeGrid } from "../../src/report/time_grid.ts";

Deno.test("TimeGrid: tokens when their chunks arrived, completions, and exact time in flight", () => {
  const grid = new TimeGrid();
  // 0–300 ms; chunks at 100, 200, 300 ms; 6 tokens → 2 per chunk.
  grid.addRequest(0, 300);
  grid.addCompletion(300);
  for (const t of [100, 200, 300]) grid.addTokens(t, 2);
  // 150–250 ms, failed: in flight, but no tokens or completion.
  grid.addRequest(150, 250);
  const ts = grid.series(0.2)!;
  assert.deepEqual(ts.times, [0, 0.2]);
  assert.equal(ts.originMs, 0);
  // [0, 200): the chunk at 100 → 2 tokens (the one at 200 belongs to the next interval); [200, 400): 200 and 300 → 4.
  assert.deepEqual(ts.outputTokensPerSec, [2 / 0.2, 4 / 0.2]);
  assert.deepEqual(ts.requestsPerSec, [0, 1 / 0.2]);
  // [0, 200): 200 ms of the first + 50 of the second = 250 / 200; [200, 400): 100 + 50 = 150 / 200.
  assert.deepEqual(ts.inFlight, [1.25, 0.75]);
  assert.equal(new TimeGrid().series(), undefined);
});

/** Three successful requests over 10 s, in the given order. */
function tenSeconds(grid: TimeGrid, order: readonly number[]): TimeGrid {
  const requests: (() => void)[] = [
    () => {
      grid.addRequest(0, 2500);
      grid.addCompletion(2500);
      grid.addTokens(600, 3);
      grid.addTokens(2400, 5);
    },
    () => {
      grid.addRequest(1000, 1500);
      grid.addCompletion(1500);
    },
    () => {
      grid.addRequest(9000, 10_000);
      grid.addCompletion(10_000);
    },
  ];
  for (const i of order) requests[i]();
  return grid;
}

Deno.test("TimeGrid: coarser units keep the sums exact, whatever order the requests come in", () => {
  // Per 1 s: in flight [0,1) 1000 ms, [1,2) 1000 + 500, [2,3) 500, [9,10) 1000; the end at 10 s counts in the last.
  const expected = {
    intervalSec: 1,
    times: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    outputTokensPerSec: [3, 0, 5, 0, 0, 0, 0, 0, 0, 0],
    requestsPerSec: [0, 1, 1, 0, 0, 0, 0, 0, 0, 1],
    inFlight: [1, 1.5, 0.5, 0, 0, 0, 0, 0, 0, 1],
    originMs: 0,
  };
  const fine = tenSeconds(new TimeGrid(), [0, 1, 2]);
  assert.equal(fine.unitMs, 1);
  assert.deepEqual(fine.series(1), expected);
  // At most 100 buckets: 10 s moves the grid from 1 ms to 50 ms (200 buckets) to 1 s; the interval intervalFor gives
  // (0.2 s) is rounded up to whole buckets.
  for (const order of [[0, 1, 2], [2, 1, 0], [1, 2, 0]]) {
    const coarse = tenSeconds(new TimeGrid(100), order);
    assert.equal(coarse.unitMs, 1000);
    assert.deepEqual(coarse.series(), expected, `order ${order}`);
  }
});

Deno.test("TimeGrid: the unit follows the run's span, and the series starts at the first send on the grid", () => {
  const grid = new TimeGrid();
  grid.addRequest(1234.5, 2000);
  assert.equal(grid.unitMs, 1);
  assert.equal(grid.series()!.originMs, 1234);
  grid.addRequest(1234.5, 70_000);
  assert.equal(grid.unitMs, 50, "70 s in 1 ms buckets is over 65,536");
  assert.equal(grid.series()!.originMs, 1200);
  assert.equal(grid.series()!.intervalSec, 2, "70 s in at most 60 intervals");
  grid.addRequest(0, 3_600_000);
  assert.equal(grid.unitMs, 1000);
  grid.addRequest(0, 10 * 365 * 86_400_000);
  assert.equal(grid.unitMs, 86_400_000, "ten years in days");
});

Deno.test("TimeGrid: grids of parts merge into the grid of the whole, whatever unit each part reached", () => {
  const whole = tenSeconds(new TimeGrid(100), [0, 1, 2]);
  // Each part fits in 100 buckets of 50 ms (2.5 s, and 1 s); both together span 10 s: the merge moves to 1 s.
  const a = tenSeconds(new TimeGrid(100), [0, 1]);
  const b = tenSeconds(new TimeGrid(100), [2]);
  assert.deepEqual([a.unitMs, b.unitMs], [50, 50]);
  for (const [first, second] of [[a, b], [b, a]]) {
    const merged = TimeGrid.fromState(first.state());
    merged.merge(second.state());
    assert.equal(merged.unitMs, 1000);
    assert.deepEqual(merged.series(), whole.series());
  }
  // A part still at 1 ms joins one at 50 ms.
  const short = new TimeGrid(100);
  short.addRequest(120.5, 170.25);
  short.addCompletion(170.25);
  assert.equal(short.unitMs, 1);
  const both = TimeGrid.fromState(a.state());
  both.merge(short.state());
  const together = tenSeconds(new TimeGrid(100), [0, 1]);
  together.addRequest(120.5, 170.25);
  together.addCompletion(170.25);
  assert.deepEqual(both.series(), together.series());
  const empty = new TimeGrid(100);
  empty.merge(whole.state());
  assert.deepEqual(empty.series(), whole.series());
});
