import assert from "node:assert/strict";
import { thinkTimeDraw } from "../../src/engine/think_time.ts";

Deno.test("think-time draws are lognormal around the median, clamped, and the same for the same session and turn", () => {
  const draws = Array.from({ length: 2001 }, (_, s) => thinkTimeDraw({ sigma: 0.5 }, 1000, 7, s, "spine", 1));
  const sorted = [...draws].sort((a, b) => a - b);
  // The median of exp(N(0, σ)) is 1: the draws' median is within a few percent of 1000 ms.
  assert.ok(Math.abs(sorted[1000] - 1000) < 60, `median ${sorted[1000]}`);
  // ln(draw / median) has standard deviation σ.
  const logs = draws.map((d) => Math.log(d / 1000));
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
  const sd = Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (logs.length - 1));
  assert.ok(Math.abs(sd - 0.5) < 0.03, `sd ${sd}`);
  assert.equal(thinkTimeDraw({ sigma: 0.5 }, 1000, 7, 3, "spine", 1), draws[3]);
  assert.notEqual(thinkTimeDraw({ sigma: 0.5 }, 1000, 7, 3, "spine", 2), draws[3], "another round draws anew");
  const clamped = Array.from(
    { length: 200 },
    (_, s) => thinkTimeDraw({ sigma: 2, minMs: 500, maxMs: 1500 }, 1000, 1, s, "x", 0),
  );
  assert.ok(clamped.every((d) => d >= 500 && d <= 1500));
  assert.ok(clamped.includes(500) && clamped.includes(1500));
  assert.equal(thinkTimeDraw({ sigma: 1 }, 0, 1, 1, "x", 0), 0);
});
