/**
 * Gaussian-process regression for the Bayesian search: a Matérn 5/2 kernel on inputs scaled to the unit cube,
 * outputs standardized (mean 0, variance 1), a constant mean, and Gaussian observation noise. The length scale (one
 * for all dimensions) and the noise variance are chosen by the largest log marginal likelihood over a fixed grid, so
 * the same data always give the same model (no random restarts). Solved through a Cholesky factor, with a small
 * jitter added to the diagonal when the factor fails.
 *
 * k(r) = σ² (1 + √5 r/ℓ + 5r²/(3ℓ²)) exp(−√5 r/ℓ), σ² = 1 on standardized outputs;
 * log p(y) = −½ yᵀK⁻¹y − Σ log Lᵢᵢ − n/2 log 2π, K = k(X, X) + σₙ² I.
 */

const LENGTH_SCALES = [0.05, 0.1, 0.2, 0.35, 0.6, 1, 2] as const;
const NOISE_VARIANCES = [1e-4, 1e-3, 1e-2, 0.05, 0.2] as const;

export interface GpPrediction {
  /** Posterior mean, in the units of the observations. */
  readonly mean: number;
  /** Posterior standard deviation of the latent function (noise excluded), in those units. */
  readonly sd: number;
}

function matern52(r: number, length: number): number {
  const s = Math.sqrt(5) * r / length;
  return (1 + s + s * s / 3) * Math.exp(-s);
}

function distance(a: readonly number[], b: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] - b[i]) ** 2;
  return Math.sqrt(sum);
}

/** Lower Cholesky factor of a symmetric positive-definite matrix, or undefined when it is not. */
function cholesky(a: readonly Float64Array[]): Float64Array[] | undefined {
  const n = a.length;
  const l = Array.from({ length: n }, () => new Float64Array(n));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let sum = a[i][j];
      for (let k = 0; k < j; k++) sum -= l[i][k] * l[j][k];
      if (i === j) {
        if (!(sum > 0)) return undefined;
        l[i][i] = Math.sqrt(sum);
      } else l[i][j] = sum / l[j][j];
    }
  }
  return l;
}

/** Solves L x = b (L lower triangular). */
function forward(l: readonly Float64Array[], b: ArrayLike<number>): Float64Array {
  const n = l.length;
  const x = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let sum = b[i];
    for (let k = 0; k < i; k++) sum -= l[i][k] * x[k];
    x[i] = sum / l[i][i];
  }
  return x;
}

/** Solves Lᵀ x = b. */
function backward(l: readonly Float64Array[], b: ArrayLike<number>): Float64Array {
  const n = l.length;
  const x = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let sum = b[i];
    for (let k = i + 1; k < n; k++) sum -= l[k][i] * x[k];
    x[i] = sum / l[i][i];
  }
  return x;
}

export class GaussianProcess {
  readonly lengthScale: number;
  readonly noiseVariance: number;
  readonly logMarginalLikelihood: number;
  readonly #xs: readonly (readonly number[])[];
  readonly #l: Float64Array[];
  readonly #alpha: Float64Array;
  readonly #mean: number;
  readonly #scale: number;

  private constructor(
    xs: readonly (readonly number[])[],
    fit: { l: Float64Array[]; alpha: Float64Array; length: number; noise: number; lml: number },
    mean: number,
    scale: number,
  ) {
    this.#xs = xs;
    this.#l = fit.l;
    this.#alpha = fit.alpha;
    this.lengthScale = fit.length;
    this.noiseVariance = fit.noise;
    this.logMarginalLikelihood = fit.lml;
    this.#mean = mean;
    this.#scale = scale;
  }

  /**
   * Fits `ys` observed at `xs` (points of the unit cube), hyperparameters by marginal likelihood.
   * @throws {RangeError} without observations or with non-finite ones.
   */
  static fit(xs: readonly (readonly number[])[], ys: readonly number[]): GaussianProcess {
    const n = ys.length;
    if (n === 0 || xs.length !== n) throw new RangeError("a Gaussian process needs as many points as observations");
    if (ys.some((y) => !Number.isFinite(y))) throw new RangeError("a Gaussian process needs finite observations");
    const mean = ys.reduce((a, b) => a + b, 0) / n;
    const variance = ys.reduce((a, y) => a + (y - mean) ** 2, 0) / n;
    const scale = variance > 0 ? Math.sqrt(variance) : 1;
    const z = ys.map((y) => (y - mean) / scale);
    const d = xs.map((a) => xs.map((b) => distance(a, b)));
    let best: { l: Float64Array[]; alpha: Float64Array; length: number; noise: number; lml: number } | undefined;
    for (const length of LENGTH_SCALES) {
      for (const noise of NOISE_VARIANCES) {
        const fit = fitWith(d, z, length, noise);
        if (fit !== undefined && (best === undefined || fit.lml > best.lml + 1e-12)) best = fit;
      }
    }
    if (best === undefined) throw new RangeError("the Gaussian process could not be fitted (singular kernel)");
    return new GaussianProcess(xs, best, mean, scale);
  }

  /** The posterior at `x` (a point of the unit cube). */
  predict(x: readonly number[]): GpPrediction {
    const k = this.#xs.map((xi) => matern52(distance(x, xi), this.lengthScale));
    let mu = 0;
    for (let i = 0; i < k.length; i++) mu += k[i] * this.#alpha[i];
    const v = forward(this.#l, k);
    let vv = 0;
    for (let i = 0; i < v.length; i++) vv += v[i] * v[i];
    const variance = Math.max(1 - vv, 1e-12);
    return { mean: this.#mean + this.#scale * mu, sd: this.#scale * Math.sqrt(variance) };
  }

  /** The observation noise's standard deviation, in the units of the observations. */
  get noiseSd(): number {
    return this.#scale * Math.sqrt(this.noiseVariance);
  }
}

function fitWith(
  d: readonly (readonly number[])[],
  z: readonly number[],
  length: number,
  noise: number,
): { l: Float64Array[]; alpha: Float64Array; length: number; noise: number; lml: number } | undefined {
  const n = z.length;
  for (const jitter of [0, 1e-8, 1e-6]) {
    const k = d.map((row, i) => Float64Array.from(row, (r, j) => matern52(r, length) + (i === j ? noise + jitter : 0)));
    const l = cholesky(k);
    if (l === undefined) continue;
    const alpha = backward(l, forward(l, z));
    let fitTerm = 0;
    for (let i = 0; i < n; i++) fitTerm += z[i] * alpha[i];
    let logDet = 0;
    for (let i = 0; i < n; i++) logDet += Math.log(l[i][i]);
    return { l, alpha, length, noise: noise + jitter, lml: -0.5 * fitTerm - logDet - (n / 2) * Math.log(2 * Math.PI) };
  }
  return undefined;
}

/** Standard normal density. */
export function normalPdf(z: number): number {
  return Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);
}

/** Standard normal cumulative distribution (Abramowitz–Stegun 7.1.26 through erfc, |error| < 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erfc = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))) *
    Math.exp(-x * x);
  return z >= 0 ? 1 - erfc / 2 : erfc / 2;
}

/**
 * log of the expected improvement over `best` of a normal posterior (mean, sd), maximizing: log(sd · h(z)),
 * z = (mean − best)/sd, h(z) = φ(z) + z Φ(z); computed in a form that stays finite far below the best (the
 * "LogEI" of Ament et al. 2023, whose plain EI underflows to 0 there).
 */
export function logExpectedImprovement(mean: number, sd: number, best: number): number {
  if (!(sd > 0)) return mean > best ? Math.log(mean - best) : -Infinity;
  const z = (mean - best) / sd;
  let logH: number;
  if (z > -6) {
    logH = Math.log(Math.max(normalPdf(z) + z * normalCdf(z), 1e-300));
  } else {
    // For z → −∞ (Mills ratio): h(z) ≈ φ(z)/z² · (1 − 3/z² + 15/z⁴).
    const z2 = z * z;
    logH = -0.5 * z2 - 0.5 * Math.log(2 * Math.PI) - Math.log(z2) + Math.log1p(-3 / z2 + 15 / (z2 * z2));
  }
  return Math.log(sd) + logH;
}
