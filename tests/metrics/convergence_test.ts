import assert from "node:assert/strict";
import { ciWidthConverged, cvConverged, distributionConverged, ksTwoSample } from "../../src/metrics/convergence.ts";

Deno.test("ciWidthConverged compares the Student-t interval width with the threshold times the mean", () => {
  // mean 100, s = 1, n = 3: t(0.975, 2) = 4.3027, width 2·4.3027/√3 = 4.968 → 4.97 % of the mean.
  assert.equal(ciWidthConverged([99, 100, 101], 0.95, 0.05), true);
  assert.equal(ciWidthConverged([99, 100, 101], 0.95, 0.049), false);
  assert.equal(ciWidthConverged([100], 0.95, 0.5), false);
  assert.equal(ciWidthConverged([0, 0], 0.95, 0.5), false);
});

Deno.test("cvConverged uses the sample standard deviation over the mean", () => {
  // s = 1, mean 10: cv 0.1.
  assert.equal(cvConverged([9, 10, 11], 0.11), true);
  assert.equal(cvConverged([9, 10, 11], 0.1), false);
});

Deno.test("ksTwoSample gives SciPy's statistic and close to its p-value", () => {
  const a = Array.from({ length: 40 }, (_, i) => i + 1);
  const b = Array.from({ length: 30 }, (_, i) => i + 6);
  // scipy.stats.ks_2samp: D = 0.125, p = 0.9256 (exact), 0.9236 (asymptotic).
  const { statistic, pValue } = ksTwoSample(a, b);
  assert.equal(statistic, 0.125);
  assert.ok(Math.abs(pValue - 0.9256) < 0.02, `p = ${pValue}`);
  assert.ok(ksTwoSample(a, a.map((v) => v + 100)).pValue < 1e-6);
});

Deno.test("distributionConverged is true when the last run looks like the earlier ones", () => {
  const a = Array.from({ length: 50 }, (_, i) => 100 + (i % 10));
  assert.equal(distributionConverged(a, a.slice(0, 20), 0.05), true);
  assert.equal(distributionConverged(a, a.map((v) => v * 2), 0.05), false);
  assert.equal(distributionConverged(a, [1], 0.05), false);
});
