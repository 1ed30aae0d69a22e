import assert from "node:assert/strict";
import { loadReport } from "../../../src/run/sinks/load_sink.ts";

const none = new Float64Array(0);

Deno.test("peak in flight: a request ending when another starts is not counted twice; nested ones are", () => {
  const peak = (starts: number[], ends: number[]) =>
    loadReport(Float64Array.from(starts), Float64Array.from(ends), none, undefined, 0).peakInFlight;
  assert.equal(peak([0, 10, 20], [10, 20, 30]), 1); // back to back
  assert.equal(peak([0, 5, 6, 30], [10, 7, 8, 40]), 3); // 0–10, 5–7 and 6–8 all at 6–7
  assert.equal(peak([0, 0, 0, 0], [1, 1, 1, 1]), 4); // identical
  assert.equal(peak([3, 1, 2, 0.5], [4, 5, 3.5, 2.2]), 3); // unsorted input: 1–5, 2–3.5 and 0.5–2.2 at 2–2.2
  assert.equal(peak([], []), 0);
});
