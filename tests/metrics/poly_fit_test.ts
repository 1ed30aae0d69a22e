import assert from "node:assert/strict";
import { polyfit, polyval } from "../../src/metrics/poly_fit.ts";

const close = (a: number, b: number, tol = 1e-9) =>
  assert.ok(Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)), `${a} vs ${b}`);

Deno.test("polyfit recovers an exact line and quadratic, highest degree first, r² 1", () => {
  const xs = [256, 1024, 4096, 32768];
  const line = polyfit(xs, xs.map((x) => 0.05 * x + 12), 1)!;
  close(line.coefficients[0], 0.05);
  close(line.coefficients[1], 12);
  close(line.rSquared, 1);
  const quad = polyfit(xs, xs.map((x) => 2e-6 * x * x + 0.01 * x + 3), 2)!;
  close(quad.coefficients[0], 2e-6);
  close(quad.coefficients[1], 0.01);
  close(quad.coefficients[2], 3, 1e-6);
  close(polyval(quad.coefficients, 100), 2e-6 * 1e4 + 1 + 3, 1e-6);
});

Deno.test("polyfit's r² matches the hand-computed value, and it refuses too few or equal xs", () => {
  // y = 1, 3, 2 at x = 0, 1, 2: the fit is y = 0.5x + 1.5, residuals 0.5, -1, 0.5 →
  // SS_res = 0.25 + 1 + 0.25 = 1.5; SS_tot = 1 + 1 + 0 = 2; r² = 0.25.
  const fit = polyfit([0, 1, 2], [1, 3, 2], 1)!;
  close(fit.coefficients[0], 0.5);
  close(fit.coefficients[1], 1.5);
  close(fit.rSquared, 0.25);
  assert.equal(polyfit([1], [2], 1), undefined);
  assert.equal(polyfit([3, 3, 3], [1, 2, 3], 1), undefined);
  assert.equal(polyfit([0, 1], [5, 5], 1)!.rSquared, 0);
});
