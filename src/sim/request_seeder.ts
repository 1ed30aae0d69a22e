/**
 * Per-request randomness that does not depend on arrival order.
 *
 * A request's generator is seeded from (server seed, FNV-1a hash of the raw body text, how many identical bodies
 * came before it). Under concurrency requests arrive in any order, but identical bodies are interchangeable, so
 * the outcome of every distinct body — and the multiset of outcomes of repeated ones — is the same in every run
 * with the same seed. Counting repeats matters: a benchmark replaying one prompt with `--error-rate 10` must see
 * about 10 % errors, not all or none.
 *
 * Memory: one map entry (~50 bytes) per distinct body hash. Distinct bodies whose 32-bit hashes collide share a
 * repeat counter, which only affects the order-independence of those few.
 */
import { hashString, SeededRandom } from "../base/seeded_random.ts";

export class RequestSeeder {
  readonly seed: number;
  readonly #seen = new Map<number, number>();

  constructor(seed: number) {
    this.seed = seed >>> 0;
  }

  /** The generator for a request whose body text is `body`. */
  rngFor(body: string): SeededRandom {
    const h = hashString(body, this.seed ^ 0x811c9dc5);
    const repeat = this.#seen.get(h) ?? 0;
    this.#seen.set(h, repeat + 1);
    return new SeededRandom(repeat === 0 ? h : hashString(`#${repeat}`, h));
  }
}
