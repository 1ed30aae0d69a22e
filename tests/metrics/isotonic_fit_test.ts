import assert from "node:assert/strict";
import { firstRoot, isotonicFit, pchip, strictify } from "../../src/metrics/isotonic_fit.ts";

const close = (a: number, b: number, tol = 1e-9) => assert.ok(Math.abs(a - b) <= tol, `${a} vs ${b}`);

Deno.test("isotonicFit pools a decreasing pair into its mean and keeps increasing runs", () => {
  // SciPy's isotonic_regression([-2, -0.9, -1.1, 1, 2]) gives [-2, -1, -1, 1, 2].
  assert.deepEqual(isotonicFit([-2, -0.9, -1.1, 1, 2]).map((v) => Math.round(v * 1e9) / 1e9), [-2, -1, -1, 1, 2]);
  assert.deepEqual(isotonicFit([3, 2, 1]), [2, 2, 2]);
  assert.deepEqual(isotonicFit([1, 2, 3]), [1, 2, 3]);
});

Deno.test("strictify makes flat runs strictly increasing by a negligible amount", () => {
  const s = strictify([0, 0, 1]);
  assert.ok(s[1] > s[0] && s[1] - s[0] < 1e-8);
});

Deno.test("pchip matches SciPy's PchipInterpolator inside and at the ends", () => {
  // PchipInterpolator([1, 2, 3], [0, 1, 4]): 0.3125 at 1.5, 2.1875 at 2.5.
  const c = pchip([1, 2, 3], [0, 1, 4]);
  close(c(1.5), 0.3125);
  close(c(2.5), 2.1875);
  close(c(1), 0);
  close(c(3), 4);
  // PchipInterpolator([1, 2, 4, 8], [-0.5, -0.4, 0.2, 1.0]): -0.1258373… at 3, 0.6560606… at 6, root 3.3538708.
  const d = pchip([1, 2, 4, 8], [-0.5, -0.4, 0.2, 1.0]);
  close(d(3), -0.12583732057416266);
  close(d(6), 0.6560606060606061);
  close(firstRoot(d, 1, 8)!, 3.3538708, 1e-6);
});

Deno.test("firstRoot is undefined when the curve does not cross zero in the bracket", () => {
  const c = pchip([1, 2], [0.5, 1]);
  assert.equal(firstRoot(c, 1, 2), undefined);
  assert.equal(firstRoot(pchip([1, 2], [-2, -1]), 1, 2), undefined);
});

Deno.test("pchip refuses x values that do not increase", () => {
  assert.throws(() => pchip([1, 1], [0, 1]), RangeError);
  assert.throws(() => pchip([1], [0]), RangeError);
});
