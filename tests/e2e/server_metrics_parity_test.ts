/**
 * `server_metrics_export.{json,csv}` against AIPerf 0.13's own files from the same scenario
 * (`tests/fixtures/aiperf_0_13/multi_turn_usage/`, `scripts/parity/capture_aiperf.ts`): the same metrics, series,
 * stats and bucket keys in the same order, time slices for `aiperf plot`, rates over AIPerf's span (from the scrape
 * before the phase to the final scrape after the 2 s flush period), percentile estimates within one bucket width,
 * and the CSV's sections and rows in AIPerf's order.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runScenario, SCENARIOS } from "../../scripts/parity/harness.ts";
import { comparePercentiles } from "../../scripts/parity/compare_exports.ts";
import { tempDir } from "./cli_harness.ts";

const FIXTURE = new URL("../fixtures/aiperf_0_13/multi_turn_usage/", import.meta.url).pathname;

type Json = Record<string, unknown>;
interface SeriesJson {
  labels?: Record<string, string>;
  stats: Record<string, number>;
  buckets?: Record<string, number>;
  timeslices?: Json[];
}
interface MetricJson {
  type: string;
  unit?: string;
  series: SeriesJson[];
}

/** The first series' bucket keys of a metric in file order (JSON.parse moves integer-like keys such as "1" first). */
function bucketKeysInFileOrder(text: string, metric: string): string[] {
  const m = /"buckets": \{([^}]*)\}/.exec(text.slice(text.indexOf(`"${metric}": {`)));
  return m === null ? [] : [...m[1].matchAll(/"([^"]+)":/g)].map((k) => k[1]);
}

Deno.test("server metrics export matches AIPerf 0.13's layout, spans and estimates", async () => {
  await using tmp = await tempDir();
  const scenario = SCENARIOS.find((s) => s.name === "multi_turn_usage")!;
  const run = await runScenario(scenario, "infermeter", tmp.path, "aiperf");
  const oursText = await Deno.readTextFile(join(run.artifacts, "server_metrics_export.json"));
  const theirsText = await Deno.readTextFile(join(FIXTURE, "server_metrics_export.json"));
  const ours = JSON.parse(oursText) as { metrics: Record<string, MetricJson>; summary: Json };
  const theirs = JSON.parse(theirsText) as { metrics: Record<string, MetricJson> };

  assert.deepEqual(Object.keys(ours.metrics), Object.keys(theirs.metrics), "metric names, in AIPerf's order");
  for (const [name, t] of Object.entries(theirs.metrics)) {
    const o = ours.metrics[name];
    assert.equal(o.type, t.type, name);
    assert.equal(o.unit, t.unit, `${name} unit`);
    assert.deepEqual(o.series.map((s) => s.labels), t.series.map((s) => s.labels), `${name} series`);
    t.series.forEach((ts, i) => {
      const os = o.series[i];
      assert.deepEqual(Object.keys(os.stats), Object.keys(ts.stats), `${name} stats keys`);
      assert.equal(ts.timeslices !== undefined, os.timeslices !== undefined, `${name} time slices`);
      if (ts.timeslices && os.timeslices) {
        const keys = (x: Json) => Object.keys(x).filter((k) => k !== "is_complete");
        assert.deepEqual(keys(os.timeslices[0]), keys(ts.timeslices[0]), `${name} slice keys`);
        assert.ok(
          os.timeslices.slice(0, -1).every((x) => x.is_complete === undefined),
          `${name}: only the last partial`,
        );
      }
      if (t.type === "counter" && ts.stats.total > 0) {
        // AIPerf's span: from the scrape before the phase to the final scrape 2 s after its end.
        const theirSpan = ts.stats.total / ts.stats.rate;
        const ourSpan = os.stats.total / os.stats.rate;
        assert.ok(theirSpan >= 2 && ourSpan >= 2 && ourSpan < 4, `${name}: span ${ourSpan} s (AIPerf ${theirSpan} s)`);
      }
    });
  }
  for (const name of ["vllm:time_to_first_token_seconds", "vllm:e2e_request_latency_seconds"]) {
    assert.deepEqual(bucketKeysInFileOrder(oursText, name), bucketKeysInFileOrder(theirsText, name), `${name} buckets`);
  }
  const checks = comparePercentiles(theirs, ours);
  assert.ok(checks.length >= 36, `${checks.length} estimates compared`);
  // Estimates are comparable where both runs put the percentile's rank in the same bucket. A busy machine slows this
  // run's simulator, so its TTFT, ITL and latency histograms may differ from the captured run's; the queue-time
  // histogram (the simulator never queues here) never does. The estimator itself is checked on shared data in
  // tests/telemetry/histogram_estimate_test.ts.
  const comparable = checks.filter((c) => c.rankBucketsApart === 0);
  assert.ok(comparable.length >= 9, `${comparable.length} estimates over the same buckets`);
  for (const c of comparable) {
    assert.ok(c.withinOneBucket, `${c.metric} ${c.stat}: ${c.ours} vs AIPerf ${c.theirs} (bucket ${c.bucketWidth})`);
  }

  // CSV: the same comment lines, section headers, and rows (endpoint, type, metric, labels) in the same order.
  const rows = (text: string) =>
    text.split(/\r?\n/).filter((l) => !l.startsWith("# benchmark_id")).map((l) =>
      l.startsWith("#") || l.startsWith("Endpoint,") || l === "" ? l : l.split(",").slice(1, 3).join(",")
    );
  assert.deepEqual(
    rows(await Deno.readTextFile(join(run.artifacts, "server_metrics_export.csv"))),
    rows(await Deno.readTextFile(join(FIXTURE, "server_metrics_export.csv"))),
  );
  // `aiperf plot` reads the slice duration from the JSON export.
  const exported = JSON.parse(await Deno.readTextFile(join(run.artifacts, "profile_export_aiperf.json")));
  assert.equal(exported.input_config.artifacts.slice_duration, 0.5);
  // The console says the histogram percentiles are estimates.
  assert.match(run.run.stdout, /avg \/ p50 est\. \/ p99 est\./);
});
