/**
 * Which dataset entry each request uses (`--dataset-sampling-strategy`, AIPerf §5.1):
 * - `sequential`: 0, 1, …, size−1, 0, 1, … (wraps);
 * - `random`: uniform with replacement;
 * - `shuffle`: a random permutation, then a fresh one each time it is exhausted (without replacement per pass).
 *
 * Random access: `indexAt(k)` is the entry of request k computed from k alone (no state), so engine shards can
 * each compute their own requests' entries and agree with a single sampler; `next()` is exactly
 * `indexAt(0), indexAt(1), …`. To make that possible the random strategies draw one 32-bit key from `rng` when
 * created and seed a fresh {@linkcode SeededRandom} per request (`random`) or per pass (`shuffle`) from the key.
 */
import type { SamplingStrategy } from "./conversation.ts";
import { SeededRandom } from "../base/seeded_random.ts";

export interface DatasetSampler {
  readonly strategy: SamplingStrategy;
  /** Number of entries sampled from. */
  readonly size: number;
  /** The entry for the next request (the first call returns `indexAt(0)`). */
  next(): number;
  /** The entry for request `k` (k ≥ 0), independent of any `next()` calls. */
  indexAt(k: number): number;
}

const GOLDEN = 0x9e3779b9;

/** A seed for item `k` of the stream keyed by `key`; distinct for distinct k < 2³² (odd multiplier). */
function seedFor(key: number, k: number): number {
  return (key + Math.imul(k >>> 0, GOLDEN) + Math.floor(k / 4294967296)) >>> 0;
}

abstract class BaseSampler implements DatasetSampler {
  abstract readonly strategy: SamplingStrategy;
  readonly size: number;
  #cursor = 0;

  constructor(size: number) {
    this.size = size;
  }

  next(): number {
    return this.indexAt(this.#cursor++);
  }

  indexAt(k: number): number {
    if (!Number.isSafeInteger(k) || k < 0) {
      throw new RangeError(`Request index must be a non-negative integer, got ${k}; count requests from 0`);
    }
    return this.pick(k);
  }

  protected abstract pick(k: number): number;
}

class SequentialSampler extends BaseSampler {
  readonly strategy = "sequential";
  protected pick(k: number): number {
    return k % this.size;
  }
}

class RandomSampler extends BaseSampler {
  readonly strategy = "random";
  readonly #key: number;

  constructor(size: number, rng: SeededRandom) {
    super(size);
    this.#key = rng.nextUint32();
  }

  protected pick(k: number): number {
    return new SeededRandom(seedFor(this.#key, k)).int(this.size);
  }
}

class ShuffleSampler extends BaseSampler {
  readonly strategy = "shuffle";
  readonly #key: number;
  /** The permutation of the most recently used pass (requests are mostly asked for in order). */
  #pass = -1;
  #order: number[] = [];

  constructor(size: number, rng: SeededRandom) {
    super(size);
    this.#key = rng.nextUint32();
  }

  protected pick(k: number): number {
    const pass = Math.floor(k / this.size);
    if (pass !== this.#pass) {
      const order = Array.from({ length: this.size }, (_, i) => i);
      new SeededRandom(seedFor(this.#key, pass)).shuffle(order);
      this.#order = order;
      this.#pass = pass;
    }
    return this.#order[k - pass * this.size];
  }
}

/**
 * A sampler over `size` entries.
 *
 * @param rng Only read at creation (one draw for `random` and `shuffle`); pass a stream derived for sampling.
 * @throws {RangeError} when `size` is not a positive integer.
 */
export function createSampler(strategy: SamplingStrategy, size: number, rng: SeededRandom): DatasetSampler {
  if (!Number.isSafeInteger(size) || size < 1) {
    throw new RangeError(
      `A sampler needs at least one dataset entry, got ${size}; check that the dataset is not empty`,
    );
  }
  switch (strategy) {
    case "sequential":
      return new SequentialSampler(size);
    case "random":
      return new RandomSampler(size, rng);
    case "shuffle":
      return new ShuffleSampler(size, rng);
    default:
      throw new RangeError(
        `Unknown sampling strategy ${JSON.stringify(strategy)}; use sequential, random or shuffle`,
      );
  }
}
