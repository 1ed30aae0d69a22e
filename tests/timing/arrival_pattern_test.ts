import assert from "node:assert/strict";
import { createArrivalSchedule } from "../../src/timing/arrival_pattern.ts";
import { SeededRandom } from "../../src/base/seeded_random.ts";

const take = (n: number, next: () => number) => Array.from({ length: n }, next);

Deno.test("constant arrivals are an exact grid from zero", () => {
  const s = createArrivalSchedule({ pattern: "constant", rate: 4 }, new SeededRandom(1));
  assert.deepStrictEqual(take(5, s.next), [0, 250, 500, 750, 1000]);
});

Deno.test("constant arrivals do not drift over a million requests", () => {
  const s = createArrivalSchedule({ pattern: "constant", rate: 3 }, new SeededRandom(1));
  let t = 0;
  for (let i = 0; i < 1_000_000; i++) t = s.next();
  // Request 999 999 at 3/s is due at exactly 999999/3 s; repeated addition of 333.33… would have drifted.
  assert.equal(t, 999_999 * (1000 / 3));
});

Deno.test("sharded constant arrivals interleave into the single-stream grid", () => {
  const shards = [0, 1, 2].map((i) =>
    createArrivalSchedule({ pattern: "constant", rate: 10, shardIndex: i, shardCount: 3 }, new SeededRandom(i))
  );
  const union = shards.flatMap((s) => take(4, s.next)).sort((a, b) => a - b);
  const single = createArrivalSchedule({ pattern: "constant", rate: 10 }, new SeededRandom(9));
  assert.deepStrictEqual(union, take(12, single.next));
});

Deno.test("poisson arrivals start at zero and have mean gap 1/rate", () => {
  const s = createArrivalSchedule({ pattern: "poisson", rate: 20 }, new SeededRandom(42));
  assert.equal(s.next(), 0);
  const n = 200_000;
  let last = 0;
  let sumSq = 0;
  for (let i = 0; i < n; i++) {
    const t = s.next();
    sumSq += (t - last) ** 2;
    last = t;
  }
  const mean = last / n;
  // Exponential: mean 50 ms, variance 2500 → E[gap²] = 5000. Seeded, so deterministic; bounds are loose.
  assert.ok(Math.abs(mean - 50) < 0.5, `mean gap ${mean}`);
  assert.ok(Math.abs(sumSq / n - 5000) < 150, `E[gap²] ${sumSq / n}`);
});

Deno.test("gamma arrivals keep the mean and shrink variance when smoothness grows", () => {
  const n = 100_000;
  const gaps = (k: number) => {
    const s = createArrivalSchedule({ pattern: "gamma", rate: 10, smoothness: k }, new SeededRandom(7));
    s.next();
    let last = 0;
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = s.next();
      out.push(t - last);
      last = t;
    }
    const mean = out.reduce((a, b) => a + b, 0) / n;
    const variance = out.reduce((a, b) => a + (b - mean) ** 2, 0) / n;
    return { mean, variance };
  };
  const smooth = gaps(4);
  const bursty = gaps(0.5);
  assert.ok(Math.abs(smooth.mean - 100) < 1.5, `smooth mean ${smooth.mean}`);
  assert.ok(Math.abs(bursty.mean - 100) < 3, `bursty mean ${bursty.mean}`);
  // Var = mean²/k: 2500 for k=4, 20000 for k=0.5.
  assert.ok(Math.abs(smooth.variance - 2500) < 150, `smooth var ${smooth.variance}`);
  assert.ok(Math.abs(bursty.variance - 20000) < 1500, `bursty var ${bursty.variance}`);
});

Deno.test("arrival schedule rejects a non-positive rate and gamma without smoothness", () => {
  assert.throws(() => createArrivalSchedule({ pattern: "constant", rate: 0 }, new SeededRandom(1)), RangeError);
  assert.throws(
    () => createArrivalSchedule({ pattern: "gamma", rate: 1 }, new SeededRandom(1)).next(),
    RangeError,
  );
});
