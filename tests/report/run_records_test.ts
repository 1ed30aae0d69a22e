import assert from "node:assert/strict";
import { parseRunRecords } from "../../src/report/run_records.ts";
import { ReportError } from "../../src/report/report_error.ts";

function line(startNs: number, endNs: number, metrics: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const m = Object.fromEntries(Object.entries(metrics).map(([k, v]) => [k, { value: v, unit: "ms" }]));
  return JSON.stringify({
    metadata: { request_start_ns: startNs, request_end_ns: endNs, benchmark_phase: "profiling", ...extra },
    metrics: m,
    error: null,
  });
}

Deno.test("parseRunRecords: times from the first send, chunk arrivals rebuilt from TTFT and the chunk gaps", () => {
  const t0 = 1_700_000_000_000_000_000;
  const text = [
    line(t0 + 5_000_000, t0 + 60_000_000, {
      time_to_first_token: 20,
      inter_chunk_latency: [10, 15],
      request_latency: 55,
      output_sequence_length: 3,
    }),
    line(t0, t0 + 40_000_000, {}, { benchmark_phase: "warmup" }),
    line(t0 + 1_000_000, t0 + 2_000_000, {}),
    "",
  ].join("\n");
  const points = parseRunRecords(text, "x.jsonl");
  assert.equal(points.length, 2, "the warm-up record is left out");
  // Origin = the earliest profiling send (t0 + 1 ms); float nanoseconds round to well under a microsecond.
  assert.ok(Math.abs(points[0].startMs - 4) < 1e-3);
  assert.ok(Math.abs(points[0].endMs - 59) < 1e-3);
  assert.deepEqual(points[0].chunkTimesMs!.map((t) => Math.round(t * 1000) / 1000), [24, 34, 49]);
  assert.equal(points[0].outputTokens, 3);
  assert.equal(points[1].chunkTimesMs, undefined);
});

Deno.test("parseRunRecords: a bad line is reported with its file and line number", () => {
  const text = `${line(1, 2, {})}\n{oops\n`;
  assert.throws(
    () => parseRunRecords(text, "run/profile_export.jsonl"),
    (e: unknown) => e instanceof ReportError && /^run\/profile_export\.jsonl:2: not valid JSON/.test(e.message),
  );
  assert.throws(() => parseRunRecords(`{"metrics":{}}`, "f.jsonl"), /f\.jsonl:1: not a per-request record/);
});
