/**
 * The smooth-isotonic curve of a search (AIPerf's smooth-isotonic planner): measured SLA margins against load are
 * first made non-decreasing by the pool-adjacent-violators algorithm (isotonic regression: the least-squares
 * non-decreasing fit, so one noisy probe cannot bend the curve back), then joined by a monotone piecewise-cubic
 * Hermite interpolant (PCHIP, Fritsch–Carlson slopes as SciPy's `PchipInterpolator` takes them) whose zero is the load
 * where the SLA breaks.
 */

/**
 * Isotonic (non-decreasing) least-squares fit of `ys` with equal weights: adjacent blocks that decrease are pooled
 * into their mean until none does.
 */
export function isotonicFit(ys: readonly number[]): number[] {
  const means: number[] = [];
  const sizes: number[] = [];
  for (const y of ys) {
    means.push(y);
    sizes.push(1);
    while (means.length > 1 && means[means.length - 2] > means[means.length - 1]) {
      const m2 = means.pop()!;
      const s2 = sizes.pop()!;
      const m1 = means.pop()!;
      const s1 = sizes.pop()!;
      means.push((m1 * s1 + m2 * s2) / (s1 + s2));
      sizes.push(s1 + s2);
    }
  }
  return means.flatMap((m, i) => Array<number>(sizes[i]).fill(m));
}

/**
 * Adds `i · 1e-9 · (y_last − y_first)` to the i-th value so flat runs of an isotonic fit become strictly increasing
 * (a flat run would make every point of it a root).
 */
export function strictify(ys: readonly number[]): number[] {
  if (ys.length === 0) return [];
  const span = ys[ys.length - 1] - ys[0];
  const eps = 1e-9 * (span > 0 ? span : 1);
  return ys.map((y, i) => y + i * eps);
}

/** A curve through the points: its value at any x inside [x₀, xₙ] (clamped outside). */
export type Curve = (x: number) => number;

/**
 * PCHIP through (xs, ys), xs strictly increasing: Hermite cubics with slopes that keep monotone data monotone —
 * inside, the weighted harmonic mean of the neighbouring secants (0 where they change sign or one is 0); at the
 * ends, the three-point estimate, set to 0 when its sign differs from the end secant and capped at three times it
 * when the secants change sign.
 * @throws {RangeError} with fewer than 2 points or xs not strictly increasing.
 */
export function pchip(xs: readonly number[], ys: readonly number[]): Curve {
  const n = xs.length;
  if (n < 2 || ys.length !== n) throw new RangeError(`PCHIP needs at least 2 points with x and y (got ${n})`);
  const h: number[] = [];
  const delta: number[] = [];
  for (let i = 0; i < n - 1; i++) {
    h.push(xs[i + 1] - xs[i]);
    if (!(h[i] > 0)) throw new RangeError("PCHIP needs strictly increasing x values");
    delta.push((ys[i + 1] - ys[i]) / h[i]);
  }
  const d = new Array<number>(n).fill(0);
  if (n === 2) {
    d[0] = d[1] = delta[0];
  } else {
    for (let k = 1; k < n - 1; k++) {
      if (delta[k - 1] * delta[k] > 0) {
        const w1 = 2 * h[k] + h[k - 1];
        const w2 = h[k] + 2 * h[k - 1];
        d[k] = (w1 + w2) / (w1 / delta[k - 1] + w2 / delta[k]);
      }
    }
    d[0] = endSlope(h[0], h[1], delta[0], delta[1]);
    d[n - 1] = endSlope(h[n - 2], h[n - 3], delta[n - 2], delta[n - 3]);
  }
  return (x: number) => {
    if (x <= xs[0]) return ys[0];
    if (x >= xs[n - 1]) return ys[n - 1];
    let i = 0;
    while (x > xs[i + 1]) i++;
    const t = (x - xs[i]) / h[i];
    const t2 = t * t;
    const t3 = t2 * t;
    return (2 * t3 - 3 * t2 + 1) * ys[i] + (t3 - 2 * t2 + t) * h[i] * d[i] + (-2 * t3 + 3 * t2) * ys[i + 1] +
      (t3 - t2) * h[i] * d[i + 1];
  };
}

function endSlope(h0: number, h1: number, m0: number, m1: number): number {
  const d = ((2 * h0 + h1) * m0 - h0 * m1) / (h0 + h1);
  if (Math.sign(d) !== Math.sign(m0)) return 0;
  if (Math.sign(m0) !== Math.sign(m1) && Math.abs(d) > Math.abs(3 * m0)) return 3 * m0;
  return d;
}

/**
 * The first x in [lo, hi] where a non-decreasing curve reaches 0, to within `tolerance`; undefined when it does not
 * cross 0 there (it is above 0 at lo, or below it at hi).
 */
export function firstRoot(curve: Curve, lo: number, hi: number, tolerance = 1e-6): number | undefined {
  if (curve(lo) > 0 || curve(hi) < 0) return undefined;
  let a = lo;
  let b = hi;
  while (b - a > tolerance) {
    const mid = (a + b) / 2;
    if (curve(mid) >= 0) b = mid;
    else a = mid;
  }
  return b;
}
