/**
 * Deterministic pseudo-random numbers for prompts, sampling, arrival times and the simulated server.
 *
 * xoshiro128** (32-bit state words, fast in JS, passes BigCrush) seeded through splitmix32 so that nearby
 * seeds give unrelated streams. Independent streams for independent purposes are derived by name
 * (`derive("prompts")`), so adding a consumer never shifts another consumer's numbers.
 */

/** 32-bit FNV-1a hash of a string; used to turn names and texts into seeds. */
export function hashString(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function splitmix32(state: number): () => number {
  let s = state >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

export class SeededRandom {
  readonly seed: number;
  #a: number;
  #b: number;
  #c: number;
  #d: number;
  #spareNormal: number | undefined;

  constructor(seed: number) {
    this.seed = seed >>> 0;
    const sm = splitmix32(this.seed);
    this.#a = sm();
    this.#b = sm();
    this.#c = sm();
    this.#d = sm();
    if ((this.#a | this.#b | this.#c | this.#d) === 0) this.#d = 1;
  }

  /** A new generator whose stream depends only on this seed and `name`. */
  derive(name: string): SeededRandom {
    return new SeededRandom(hashString(name, this.seed ^ 0x5bd1e995));
  }

  /** Uniform 32-bit unsigned integer. */
  nextUint32(): number {
    const result = Math.imul(rotl(Math.imul(this.#b, 5), 7), 9) >>> 0;
    const t = this.#b << 9;
    this.#c ^= this.#a;
    this.#d ^= this.#b;
    this.#b ^= this.#c;
    this.#a ^= this.#d;
    this.#c ^= t;
    this.#d = rotl(this.#d, 11);
    return result;
  }

  /** Uniform in [0, 1) with 53 bits of randomness. */
  next(): number {
    const hi = this.nextUint32() >>> 5; // 27 bits
    const lo = this.nextUint32() >>> 6; // 26 bits
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    if (!(n > 0)) throw new RangeError(`int(n) needs n > 0, got ${n}`);
    return Math.floor(this.next() * n);
  }

  /** Normal(mean, stddev) by Box–Muller (the second value is kept for the next call). */
  normal(mean = 0, stddev = 1): number {
    if (stddev === 0) return mean;
    if (this.#spareNormal !== undefined) {
      const z = this.#spareNormal;
      this.#spareNormal = undefined;
      return mean + stddev * z;
    }
    let u = 0;
    while (u === 0) u = this.next();
    const v = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.#spareNormal = r * Math.sin(2 * Math.PI * v);
    return mean + stddev * r * Math.cos(2 * Math.PI * v);
  }

  /** Exponential with the given mean (Poisson inter-arrival gaps). */
  exponential(mean: number): number {
    let u = 0;
    while (u === 0) u = this.next();
    return -Math.log(u) * mean;
  }

  /** Gamma(shape, scale) by Marsaglia–Tsang; shape < 1 via the boost `G(a+1)·U^(1/a)`. */
  gamma(shape: number, scale: number): number {
    if (!(shape > 0) || !(scale > 0)) throw new RangeError(`gamma needs shape, scale > 0, got ${shape}, ${scale}`);
    if (shape < 1) {
      let u = 0;
      while (u === 0) u = this.next();
      return this.gamma(shape + 1, scale) * Math.pow(u, 1 / shape);
    }
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      let x: number;
      let v: number;
      do {
        x = this.normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = this.next();
      if (u < 1 - 0.0331 * x * x * x * x) return d * v * scale;
      if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v * scale;
    }
  }

  /** Fisher–Yates shuffle in place; returns the array. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const tmp = items[i];
      items[i] = items[j];
      items[j] = tmp;
    }
    return items;
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

/**
 * Draw a positive integer length from Normal(mean, stddev), rounded, at least `min` (AIPerf: ISL/OSL ≥ 1).
 */
export function sampleLength(rng: SeededRandom, mean: number, stddev: number, min = 1): number {
  return Math.max(min, Math.round(rng.normal(mean, stddev)));
}
