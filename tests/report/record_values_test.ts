import assert from "node:assert/strict";
import { readMetricValues } from "../../src/report/record_values.ts";

Deno.test("readMetricValues: each tag's values of the successful profiling records, in file order, streamed", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const line = (latency: number, extra: Record<string, unknown> = {}, phase = "profiling") =>
      JSON.stringify({
        metadata: { request_start_ns: 1e18, request_end_ns: 1e18, benchmark_phase: phase },
        metrics: { request_latency: { value: latency, unit: "ms" } },
        ...extra,
      });
    await Deno.writeTextFile(
      `${dir}/profile_export.jsonl`,
      [line(3), line(9, { error: { code: 500, type: "x", message: "y" } }), line(1, {}, "warmup"), line(5)].join("\n"),
    );
    const values = await readMetricValues(dir, ["request_latency", "time_to_first_token"]);
    assert.deepEqual(values, new Map([["request_latency", [3, 5]], ["time_to_first_token", []]]));
    assert.equal(await readMetricValues(`${dir}/none`, ["request_latency"]), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
