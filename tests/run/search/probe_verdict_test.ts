import assert from "node:assert/strict";
import { describeObserved, judgeProbe } from "../../../src/run/search/probe_verdict.ts";
import { summaryOf, writeRecords } from "./search_fixtures.ts";

const p95lt = (threshold: number) => ({
  metric_tag: "time_to_first_token",
  stat: "p95" as const,
  op: "lt" as const,
  threshold,
});
const options = { level: 0.95, seed: 42, objective: "output_token_throughput" };

Deno.test("judgeProbe meets a filter clearly inside, fails one clearly past it, with a bootstrap interval", async () => {
  const dir = await Deno.makeTempDir();
  const ttfts = Array.from({ length: 100 }, (_, i) => 30 + (i % 10));
  await writeRecords(dir, ttfts);
  const trials = [{ dir, summary: summaryOf(ttfts) }];
  const inside = await judgeProbe(trials, [p95lt(60)], options);
  assert.equal(inside.feasible, true);
  assert.equal(inside.withinNoise, false);
  const j = inside.filters[0];
  assert.equal(j.observed, summaryOf(ttfts).metrics[0].stats!.p95);
  assert.ok(j.interval!.low <= j.observed! && j.observed! <= j.interval!.high);
  assert.ok(j.interval!.high < 60);
  assert.match(describeObserved(j), /^p95 TTFT 39.0 ms ± [\d.]+$/);
  const past = await judgeProbe(trials, [p95lt(35)], options);
  assert.equal(past.feasible, false);
  assert.equal(past.withinNoise, false);
  assert.equal((await judgeProbe(trials, [p95lt(60)], options)).filters[0].interval!.low, j.interval!.low, "seeded");
});

Deno.test("judgeProbe calls a p95 near the line within noise, and pools repeated runs", async () => {
  // One request in seven queued (TTFT 90 ms): the p95 sits on the queued ones, but a resample can miss them.
  const one = await Deno.makeTempDir();
  const two = await Deno.makeTempDir();
  const ttfts = Array.from({ length: 28 }, (_, i) => (i % 7 === 6 ? 90 : 30));
  await writeRecords(one, ttfts);
  await writeRecords(two, ttfts);
  const first = await judgeProbe([{ dir: one, summary: summaryOf(ttfts) }], [p95lt(60)], options);
  assert.equal(first.feasible, false);
  assert.equal(first.withinNoise, true);
  const both = await judgeProbe(
    [{ dir: one, summary: summaryOf(ttfts) }, { dir: two, summary: summaryOf(ttfts) }],
    [p95lt(60)],
    options,
  );
  assert.equal(both.runs, 2);
  assert.equal(both.filters[0].observed, 90);
});

Deno.test("judgeProbe takes error rate and good-request fraction from counts, with Wilson intervals", async () => {
  const dir = await Deno.makeTempDir();
  await writeRecords(dir, [10, 10]);
  const summary = summaryOf(Array(190).fill(10), { errors: 10, good: 180 });
  const j = await judgeProbe([{ dir, summary }], [
    { metric_tag: "request_error_rate", stat: "avg", op: "lt", threshold: 1 },
    { metric_tag: "good_request_fraction", stat: "avg", op: "ge", threshold: 0.5 },
  ], options);
  assert.equal(j.filters[0].observed, 5);
  assert.equal(j.filters[0].meets, false);
  assert.ok(j.filters[0].interval!.low > 1, "5 % of 200 is surely above 1 %");
  assert.equal(j.filters[1].observed, 0.9);
  assert.equal(j.feasible, false);
});

Deno.test("a probe without a completed run is infeasible and unmeasured", async () => {
  const j = await judgeProbe([{ dir: "/nonexistent" }], [p95lt(60)], options);
  assert.equal(j.feasible, false);
  assert.equal(j.runs, 0);
  assert.equal(j.filters[0].observed, undefined);
  assert.equal(describeObserved(j.filters[0]), "p95 TTFT not measured");
});
