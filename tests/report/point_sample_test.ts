import assert from "node:assert/strict";
import { PointSample } from "../../src/report/point_sample.ts";

Deno.test("PointSample: every point, in order, up to its capacity", () => {
  const s = new PointSample(5);
  for (const [x, y] of [[3, 30], [1, 10], [2, 20]]) s.add(x, y);
  assert.deepEqual(s.points(), [[3, 30], [1, 10], [2, 20]]);
  assert.equal(s.seen, 3);
});

Deno.test("PointSample: beyond its capacity, the same spread-out subset each time, in order", () => {
  const sample = () => {
    const s = new PointSample(100);
    for (let i = 0; i < 10_000; i++) s.add(i, -i);
    return s;
  };
  const s = sample();
  const points = s.points();
  assert.equal(s.seen, 10_000);
  assert.equal(points.length, 100);
  assert.deepEqual(points, sample().points(), "deterministic");
  const xs = points.map(([x]) => x);
  assert.deepEqual(xs, [...xs].sort((a, b) => a - b), "in stream order");
  assert.ok(points.every(([x, y]) => y === -x), "each point keeps its own y");
  // A uniform sample: every tenth of the stream holds some, none holds most.
  for (let d = 0; d < 10; d++) {
    const inDecile = xs.filter((x) => Math.floor(x / 1000) === d).length;
    assert.ok(inDecile >= 2 && inDecile <= 25, `decile ${d}: ${inDecile} points`);
  }
});
