import assert from "node:assert/strict";
import { reduceRunRecords, type RunChartData } from "../../src/report/run_chart_data.ts";
import { LineError } from "../../src/report/report_error.ts";

/** 2023-11-14T22:13:20Z in ns: a whole millisecond, so times below are exact. */
const T0 = 1_700_000_000_000_000_000;
const MS = 1e6;

function line(startMs: number, endMs: number, metrics: Record<string, unknown>, failed = false): string {
  const m = Object.fromEntries(Object.entries(metrics).map(([k, v]) => [k, { value: v, unit: "ms" }]));
  return JSON.stringify({
    metadata: { request_start_ns: T0 + startMs * MS, request_end_ns: T0 + endMs * MS, benchmark_phase: "profiling" },
    metrics: m,
    ...(failed ? { error: { code: 500, type: "x", message: "y" } } : {}),
  });
}

function stream(text: string): { name: string; readable: ReadableStream<Uint8Array> } {
  return { name: "run.jsonl", readable: ReadableStream.from([new TextEncoder().encode(text)]) };
}

Deno.test("reduceRunRecords: a small run's distributions, scatters and series, computed by hand", async () => {
  const text = [
    // Streamed: chunks at 100, 200 and 300 ms, 6 tokens → 2 each.
    line(0, 300, {
      time_to_first_token: 100,
      inter_chunk_latency: [100, 100],
      inter_token_latency: 100,
      request_latency: 300,
      output_sequence_length: 6,
    }),
    line(150, 250, {}, true),
    // Not streamed: its 4 tokens count at its end.
    line(400, 500, { request_latency: 100, output_sequence_length: 4 }),
  ].join("\n");
  const data: RunChartData = await reduceRunRecords(stream(text));
  assert.equal(data.records, 3);
  assert.deepEqual(data.ttft, { count: 1, histogram: { edges: [100], width: 0, counts: [1] }, cdf: [[100, 100]] });
  assert.deepEqual(data.latency?.cdf, [[100, 50], [300, 100]]);
  assert.deepEqual(data.ttftOverTime, { total: 1, points: [[0, 100]] });
  assert.deepEqual(data.itlOverTime, { total: 1, points: [[0, 100]] });
  assert.deepEqual(data.latencyVsLength, { total: 2, points: [[6, 300], [4, 100]] });
  // 0.5 s → 10 intervals of 50 ms; the end at 500 ms counts in the last one.
  const s = data.series!;
  assert.equal(s.intervalSec, 0.05);
  assert.equal(s.originMs, T0 / MS);
  assert.deepEqual(s.outputTokensPerSec, [0, 0, 40, 0, 40, 0, 40, 0, 0, 80]);
  assert.deepEqual(s.requestsPerSec, [0, 0, 0, 0, 0, 0, 20, 0, 0, 20]);
  // The first request covers 0–300 ms, the failed one 150–250, the last 400–500 (epoch times in float ms are within
  // a quarter of a microsecond).
  const inFlight = [1, 1, 1, 2, 2, 1, 0, 0, 1, 1];
  s.inFlight.forEach((v, i) => assert.ok(Math.abs(v - inFlight[i]) < 1e-5, `interval ${i}: ${v}`));
});

/** `n` records over ~`n` × 10 ms, with varied values (deterministic). */
function manyRecords(n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const start = i * 10 + (i % 7);
    const ttft = 20 + ((i * 37) % 101);
    return line(start, start + ttft + 50, {
      time_to_first_token: ttft,
      inter_chunk_latency: [10, 15, 25],
      inter_token_latency: 50 / 3,
      request_latency: ttft + 50,
      output_sequence_length: 4 + (i % 5),
    }, i % 13 === 0);
  });
}

Deno.test("reduceRunRecords: past every limit, totals stay exact and the samples stay within bounds", async () => {
  const lines = manyRecords(2000);
  const exact = await reduceRunRecords(stream(lines.join("\n")));
  const small = await reduceRunRecords(stream(lines.join("\n")), {
    limits: { exactValues: 50, scatterPoints: 30, gridBuckets: 100 },
  });
  assert.equal(small.ttft!.count, exact.ttft!.count);
  assert.equal(small.ttftOverTime!.points.length, 30);
  assert.equal(small.ttftOverTime!.total, exact.ttftOverTime!.total);
  const sum = (xs: readonly number[], w: number) => xs.reduce((a, b) => a + b, 0) * w;
  for (const key of ["outputTokensPerSec", "requestsPerSec", "inFlight"] as const) {
    const a = sum(small.series![key], small.series!.intervalSec);
    const b = sum(exact.series![key], exact.series!.intervalSec);
    assert.ok(Math.abs(a - b) < 1e-6 * b, `${key}: ${a} vs ${b}`);
  }
  assert.ok(small.series!.intervalSec >= 1, "20 s in at most 100 buckets: 1 s buckets");
  small.ttft!.cdf.forEach(([v, pct], i) => {
    const [e, epct] = exact.ttft!.cdf[i];
    assert.equal(pct, epct);
    assert.ok(Math.abs(v - e) <= 0.005 * e, `CDF point ${i}: ${v} vs ${e}`);
  });
});

Deno.test("reduceRunRecords: Workers reading parts of a file give the data of one pass", async () => {
  const tmp = await Deno.makeTempFile({ suffix: ".jsonl" });
  try {
    // Blank lines and a warm-up record among them: parts may start or end on any of them.
    const lines = manyRecords(600);
    lines.splice(100, 0, "", JSON.stringify({ metadata: { benchmark_phase: "warmup", request_start_ns: T0 } }));
    await Deno.writeTextFile(tmp, lines.join("\n") + "\n");
    const limits = { exactValues: 100, scatterPoints: 50 };
    const one = await reduceRunRecords(tmp, { limits, workers: 1 });
    for (const workers of [2, 3, 7]) {
      const parts = await reduceRunRecords(tmp, { limits, workers });
      assert.equal(parts.records, 600);
      assert.deepEqual(parts.ttft, one.ttft, `${workers} workers`);
      assert.deepEqual(parts.ttftOverTime, one.ttftOverTime, `${workers} workers`);
      assert.deepEqual(parts.latencyVsLength, one.latencyVsLength, `${workers} workers`);
      assert.deepEqual(parts.series!.times, one.series!.times);
      parts.series!.inFlight.forEach((v, i) => assert.ok(Math.abs(v - one.series!.inFlight[i]) < 1e-9));
    }
    // A bad line in a later part is numbered in the whole file, as one pass numbers it.
    lines[500] = "{oops";
    await Deno.writeTextFile(tmp, lines.join("\n") + "\n");
    for (const workers of [1, 3]) {
      await assert.rejects(
        reduceRunRecords(tmp, { limits, workers }),
        (e: unknown) => e instanceof LineError && e.line === 501 && /:501: not valid JSON/.test(e.message),
      );
    }
  } finally {
    await Deno.remove(tmp);
  }
});
