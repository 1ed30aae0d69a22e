/**
 * The artifacts of AIPerf 0.13's ISL/OSL curve recipes, in its shapes, from the points a search measured:
 * - `sweep_aggregate/prefill_curve.json` (`prefill-ttft-curve`): TTFT (the mean over a point's runs of its average)
 *   against ISL fitted `TTFT = a·ISL + b`; when r² < 0.85 and 3 or more points, a quadratic too, kept when its r² is
 *   higher; `below_floor` when the kept fit's r² stays under 0.85 (or its coefficients are not finite); fewer than 2
 *   finite points give the same shape with `error_reason`.
 * - `sweep_aggregate/decode_itl_surface.json` (`decode-itl-curve`): ITL (mean of the runs' averages) on the measured
 *   (concurrency, OSL) grid, axes sorted, `null` where a cell was not measured (never interpolated); negative or
 *   non-finite values dropped; fewer than 2 cells give `surface_fit_failed` with `error_reason`.
 */
import { polyfit } from "../../metrics/poly_fit.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export const ISL_PATH = "datasets.main.prompts.isl";
export const OSL_PATH = "datasets.main.prompts.osl";
export const CONCURRENCY_PATH = "phases.profiling.concurrency";
export const R2_FLOOR = 0.85;

export interface CurveFit {
  readonly form: "linear" | "quadratic";
  readonly coefficients: readonly number[];
  readonly rSquared: number;
  readonly belowFloor: boolean;
  readonly error?: string;
}

/** The TTFT-against-ISL fit of `points` ([isl, ttft ms], any order). */
export function fitTtftCurve(points: readonly (readonly [number, number])[]): CurveFit {
  const finite = points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
  if (finite.length < 2) {
    return {
      form: "linear",
      coefficients: [],
      rSquared: 0,
      belowFloor: true,
      error: `ttft_curve_fit: fewer than 2 finite trial points after dropping non-finite metric values (got ` +
        `${finite.length} of ${points.length}); check that swept cells produced successful requests.`,
    };
  }
  const xs = finite.map((p) => p[0]);
  const ys = finite.map((p) => p[1]);
  const linear = polyfit(xs, ys, 1);
  let form: "linear" | "quadratic" = "linear";
  let fit = linear;
  if (linear !== undefined && linear.rSquared < R2_FLOOR && finite.length >= 3) {
    const quadratic = polyfit(xs, ys, 2);
    if (quadratic !== undefined && quadratic.rSquared > linear.rSquared) {
      form = "quadratic";
      fit = quadratic;
    }
  }
  const coefficients = fit?.coefficients ?? [];
  const rSquared = fit?.rSquared ?? 0;
  const belowFloor = fit === undefined || !Number.isFinite(rSquared) ||
    coefficients.some((c) => !Number.isFinite(c)) || rSquared < R2_FLOOR;
  return { form, coefficients, rSquared, belowFloor };
}

/** `prefill_curve.json`. */
export function prefillCurveJson(points: readonly (readonly [number, number])[]): Json {
  const sorted = [...points].sort((a, b) => a[0] - b[0]);
  const fit = fitTtftCurve(sorted);
  return {
    fit_form: fit.form,
    coefficients: [...fit.coefficients],
    r_squared: fit.rSquared,
    below_floor: fit.belowFloor,
    r_squared_floor: R2_FLOOR,
    ...(fit.error === undefined ? {} : { error_reason: fit.error }),
    raw_points: sorted.map(([isl, ttft]) => ({ isl, ttft_ms: Number.isFinite(ttft) ? ttft : null })),
    swept_metric: "time_to_first_token",
    stat: "avg",
    swept_param: ISL_PATH,
  };
}

export interface ItlSurface {
  readonly points: readonly (readonly [number, number, number])[];
  readonly concurrencyAxis: readonly number[];
  readonly oslAxis: readonly number[];
  /** `grid[i][j]`: ITL at concurrencyAxis[i], oslAxis[j], or null. */
  readonly grid: readonly (readonly (number | null)[])[];
  readonly dropped: number;
}

/** The measured ITL grid of (concurrency, osl, itl ms) triples. */
export function itlSurface(triples: readonly (readonly [number, number, number])[]): ItlSurface {
  const points = triples.filter(([, , v]) => Number.isFinite(v) && v >= 0)
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const concurrencyAxis = [...new Set(points.map((p) => p[0]))].sort((a, b) => a - b);
  const oslAxis = [...new Set(points.map((p) => p[1]))].sort((a, b) => a - b);
  const cell = new Map(points.map(([c, o, v]) => [`${c}/${o}`, v]));
  const grid = concurrencyAxis.map((c) => oslAxis.map((o) => cell.get(`${c}/${o}`) ?? null));
  return { points, concurrencyAxis, oslAxis, grid, dropped: triples.length - points.length };
}

/** `decode_itl_surface.json`. */
export function decodeItlSurfaceJson(triples: readonly (readonly [number, number, number])[]): Json {
  const s = itlSurface(triples);
  const failed = s.points.length < 2;
  return {
    swept_metric: "inter_token_latency",
    stat: "avg",
    swept_params: [CONCURRENCY_PATH, OSL_PATH],
    raw_points: s.points.map(([c, o, v]) => ({ concurrency: c, osl: o, itl_ms: v })),
    surface: failed ? { concurrency_axis: [], osl_axis: [], itl_grid: [] } : {
      concurrency_axis: [...s.concurrencyAxis],
      osl_axis: [...s.oslAxis],
      itl_grid: s.grid.map((row) => [...row]),
    },
    surface_fit_failed: failed,
    ...(failed
      ? {
        error_reason: `itl_surface_fit: fewer than 2 finite-positive rows after dropping non-finite/negative ITL ` +
          `(kept ${s.points.length}, dropped ${s.dropped}); check that streaming was enabled and that swept cells ` +
          "produced successful requests.",
      }
      : {}),
  };
}
