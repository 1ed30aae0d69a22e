/**
 * Least-squares polynomial fits, as `numpy.polyfit` gives them: coefficients highest degree first
 * (`[a, b]` for `a·x + b`, `[a, b, c]` for `a·x² + b·x + c`), with the coefficient of determination
 * r² = 1 − SS_res / SS_tot (0 when the y values do not vary). Solved by the normal equations on x scaled to [−1, 1]
 * (well conditioned for lengths up to millions of tokens), then mapped back.
 */

export interface PolyFit {
  readonly coefficients: number[];
  readonly rSquared: number;
}

/** Solves `a · x = b` (small, dense) by Gaussian elimination with partial pivoting; undefined when singular. */
function solve(a: number[][], b: number[]): number[] | undefined {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(m[r][col]) > Math.abs(m[pivot][col])) pivot = r;
    if (Math.abs(m[pivot][col]) < 1e-12) return undefined;
    [m[col], m[pivot]] = [m[pivot], m[col]];
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = m[r][col] / m[col][col];
      for (let c = col; c <= n; c++) m[r][c] -= f * m[col][c];
    }
  }
  return m.map((row, i) => row[n] / row[i]);
}

/** `value` of the polynomial (coefficients highest degree first) at `x`. */
export function polyval(coefficients: readonly number[], x: number): number {
  return coefficients.reduce((acc, c) => acc * x + c, 0);
}

/** The degree-`degree` least-squares fit of (x, y); undefined with fewer points than coefficients or equal xs. */
export function polyfit(xs: readonly number[], ys: readonly number[], degree: number): PolyFit | undefined {
  const n = xs.length;
  if (n !== ys.length || n < degree + 1) return undefined;
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  if (!(hi > lo)) return undefined;
  const mid = (hi + lo) / 2;
  const half = (hi - lo) / 2;
  const ts = xs.map((x) => (x - mid) / half);
  // Normal equations in t: Σ t^(i+j) c_j = Σ y t^i, c lowest degree first.
  const k = degree + 1;
  const a = Array.from(
    { length: k },
    (_, i) => Array.from({ length: k }, (_, j) => ts.reduce((s, t) => s + t ** (i + j), 0)),
  );
  const b = Array.from({ length: k }, (_, i) => ts.reduce((s, t, idx) => s + ys[idx] * t ** i, 0));
  const c = solve(a, b);
  if (c === undefined) return undefined;
  // Expand p(t) = Σ c_i ((x − mid)/half)^i into powers of x.
  const inX = new Array<number>(k).fill(0);
  for (let i = 0; i < k; i++) {
    // ((x − mid)/half)^i = Σ_j C(i, j) x^j (−mid)^(i−j) / half^i
    for (let j = 0; j <= i; j++) inX[j] += c[i] * binomial(i, j) * (-mid) ** (i - j) / half ** i;
  }
  const coefficients = inX.reverse();
  const mean = ys.reduce((s, y) => s + y, 0) / n;
  const ssTot = ys.reduce((s, y) => s + (y - mean) ** 2, 0);
  const ssRes = xs.reduce((s, x, i) => s + (ys[i] - polyval(coefficients, x)) ** 2, 0);
  return { coefficients, rSquared: ssTot === 0 ? 0 : 1 - ssRes / ssTot };
}

function binomial(n: number, k: number): number {
  let r = 1;
  for (let i = 1; i <= k; i++) r = r * (n - i + 1) / i;
  return r;
}
