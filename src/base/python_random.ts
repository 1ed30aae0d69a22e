/**
 * CPython's `random.Random` for an integer seed — the Mersenne Twister (MT19937) seeded by `init_by_array` over the
 * seed's 32-bit words — and the few methods accuracy benchmarks use to pick their few-shot examples and shuffle
 * choices (`shuffle`, `randrange`), so that infermeter picks the very examples and orders AIPerf picks. Numbers are
 * those of CPython 3.x for the same seed (tested against values Python printed).
 */

const N = 624;
const M = 397;

export class PythonRandom {
  readonly #mt = new Uint32Array(N);
  #index = N;

  /** `random.Random(seed)` for a non-negative integer seed (a `bigint` for seeds beyond 2^53). */
  constructor(seed: number | bigint) {
    let s = BigInt(seed);
    if (s < 0n) s = -s; // CPython seeds with abs(seed)
    const key: number[] = [];
    while (s > 0n) {
      key.push(Number(s & 0xffffffffn));
      s >>= 32n;
    }
    if (key.length === 0) key.push(0);
    this.#initByArray(key);
  }

  #initGenrand(seed: number): void {
    const mt = this.#mt;
    mt[0] = seed >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
  }

  #initByArray(key: readonly number[]): void {
    const mt = this.#mt;
    this.#initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1664525)) + key[j] + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
    }
    mt[0] = 0x80000000;
    this.#index = N;
  }

  #twist(): void {
    const mt = this.#mt;
    for (let k = 0; k < N; k++) {
      const y = (mt[k] & 0x80000000) | (mt[(k + 1) % N] & 0x7fffffff);
      mt[k] = (mt[(k + M) % N] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0)) >>> 0;
    }
    this.#index = 0;
  }

  /** The next 32-bit output (`genrand_uint32`). */
  nextUint32(): number {
    if (this.#index >= N) this.#twist();
    let y = this.#mt[this.#index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `getrandbits(k)` for 0 < k ≤ 32. */
  getrandbits(k: number): number {
    return this.nextUint32() >>> (32 - k);
  }

  /** `randrange(n)`: uniform in [0, n) by rejection over `bit_length(n)` bits (`_randbelow_with_getrandbits`). */
  randrange(n: number): number {
    if (!Number.isInteger(n) || n <= 0 || n > 0xffffffff) throw new RangeError(`randrange(${n}) needs 0 < n < 2^32`);
    const k = 32 - Math.clz32(n);
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }

  /** `shuffle(items)` in place: Fisher–Yates from the end, as CPython draws it. */
  shuffle<T>(items: T[]): void {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.randrange(i + 1);
      [items[i], items[j]] = [items[j], items[i]];
    }
  }
}
