import assert from "node:assert/strict";
import { GaussianProcess, logExpectedImprovement, normalCdf, normalPdf } from "../../src/metrics/gaussian_process.ts";

Deno.test("the Gaussian process goes through exact observations and is unsure far from them", () => {
  const xs = [[0], [0.25], [0.5], [0.75], [1]];
  const ys = xs.map(([x]) => Math.sin(4 * x) * 10 + 50);
  const gp = GaussianProcess.fit(xs, ys);
  for (let i = 0; i < xs.length; i++) {
    const p = gp.predict(xs[i]);
    assert.ok(Math.abs(p.mean - ys[i]) < 0.5, `${p.mean} vs ${ys[i]}`);
  }
  const between = gp.predict([0.375]);
  assert.ok(Math.abs(between.mean - (Math.sin(1.5) * 10 + 50)) < 1.5, `${between.mean}`);
  assert.ok(gp.predict([0.375]).sd > gp.predict([0.5]).sd);
  assert.throws(() => GaussianProcess.fit([], []), RangeError);
});

Deno.test("the normal functions and log EI agree with their hand-computed values", () => {
  assert.ok(Math.abs(normalCdf(0) - 0.5) < 1e-7);
  assert.ok(Math.abs(normalCdf(1.959964) - 0.975) < 1e-6);
  assert.ok(Math.abs(normalCdf(-1) - 0.158655) < 1e-6);
  // EI of N(1, 2²) over 0: sd·(φ(z) + zΦ(z)), z = 0.5.
  const ei = 2 * (normalPdf(0.5) + 0.5 * normalCdf(0.5));
  assert.ok(Math.abs(logExpectedImprovement(1, 2, 0) - Math.log(ei)) < 1e-6);
  // Far below the best plain EI underflows; log EI stays finite and keeps decreasing.
  const far = logExpectedImprovement(0, 1, 40);
  assert.ok(Number.isFinite(far) && far < logExpectedImprovement(0, 1, 30));
});
