import assert from "node:assert/strict";
import { activeWeightedStats, EventList, timeWeightedStats } from "../../src/metrics/sweep_line.ts";
import {
  SWEEP_METRIC_SPECS,
  sweepCurves,
  sweepMetricStats,
  type SweepRequest,
  sweepStatsByGroup,
  sweepTable,
} from "../../src/metrics/sweep_line_metrics.ts";
import { errorAdjustedStats } from "../../src/metrics/error_adjusted.ts";

function close(actual: number, expected: number, what: string, tol = 1e-9): void {
  assert.ok(
    Math.abs(actual - expected) <= tol * Math.max(1, Math.abs(expected)),
    `${what}: ${actual} vs ${expected}`,
  );
}

// A: prefill [0,10) 100 tokens, decode [10,30) 20 tokens after the first; B: prefill [20,25) 50, decode [25,40) 5.
const A: SweepRequest = { start: 0, gen: 10, end: 30, isl: 100, osl: 21, icl: [] };
const B: SweepRequest = { start: 20, gen: 25, end: 40, isl: 50, osl: 6, icl: [] };

Deno.test("sweep line: concurrency is time-weighted over the window, ends before starts at ties", () => {
  const s = sweepMetricStats(sweepCurves([A, B]), 0, 40).get("effective_concurrency")!;
  // [0,20) 1, [20,30) 2, [30,40) 1 → (20 + 20 + 10) / 40.
  close(s.avg, 1.25, "avg");
  assert.equal(s.min, 1);
  assert.equal(s.max, 2);
  // Held 1 for 30 of 40 ms: the median is 1, p90 is 2.
  assert.equal(s.p50, 1);
  assert.equal(s.p90, 2);
  close(s.std, Math.sqrt((20 * 0.25 ** 2 + 10 * 0.75 ** 2 + 10 * 0.25 ** 2) / 40), "std");
  // Back to back: one ends at 10 as the next starts, never 2 at once.
  const tie = timeWeightedStats(
    (() => {
      const e = new EventList();
      e.interval(0, 10, 1);
      e.interval(10, 20, 1);
      return e.build();
    })(),
    0,
    20,
  );
  assert.equal(tie.max, 1);
});

Deno.test("sweep line: request-level throughputs, phase concurrencies, per-user and active variants by hand", () => {
  const s = sweepMetricStats(sweepCurves([A, B]), 0, 40);
  const avg = (tag: string) => s.get(tag)!.avg;
  // Prefill: 10 tokens/ms over [0,10) and [20,25) → 150 tokens in 40 ms; active only over those 15 ms.
  close(avg("effective_prefill_throughput"), 3750, "prefill");
  close(avg("active_prefill_throughput"), 10_000, "active prefill");
  close(avg("effective_prefill_concurrency"), 15 / 40, "prefill concurrency");
  // Decode: (21−1)/20 = 1 token/ms over [10,30), (6−1)/15 over [25,40) → 25 tokens; decoding for 30 ms.
  close(avg("effective_decode_throughput"), 625, "decode");
  close(avg("active_decode_throughput"), (25 / 30) * 1000, "active decode");
  close(avg("effective_decode_concurrency"), 35 / 40, "decode concurrency");
  // Total: 175 tokens; some request is in flight the whole 40 ms.
  close(avg("effective_total_throughput"), 4375, "total");
  close(avg("active_total_throughput"), 4375, "active total");
  // Per user: 1 on [10,25), (1 + 1/3)/2 on [25,30), 1/3 on [30,40) → 65/3 token-ms.
  close(avg("effective_decode_throughput_per_user"), (65 / 3 / 40) * 1000, "decode per user");
  close(avg("active_decode_throughput_per_user"), (65 / 3 / 30) * 1000, "active decode per user");
  close(avg("effective_prefill_throughput_per_user"), 3750, "prefill per user");
  close(avg("active_prefill_throughput_per_user"), 10_000, "active prefill per user");
  // KV load: 100, 121, 171, 177, 56 held 10, 10, 5, 5, 10 ms.
  const tif = s.get("tokens_in_flight")!;
  close(tif.avg, (1000 + 1210 + 855 + 885 + 560) / 40, "tokens in flight");
  assert.equal(tif.max, 177);
  assert.equal(tif.min, 56);
});

Deno.test("sweep line: chunk gaps spread the decode tokens and grow tokens in flight chunk by chunk", () => {
  // Gaps 10, 0, 20 after the first token at 10: chunks at 20, 20 and 40 (= end, counted just before it).
  const C: SweepRequest = { start: 0, gen: 10, end: 40, isl: 20, osl: 5, icl: [10, 0, 20] };
  const s = sweepMetricStats(sweepCurves([C]), 0, 40);
  // 4 tokens over the 2 non-zero gaps: 2/10 on [10,20), 2/20 on [20,40).
  const decode = s.get("effective_decode_throughput")!;
  close(decode.avg, 100, "decode avg");
  close(decode.max, 200, "decode max");
  // Total throughput stays request-level: 20 prefill tokens + 4 decode tokens in 40 ms.
  close(s.get("effective_total_throughput")!.avg, 600, "total");
  // 20 from 0, +1 first token at 10, +4/3 per chunk at 20, 20 (and just before 40).
  const tif = s.get("tokens_in_flight")!;
  close(tif.avg, (200 + 210 + 20 * (21 + 8 / 3)) / 40, "tokens in flight", 1e-6);
  close(tif.max, 25, "tokens in flight max");
});

Deno.test("sweep line: nothing but concurrency without first tokens (non-streaming), zeros elsewhere", () => {
  const s = sweepMetricStats(sweepCurves([{ ...A, gen: NaN }, { ...B, gen: NaN }]), 0, 40);
  close(s.get("effective_concurrency")!.avg, 1.25, "concurrency");
  for (const [tag, stats] of s) if (tag !== "effective_concurrency") assert.equal(stats.max, 0, tag);
});

interface FixtureRequest {
  start: number;
  gen: number | null;
  end: number;
  isl: number | null;
  osl: number | null;
  icl: number[];
}

Deno.test("sweep line: equals AIPerf 0.13's own sweep-line output on seeded requests (failures, gaps, zero gaps)", async () => {
  const fixture = JSON.parse(
    await Deno.readTextFile(new URL("../fixtures/aiperf_0_13/sweep_line_cases.json", import.meta.url)),
  ) as {
    cases: {
      window: [number, number];
      requests: FixtureRequest[];
      expected: Record<string, Record<string, number>>;
    }[];
  };
  assert.equal(fixture.cases.length, 3);
  for (const [i, c] of fixture.cases.entries()) {
    const requests = c.requests.map((r) => ({
      start: r.start,
      end: r.end,
      gen: r.gen ?? NaN,
      isl: r.isl ?? NaN,
      osl: r.osl ?? NaN,
      icl: r.icl,
    }));
    const stats = sweepMetricStats(sweepCurves(requests), c.window[0], c.window[1]);
    assert.deepEqual([...stats.keys()].sort(), Object.keys(c.expected).sort());
    for (const [tag, expected] of Object.entries(c.expected)) {
      for (const [key, value] of Object.entries(expected)) {
        close(stats.get(tag)![key as "avg"], value, `case ${i} ${tag}.${key}`, 1e-7);
      }
    }
  }
});

Deno.test("error-adjusted statistics: failures are +inf, percentiles are numpy's nearest rank", () => {
  // 3 successes + 1 failure = [1, 2, 3, inf]: numpy nearest gives p25 → index 0.75 → 1 → 2, p50 → 1.5 → 2 → 3.
  const s = errorAdjustedStats(new Float64Array([3, 1, 2]), 1);
  assert.equal(s.count, 4);
  assert.equal(s.min, 1);
  assert.equal(s.avg, Infinity);
  assert.equal(s.max, Infinity);
  assert.equal(s.sum, Infinity);
  assert.ok(Number.isNaN(s.std));
  assert.deepEqual([s.p1, s.p5, s.p10, s.p25, s.p50, s.p75, s.p90, s.p95, s.p99], [
    1,
    1,
    1,
    2,
    3,
    3,
    Infinity,
    Infinity,
    Infinity,
  ]);
  // numpy.percentile(arange(10), q, method="nearest") = [0, 0, 1, 2, 4, 7, 8, 9, 9] (ties go to the even index).
  const ten = errorAdjustedStats(new Float64Array([0, 1, 2, 3, 4, 5, 6, 7, 8]), 1);
  assert.deepEqual(
    [ten.p1, ten.p5, ten.p10, ten.p25, ten.p50, ten.p75, ten.p90, ten.p95, ten.p99],
    [0, 0, 1, 2, 4, 7, 8, Infinity, Infinity],
  );
});

Deno.test("sweep line: built a group of curves at a time, every statistic is bit for bit the one-pass result", async () => {
  const fixture = JSON.parse(
    await Deno.readTextFile(new URL("../fixtures/aiperf_0_13/sweep_line_cases.json", import.meta.url)),
  ) as { cases: { window: [number, number]; requests: FixtureRequest[] }[] };
  const sets = fixture.cases.map((c) => ({
    window: { start: c.window[0], end: c.window[1] } as { start: number; end: number } | undefined,
    requests: c.requests.map((r) => ({
      start: r.start,
      end: r.end,
      gen: r.gen ?? NaN,
      isl: r.isl ?? NaN,
      osl: r.osl ?? NaN,
      icl: r.icl,
    })),
  }));
  // seeded streams, with and without gaps, some failed, over no given window
  let x = 17;
  const rnd = () => (x = (x * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  for (const chunked of [true, false]) {
    const requests = Array.from({ length: 400 }, (_, i) => {
      const start = i * 3.7 + rnd() * 5;
      const gen = rnd() < 0.05 ? NaN : start + 5 + rnd() * 40;
      const gaps = chunked && !Number.isNaN(gen)
        ? Array.from({ length: 1 + Math.floor(rnd() * 20) }, () => rnd() < 0.1 ? 0 : rnd() * 4)
        : [];
      const end = (Number.isNaN(gen) ? start + 3 : gen) + gaps.reduce((a, b) => a + b, 0) + rnd();
      return {
        start,
        gen,
        end,
        isl: 100 + Math.floor(rnd() * 900),
        osl: Number.isNaN(gen) ? NaN : gaps.length + 1,
        icl: gaps,
      };
    });
    sets.push({ window: undefined, requests });
  }
  for (const { window, requests } of sets) {
    const curves = sweepCurves(requests);
    const t = curves.concurrency.times;
    const want = sweepMetricStats(curves, window?.start ?? t[0], window?.end ?? t[t.length - 1]);
    const got = sweepStatsByGroup(sweepTable(requests), window);
    assert.deepEqual([...got.keys()], SWEEP_METRIC_SPECS.map((s) => s.tag));
    for (const [tag, stats] of want) assert.deepEqual(got.get(tag), stats, tag);
  }
});

Deno.test("active-weighted stats count only the time the mask is on, over shared and boundary event times", () => {
  const step = (times: number[], values: number[]) => ({
    times: Float64Array.from(times),
    values: Float64Array.from(values),
  });
  // The rate changes at 0, 10, 20 and 30; the mask is on over [10, 20) and [25, 40), sharing the times 10 and 20
  // with the rate, and the window [10, 35] starts on one of them.
  const rate = step([0, 10, 20, 30], [5, 2, 4, 8]);
  const mask = step([0, 10, 20, 25, 40], [0, 1, 0, 1, 0]);
  const s = activeWeightedStats(rate, mask, 10, 35);
  // Active: [10, 20) at 2, [25, 30) at 4, [30, 35) at 8: 20 ms, (20 + 20 + 40) / 20 = 4.
  close(s.avg, 4, "avg");
  assert.equal(s.min, 2);
  assert.equal(s.max, 8);
  // Sorted by value: 2 for 10 ms (half), 4 for 5, 8 for 5: the median is 2, p90 is 8.
  assert.equal(s.p50, 2);
  assert.equal(s.p90, 8);
  close(s.std, Math.sqrt((10 * 4 + 5 * 0 + 5 * 16) / 20), "std");
});
