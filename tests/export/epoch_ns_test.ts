import assert from "node:assert/strict";
import { epochNs, isoUtcMicros } from "../../src/export/epoch_ns.ts";

Deno.test("epochNs keeps every nanosecond digit beyond 2^53", () => {
  // origin 1 759 813 207 532 ms + 0.900363 ms → 1 759 813 207 532 900 363 ns
  const ns = epochNs(1_759_813_207_532, 0.900363);
  assert.equal(ns.toString(), "1759813207532900363");
  assert.ok(ns > BigInt(Number.MAX_SAFE_INTEGER));
  // a float would have rounded the last digits away
  assert.notEqual(String(Number(ns)), ns.toString());
});

Deno.test("epochNs adds a fractional time origin and a run-clock offset", () => {
  // 1 759 813 207 532.5 ms + 1 234.25 ms = 1 759 813 208 766.75 ms
  assert.equal(epochNs(1_759_813_207_532.5, 1234.25).toString(), "1759813208766750000");
});

Deno.test("isoUtcMicros prints Python's isoformat in UTC with microseconds", () => {
  const ms = Date.UTC(2025, 9, 17, 20, 22, 8, 939) + 0.332;
  assert.equal(isoUtcMicros(ms), "2025-10-17T20:22:08.939332");
  assert.equal(isoUtcMicros(Date.UTC(2025, 0, 2, 3, 4, 5)), "2025-01-02T03:04:05");
  assert.equal(isoUtcMicros(Date.UTC(2025, 0, 2, 3, 4, 5, 7)), "2025-01-02T03:04:05.007000");
});
