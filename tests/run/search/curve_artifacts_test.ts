import assert from "node:assert/strict";
import { decodeItlSurfaceJson, fitTtftCurve, prefillCurveJson } from "../../../src/run/search/curve_artifacts.ts";

Deno.test("the TTFT curve is linear when it fits, quadratic when the line's r² is under 0.85 and the parabola's higher", () => {
  const linear = fitTtftCurve([[256, 30], [512, 42], [1024, 66]]);
  assert.equal(linear.form, "linear");
  assert.equal(linear.belowFloor, false);
  // A parabola through 5 points: the line fits it poorly (r² < 0.85), the quadratic exactly.
  const xs = [-2, -1, 0, 1, 2];
  const curved = fitTtftCurve(xs.map((x) => [x + 3, x * x] as const));
  assert.equal(curved.form, "quadratic");
  assert.ok(Math.abs(curved.rSquared - 1) < 1e-9);
  assert.equal(curved.belowFloor, false);
});

Deno.test("prefill_curve.json keeps AIPerf's shape, and says why with fewer than 2 finite points", () => {
  const json = prefillCurveJson([[1024, 66], [256, 30], [512, 42]]) as Record<string, unknown>;
  assert.deepEqual(Object.keys(json), [
    "fit_form",
    "coefficients",
    "r_squared",
    "below_floor",
    "r_squared_floor",
    "raw_points",
    "swept_metric",
    "stat",
    "swept_param",
  ]);
  assert.deepEqual(json.raw_points, [{ isl: 256, ttft_ms: 30 }, { isl: 512, ttft_ms: 42 }, { isl: 1024, ttft_ms: 66 }]);
  const bad = prefillCurveJson([[256, Number.NaN], [512, 40]]) as Record<string, unknown>;
  assert.equal(bad.below_floor, true);
  assert.deepEqual(bad.coefficients, []);
  assert.match(String(bad.error_reason), /fewer than 2 finite trial points .*got 1 of 2/);
});

Deno.test("decode_itl_surface.json is the measured grid, null where a cell was not measured, never interpolated", () => {
  const json = decodeItlSurfaceJson([[4, 64, 12], [1, 64, 10], [1, 256, 11], [4, 256, -1]]) as {
    surface: { concurrency_axis: number[]; osl_axis: number[]; itl_grid: (number | null)[][] };
    raw_points: unknown[];
    surface_fit_failed: boolean;
  };
  assert.deepEqual(json.surface, { concurrency_axis: [1, 4], osl_axis: [64, 256], itl_grid: [[10, 11], [12, null]] });
  assert.equal(json.raw_points.length, 3);
  assert.equal(json.surface_fit_failed, false);
  const failed = decodeItlSurfaceJson([[1, 64, 10]]) as { surface_fit_failed: boolean; error_reason: string };
  assert.equal(failed.surface_fit_failed, true);
  assert.match(failed.error_reason, /kept 1, dropped 0/);
});
