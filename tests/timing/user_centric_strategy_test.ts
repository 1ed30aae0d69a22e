import assert from "node:assert/strict";
import { initialUsers } from "../../src/timing/user_centric_strategy.ts";
import { rampedRate, RampTimeMap } from "../../src/timing/rate_ramp.ts";
import { createArrivalSchedule } from "../../src/timing/arrival_pattern.ts";
import { SeededRandom } from "../../src/base/seeded_random.ts";

Deno.test("user-centric: the initial users reproduce AIPerf's steady-state table (15 users, 20 turns, 1 req/s)", () => {
  const users = initialUsers({ users: 15, rate: 1, sessionTurns: 20 });
  // AIPerf's docstring: user 1 is virtually done; a fresh user starts at 0 s with every turn, then users with
  // 6, 11, 16, 2, 7, 12, 17, 3, 8, 13, 18, 4, 9, 14 turns left start 1 s apart.
  const byTime = [...users].sort((a, b) => a.atMs - b.atMs);
  assert.deepEqual(byTime.map((u) => u.atMs), Array.from({ length: 15 }, (_, i) => i * 1000));
  assert.deepEqual(byTime.map((u) => u.maxTurns), [undefined, 6, 11, 16, 2, 7, 12, 17, 3, 8, 13, 18, 4, 9, 14]);
});

Deno.test("user-centric: shared factors use the alternate spacing, so every start slot is distinct", () => {
  const users = initialUsers({ users: 4, rate: 2, sessionTurns: 3 }); // lifetime 2, gcd(4, 2) = 2
  const times = users.map((u) => u.atMs);
  assert.equal(new Set(times).size, times.length, `distinct start times: ${times}`);
  assert.ok(times.every((t) => t >= 0 && t <= 4 * 500));
});

Deno.test("rate ramp: starts at target × 0.1 s / duration and rises linearly in 0.1 s steps", () => {
  assert.equal(rampedRate(10, 2000, 0), 0.5);
  assert.equal(rampedRate(10, 2000, 1050), 0.5 + 9.5 * 1000 / 2000);
  assert.equal(rampedRate(10, 2000, 2000), 10);
  // Below 1 req/s the start is still above zero (AIPerf's reason for the proportional start).
  assert.ok(rampedRate(0.2, 10_000, 0) > 0);
});

Deno.test("rate ramp: arrivals per window follow the ramped rate (seeded Poisson, expected counts)", () => {
  const target = 200;
  const rampMs = 2000;
  const schedule = createArrivalSchedule({ pattern: "poisson", rate: target }, new SeededRandom(7));
  const map = new RampTimeMap(target, rampMs);
  const counts = [0, 0, 0, 0, 0, 0];
  for (;;) {
    const t = map.timeFor(schedule.next());
    if (t >= 3000) break;
    counts[Math.floor(t / 500)]++;
  }
  // Expected arrivals per 0.5 s window: ∫ r(t) dt over the step function, then the target past the ramp.
  const expected = [0, 1, 2, 3, 4, 5].map((w) => {
    let sum = 0;
    for (let t = w * 500; t < (w + 1) * 500; t += 100) sum += rampedRate(target, rampMs, t) * 0.1;
    return sum;
  });
  for (let w = 0; w < 6; w++) {
    // Poisson counts: within 4 standard deviations (seeded, so this never flakes).
    assert.ok(
      Math.abs(counts[w] - expected[w]) <= 4 * Math.sqrt(expected[w]),
      `window ${w}: ${counts[w]} arrivals, expected ${expected[w].toFixed(1)}`,
    );
  }
  assert.ok(counts[0] < counts[1] && counts[1] < counts[2] && counts[2] < counts[3], `rising: ${counts}`);
});

/** Kolmogorov–Smirnov statistic of a sample against a CDF. */
function ksStatistic(sample: number[], cdf: (x: number) => number): number {
  const xs = [...sample].sort((a, b) => a - b);
  let d = 0;
  xs.forEach((x, i) => {
    const f = cdf(x);
    d = Math.max(d, (i + 1) / xs.length - f, f - i / xs.length);
  });
  return d;
}

Deno.test("inter-arrival times pass a Kolmogorov–Smirnov test: Poisson → exponential, gamma → gamma(k) mean 1/rate", () => {
  const n = 4000;
  // Critical value at α = 0.01: 1.628 / √n.
  const critical = 1.628 / Math.sqrt(n);
  const gaps = (pattern: "poisson" | "constant", seed: number) => {
    const s = createArrivalSchedule({ pattern, rate: 50 }, new SeededRandom(seed));
    let prev = s.next();
    return Array.from({ length: n }, () => {
      const t = s.next();
      const g = t - prev;
      prev = t;
      return g;
    });
  };
  const exp = (x: number) => 1 - Math.exp(-x / 20);
  for (const seed of [1, 2, 3]) {
    const d = ksStatistic(gaps("poisson", seed), exp);
    assert.ok(d < critical, `seed ${seed}: D = ${d.toFixed(4)} ≥ ${critical.toFixed(4)}`);
  }
  // The test can fail: constant gaps are far from exponential.
  assert.ok(ksStatistic(gaps("constant", 1), exp) > critical);
  // Gamma with shape 2 (Erlang-2, mean 20 ms): CDF 1 − e^(−x/θ)(1 + x/θ), θ = 10.
  const s = createArrivalSchedule({ pattern: "gamma", rate: 50, smoothness: 2 }, new SeededRandom(11));
  let prev = s.next();
  const g = Array.from({ length: n }, () => {
    const t = s.next();
    const d = t - prev;
    prev = t;
    return d;
  });
  const d = ksStatistic(g, (x) => 1 - Math.exp(-x / 10) * (1 + x / 10));
  assert.ok(d < critical, `gamma: D = ${d.toFixed(4)}`);
});
