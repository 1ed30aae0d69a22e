/**
 * The answers of the ISL/OSL curve recipes: the fitted TTFT-against-ISL curve in one sentence
 * ("TTFT ≈ 0.050 ms × ISL + 20.1 ms (linear, r² 0.998) over ISL 256–32,768 at concurrency 1"), and the ITL surface's
 * range ("ITL 21.0–96.4 ms over concurrency 1–200 × OSL 64–1,024 (24 of 24 cells)").
 */
import type { SearchSpec } from "../../config/search_recipes.ts";
import { formatGrouped } from "../../export/number_format.ts";
import { VERSION } from "../../base/version.ts";
import { fitTtftCurve, itlSurface } from "./curve_artifacts.ts";
import type { SearchAnswer } from "./search_answer.ts";
import type { SearchProbe } from "./search_probe.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** About four significant digits, for coefficients of any size. */
function sig(x: number): string {
  if (x === 0) return "0";
  const digits = Math.max(0, Math.min(9, 3 - Math.floor(Math.log10(Math.abs(x)))));
  return formatGrouped(x, digits);
}

function envelope(spec: SearchSpec, sentence: string, extra: Record<string, Json>, probes: readonly SearchProbe[]) {
  return {
    producer: "infermeter",
    version: VERSION,
    schema_version: 1,
    recipe: spec.recipe,
    style: spec.style,
    answer: sentence,
    ...extra,
    probes: probes.map((p) => ({ ...p.values, label: p.label, runs: p.judgement.runs })),
  };
}

function range(values: readonly number[]): string {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return lo === hi ? formatGrouped(lo, 0) : `${formatGrouped(lo, 0)}–${formatGrouped(hi, 0)}`;
}

/** `prefill-ttft-curve`: `points` are (ISL, TTFT ms). */
export function curveAnswer(
  spec: SearchSpec,
  probes: readonly SearchProbe[],
  points: readonly (readonly [number, number])[],
): SearchAnswer {
  const fit = fitTtftCurve(points);
  const c = fit.coefficients;
  let sentence: string;
  if (fit.error !== undefined || c.length === 0) {
    sentence = `no TTFT curve: ${points.length} of ${probes.length} ISL points measured TTFT (2 needed)`;
  } else {
    const sign = (v: number) => (v < 0 ? `− ${sig(-v)}` : `+ ${sig(v)}`);
    const formula = fit.form === "linear"
      ? `${sig(c[0])} ms × ISL ${sign(c[1])} ms`
      : `${sig(c[0])} ms × ISL² ${sign(c[1])} ms × ISL ${sign(c[2])} ms`;
    sentence = `TTFT ≈ ${formula} (${fit.form}, r² ${formatGrouped(fit.rSquared, 3)}` +
      `${fit.belowFloor ? ", below the 0.85 floor: a poor fit" : ""}) over ISL ${
        range(points.map((p) => p[0]))
      } at concurrency 1`;
  }
  return {
    sentence,
    json: envelope(spec, sentence, {
      fit: c.length === 0 ? null : {
        form: fit.form,
        coefficients: [...c],
        r_squared: fit.rSquared,
        below_floor: fit.belowFloor,
      },
    }, probes),
  };
}

/** `decode-itl-curve`: `triples` are (concurrency, OSL, ITL ms). */
export function surfaceAnswer(
  spec: SearchSpec,
  probes: readonly SearchProbe[],
  triples: readonly (readonly [number, number, number])[],
): SearchAnswer {
  const s = itlSurface(triples);
  const cells = s.concurrencyAxis.length * s.oslAxis.length;
  const itl = s.points.map((p) => p[2]);
  const sentence = s.points.length < 2
    ? `no ITL surface: ${s.points.length} of ${probes.length} cells measured ITL (2 needed)`
    : `ITL ${sig(Math.min(...itl))}–${sig(Math.max(...itl))} ms over concurrency ${range(s.concurrencyAxis)} × OSL ${
      range(s.oslAxis)
    } (${s.points.length} of ${cells} cells measured)`;
  return {
    sentence,
    json: envelope(spec, sentence, {
      surface: {
        concurrency_axis: [...s.concurrencyAxis],
        osl_axis: [...s.oslAxis],
        itl_grid: s.grid.map((row) => [...row]),
      },
    }, probes),
  };
}
