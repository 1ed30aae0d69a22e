import assert from "node:assert/strict";
import { PointSample } from "../../src/report/point_sample.ts";
import { mixHash } from "../../src/report/bottom_k.ts";

Deno.test("PointSample: every point, in order, up to its capacity", () => {
  const s = new PointSample(5);
  for (const [x, y] of [[3, 30], [1, 10], [2, 20]]) s.add(x, y, mixHash(x, 0));
  assert.deepEqual(s.points(), [[3, 30], [1, 10], [2, 20]]);
  assert.equal(s.seen, 3);
});

/** Points i = from … to − 1 at (i, −i), keyed by a hash of i. */
function sampleOf(from: number, to: number, capacity = 100): PointSample {
  const s = new PointSample(capacity);
  for (let i = from; i < to; i++) s.add(i, -i, mixHash(i, 7));
  return s;
}

Deno.test("PointSample: beyond its capacity, the same spread-out subset each time, in order", () => {
  const s = sampleOf(0, 10_000);
  const points = s.points();
  assert.equal(s.seen, 10_000);
  assert.equal(points.length, 100);
  assert.deepEqual(points, sampleOf(0, 10_000).points(), "deterministic");
  const xs = points.map(([x]) => x);
  assert.deepEqual(xs, [...xs].sort((a, b) => a - b), "in stream order");
  assert.ok(points.every(([x, y]) => y === -x), "each point keeps its own y");
  // A uniform sample: every tenth of the stream holds some, none holds most.
  for (let d = 0; d < 10; d++) {
    const inDecile = xs.filter((x) => Math.floor(x / 1000) === d).length;
    assert.ok(inDecile >= 2 && inDecile <= 25, `decile ${d}: ${inDecile} points`);
  }
});

Deno.test("PointSample: samples of consecutive parts merge into the sample of the whole", () => {
  const whole = sampleOf(0, 10_000);
  for (const cuts of [[0, 5000, 10_000], [0, 30, 9_990, 10_000], [0, 1, 2, 3, 10_000]]) {
    const merged = sampleOf(cuts[0], cuts[1]);
    for (let i = 1; i + 1 < cuts.length; i++) merged.merge(sampleOf(cuts[i], cuts[i + 1]).state());
    assert.equal(merged.seen, 10_000);
    assert.deepEqual(merged.points(), whole.points(), `cut at ${cuts}`);
  }
  // Equal keys are kept in stream order, merged or not.
  const ties = (n: number) => {
    const s = new PointSample(3);
    for (let i = 0; i < n; i++) s.add(i, 0, 1);
    return s;
  };
  const tied = ties(2);
  tied.merge(ties(5).state());
  assert.deepEqual(tied.points(), [[0, 0], [1, 0], [0, 0]]);
  assert.deepEqual(ties(7).points(), [[0, 0], [1, 0], [2, 0]]);
});
