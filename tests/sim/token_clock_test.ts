import assert from "node:assert/strict";
import { SeededRandom } from "../../src/base/seeded_random.ts";
import { TokenClock } from "../../src/sim/token_clock.ts";

const NO_JITTER = { ttftMs: 20, itlMs: 5, ttftJitter: 0, itlJitter: 0 };

Deno.test("token clock without jitter puts token k at ttft + k*itl", () => {
  const clock = new TokenClock(NO_JITTER, new SeededRandom(1));
  const dues = Array.from({ length: 6 }, () => clock.next());
  assert.deepEqual(dues, [20, 25, 30, 35, 40, 45]);
});

Deno.test("token clock advance(n) equals n single steps, with and without jitter", () => {
  for (const options of [NO_JITTER, { ...NO_JITTER, ttftJitter: 0.3, itlJitter: 0.5 }]) {
    const a = new TokenClock(options, new SeededRandom(9));
    const b = new TokenClock(options, new SeededRandom(9));
    const stepped: number[] = [];
    const advanced: number[] = [];
    for (const n of [1, 4, 1, 7, 3]) {
      let last = 0;
      for (let i = 0; i < n; i++) last = a.next();
      stepped.push(last);
      advanced.push(b.advance(n));
    }
    for (let i = 0; i < stepped.length; i++) assert.ok(Math.abs(stepped[i] - advanced[i]) < 1e-9);
  }
});

Deno.test("token clock jitter is lognormal with mean 1 and the asked coefficient of variation", () => {
  const rng = new SeededRandom(4);
  const ttfts: number[] = [];
  const gaps: number[] = [];
  for (let i = 0; i < 4000; i++) {
    const clock = new TokenClock({ ttftMs: 100, itlMs: 10, ttftJitter: 0.5, itlJitter: 0.2 }, rng);
    const first = clock.next();
    ttfts.push(first);
    gaps.push(clock.next() - first);
  }
  const stats = (xs: number[]) => {
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length);
    return { mean, cv: sd / mean };
  };
  const t = stats(ttfts);
  const g = stats(gaps);
  assert.ok(Math.abs(t.mean - 100) < 4, `ttft mean ${t.mean}`);
  assert.ok(Math.abs(t.cv - 0.5) < 0.06, `ttft cv ${t.cv}`);
  assert.ok(Math.abs(g.mean - 10) < 0.3, `itl mean ${g.mean}`);
  assert.ok(Math.abs(g.cv - 0.2) < 0.03, `itl cv ${g.cv}`);
  assert.ok(ttfts.every((x) => x > 0) && gaps.every((x) => x > 0));
});

Deno.test("token clock with the same seed gives the same schedule", () => {
  const options = { ttftMs: 50, itlMs: 5, ttftJitter: 0.4, itlJitter: 0.4 };
  const a = new TokenClock(options, new SeededRandom(77));
  const b = new TokenClock(options, new SeededRandom(77));
  for (let i = 0; i < 50; i++) assert.equal(a.next(), b.next());
});
