import assert from "node:assert/strict";
import { readRecordSamples } from "../../src/report/record_samples.ts";

const T0 = 1_700_000_000_000_000_000;

/** A run directory of `n` records (every 7th failed), with its records file under AIPerf's name. */
async function runDir(n: number): Promise<string> {
  const dir = await Deno.makeTempDir();
  const lines = Array.from({ length: n }, (_, i) => {
    const start = T0 + i * 1e7;
    const failed = i % 7 === 3;
    return JSON.stringify({
      metadata: { request_start_ns: start, request_end_ns: start + 5e7, benchmark_phase: "profiling" },
      metrics: failed ? { error_isl: { value: 5, unit: "tokens" } } : {
        time_to_first_token: { value: 10 + (i % 13), unit: "ms" },
        request_latency: { value: 50 + (i % 29), unit: "ms" },
        input_sequence_length: { value: 5, unit: "tokens" },
        output_sequence_length: { value: 1 + (i % 4), unit: "tokens" },
      },
      ...(failed ? { error: { code: 500, type: "x", message: "y" } } : {}),
    });
  });
  await Deno.writeTextFile(`${dir}/profile_export.jsonl`, lines.join("\n") + "\n");
  return dir;
}

Deno.test("readRecordSamples: every record while they fit, failed ones without values, completions counted", async () => {
  const dir = await runDir(20);
  try {
    const s = (await readRecordSamples(dir, ["time_to_first_token", "request_latency", "absent_metric"]))!;
    assert.deepEqual([s.size, s.population], [20, 20]);
    const ttft = s.columns.get("time_to_first_token")!;
    assert.deepEqual([ttft[0], ttft[1], ttft[3], ttft[19]], [10, 11, NaN, 10 + (19 % 13)]);
    assert.equal(s.columns.has("absent_metric"), false);
    assert.equal(s.completions.count, 20 - 3, "three failed (lines 4, 11, 18)");
    assert.ok(Math.abs(s.completions.spanMs - 190) < 1e-3, "epoch ms in doubles: within a microsecond");
    assert.equal(await readRecordSamples(`${dir}/none`, ["request_latency"]), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readRecordSamples: past its capacity a uniform sample of whole records, the same read in parts", async () => {
  const dir = await runDir(3000);
  try {
    const tags = ["time_to_first_token", "request_latency"];
    const one = (await readRecordSamples(dir, tags, { capacity: 500, workers: 1 }))!;
    assert.deepEqual([one.size, one.population], [500, 3000]);
    // Whole records: each sampled TTFT and latency belong to the same request (i mod 13, i mod 29 from one i).
    const ttft = one.columns.get("time_to_first_token")!, latency = one.columns.get("request_latency")!;
    let pairs = 0;
    for (let r = 0; r < one.size; r++) {
      if (Number.isNaN(ttft[r])) continue;
      const fits = Array.from({ length: 3000 }, (_, i) => i).some((i) =>
        i % 7 !== 3 && 10 + (i % 13) === ttft[r] && 50 + (i % 29) === latency[r]
      );
      assert.ok(fits, `row ${r}`);
      pairs++;
    }
    assert.ok(pairs > 350 && pairs < 500, `${pairs} successful rows of 500 (6 in 7 succeed)`);
    const parts = (await readRecordSamples(dir, tags, { capacity: 500, workers: 3 }))!;
    assert.deepEqual(parts.columns, one.columns);
    assert.deepEqual([parts.size, parts.population, parts.completions.count], [500, 3000, one.completions.count]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
