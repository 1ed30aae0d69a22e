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
  // Times closer than a millisecond: each request counts from its start to its end, however short.
  assert.equal(peak([5], [5.2]), 1); // a 0.2 ms request (a refused connection)
  assert.equal(peak([0, 10.2], [10.3, 20]), 2); // 10.2–10.3: both in flight
  assert.equal(peak([0, 10.3], [10.3, 20]), 1); // back to back at a fractional time
});

Deno.test("peak in flight is the same through a small sort window, nearly ordered or not, as from sorted copies", () => {
  let x = 12345;
  const r = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
  // The reference: both time columns sorted whole, merged with an end first at equal times.
  const reference = (starts: Float64Array, ends: Float64Array) => {
    const s = starts.slice().sort(), e = ends.slice().sort();
    let level = 0, peak = 0;
    for (let i = 0, j = 0; i < s.length || j < e.length;) {
      if (j >= e.length || (i < s.length && s[i] < e[j])) (level++, i++);
      else (level--, j++);
      peak = Math.max(peak, level);
    }
    return peak;
  };
  for (const n of [1, 2, 50, 2000]) {
    for (const shape of ["arrival", "shuffled", "ties"]) {
      // 64 streams: a request ends, the stream's next starts; records arrive in end order (some long ones stray far)
      const streams = new Float64Array(64);
      const reqs = Array.from({ length: n }, (_, i) => {
        const k = i % 64;
        const start = shape === "ties" ? Math.floor(streams[k]) : streams[k] + r();
        const end = start + (shape === "ties" ? Math.floor(r() * 3) * 0.5 : r() < 0.02 ? 500 * r() : 5 * r());
        streams[k] = end;
        return { start, end };
      });
      if (shape === "shuffled") reqs.sort(() => r() - 0.5);
      else reqs.sort((a, b) => a.end - b.end);
      const starts = Float64Array.from(reqs, (q) => q.start), ends = Float64Array.from(reqs, (q) => q.end);
      const want = reference(starts, ends);
      for (const window of [1, 4, 64, 1 << 16]) {
        const got = loadReport(starts, ends, none, undefined, 0, window).peakInFlight;
        assert.equal(got, want, `n ${n} ${shape} window ${window}`);
      }
    }
  }
});
