/**
 * Student's t distribution: CDF and quantile, for the confidence intervals across repeated runs (AIPerf uses
 * `scipy.stats.t.ppf(1 − α/2, n − 1)`).
 *
 * CDF: for t ≥ 0, `F(t) = 1 − ½·I_x(ν/2, ½)` with `x = ν/(ν + t²)`, where `I` is the regularized incomplete beta
 * function, evaluated by its continued fraction (modified Lentz; Numerical Recipes §6.4), with the symmetry
 * `I_x(a,b) = 1 − I_{1−x}(b,a)` where the fraction converges slowly. ln Γ by Stirling's series after shifting.
 * Quantile: the CDF is monotone, so it is inverted by bisection on a bracket grown from [0, 1] to machine
 * precision (about 1e-12 relative), then two Newton steps on the density — robust for every ν ≥ 1 and p in (0, 1).
 */

/** ln Γ(x) for x > 0: shifted up to x ≥ 10 by the recurrence, then Stirling's series (error below 1e-15). */
export function lnGamma(x: number): number {
  if (!(x > 0)) throw new RangeError(`lnGamma needs x > 0, got ${x}`);
  let shift = 0;
  while (x < 10) {
    shift += Math.log(x);
    x += 1;
  }
  const r = 1 / x;
  const r2 = r * r;
  const series = r * (1 / 12 - r2 * (1 / 360 - r2 * (1 / 1260 - r2 * (1 / 1680 - r2 * (1 / 1188 -
                    r2 * (691 / 360360 - r2 / 156))))));
  return (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + series - shift;
}

/** Continued fraction of the incomplete beta function (converges for x < (a + 1)/(a + b + 2)). */
function betaFraction(a: number, b: number, x: number): number {
  const TINY = 1e-300;
  let c = 1;
  let d = 1 - (a + b) * x / (a + 1);
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 10_000; m++) {
    const m2 = 2 * m;
    let aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return h;
}

/** The regularized incomplete beta function I_x(a, b), 0 ≤ x ≤ 1. */
export function regularizedBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const lnFront = lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log1p(-x);
  const front = Math.exp(lnFront);
  return x < (a + 1) / (a + b + 2) ? front * betaFraction(a, b, x) / a : 1 - front * betaFraction(b, a, 1 - x) / b;
}

/** P(T ≤ t) for Student's t with `df` degrees of freedom (df > 0). */
export function studentTCdf(t: number, df: number): number {
  if (t === Infinity) return 1;
  if (t === -Infinity) return 0;
  const tail = 0.5 * regularizedBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** The density of Student's t. */
export function studentTPdf(t: number, df: number): number {
  const lnC = lnGamma((df + 1) / 2) - lnGamma(df / 2) - 0.5 * Math.log(df * Math.PI);
  return Math.exp(lnC - (df + 1) / 2 * Math.log1p(t * t / df));
}

/** The t with P(T ≤ t) = p (scipy `t.ppf(p, df)`), 0 < p < 1, df > 0. */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`a t quantile needs 0 < p < 1, got ${p}`);
  if (!(df > 0)) throw new RangeError(`a t distribution needs df > 0, got ${df}`);
  if (p === 0.5) return 0;
  if (p < 0.5) return -studentTQuantile(1 - p, df);
  let lo = 0;
  let hi = 1;
  while (studentTCdf(hi, df) < p) {
    lo = hi;
    hi *= 2;
    if (hi > 1e300) return Infinity;
  }
  for (let i = 0; i < 200 && hi - lo > 1e-13 * Math.max(1, hi); i++) {
    const mid = (lo + hi) / 2;
    if (studentTCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  let t = (lo + hi) / 2;
  for (let i = 0; i < 2; i++) {
    const f = studentTPdf(t, df);
    if (f <= 0) break;
    const next = t - (studentTCdf(t, df) - p) / f;
    if (!(next >= lo && next <= hi)) break;
    t = next;
  }
  return t;
}
