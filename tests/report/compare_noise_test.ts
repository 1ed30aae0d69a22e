import assert from "node:assert/strict";
import { compareNoise } from "../../src/report/compare_noise.ts";
import type { RecordSamples } from "../../src/report/record_samples.ts";
import { CompletionWindows } from "../../src/report/completion_windows.ts";
import { SeededRandom } from "../../src/base/seeded_random.ts";
import type { DifferenceInterval } from "../../src/metrics/difference_interval.ts";

/** A run of `values` as the bootstrap sees it: all of them, or the first `size` standing for `population`. */
function samples(values: Float64Array, size = values.length, population = size): RecordSamples {
  return {
    path: "x",
    size,
    population,
    columns: new Map([["time_to_first_token", values.slice(0, size)]]),
    completions: new CompletionWindows(),
  };
}

Deno.test("compareNoise: a uniform sample of a large run, scaled to its size, gives the whole run's interval", () => {
  const rng = new SeededRandom(11);
  const n = 40_000;
  const a = Float64Array.from({ length: n }, () => 40 * Math.exp(rng.normal(0, 0.4)));
  const b = Float64Array.from({ length: n }, () => 42 * Math.exp(rng.normal(0, 0.4)));
  const width = (noise: ReturnType<typeof compareNoise>, stat: string) => {
    const i = noise.interval({ tag: "time_to_first_token", stat, single: false }, 1, 2, 40) as DifferenceInterval;
    return i.high - i.low;
  };
  for (const stat of ["avg", "p50", "p99"]) {
    const needs = [{ tag: "time_to_first_token", stat, single: false }];
    const whole = width(compareNoise([samples(a), samples(b)], needs), stat);
    // The records are in random order: the first 4,000 are a uniform sample of the 40,000.
    const scaled = width(compareNoise([samples(a, 4000, n), samples(b, 4000, n)], needs), stat);
    const unscaled = width(compareNoise([samples(a, 4000), samples(b, 4000)], needs), stat);
    assert.ok(scaled / whole > 0.75 && scaled / whole < 1.33, `${stat}: ${scaled} vs ${whole}`);
    // Without the scaling the sample's interval would be √10 ≈ 3.2 times too wide.
    assert.ok(unscaled / whole > 2.4, `${stat}: unscaled ${unscaled} vs ${whole}`);
  }
});
