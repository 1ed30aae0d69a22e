/**
 * The simulator's prompt cache, for `--usage-details`: a prompt's cached tokens are those of its leading texts (its
 * messages, in order) that an earlier prompt began with, like a serving engine's prefix cache seen at message
 * granularity. A later turn of a conversation finds the earlier turn's prompt cached; a new prompt finds nothing.
 * The last text of a prompt is never counted as cached (the engine computes at least the new tokens).
 *
 * Prefixes are remembered by a 53-bit rolling hash of their texts (two FNV-1a streams over UTF-16 units, a separator
 * between texts); the set is cleared when it reaches `capacity` entries, so memory stays bounded on a long soak.
 */
export class PrefixCache {
  readonly #seen = new Set<number>();
  readonly #capacity: number;

  constructor(capacity = 1_000_000) {
    this.#capacity = capacity;
  }

  /** Cached tokens of `texts` (`counts[i]` = tokens of `texts[i]`); then remembers every prefix of `texts`. */
  lookUp(texts: readonly string[], counts: readonly number[]): number {
    let a = 0x811c9dc5;
    let b = 0x01000193;
    let cached = 0;
    let run = 0;
    let matching = true;
    const keys: number[] = [];
    for (let i = 0; i < texts.length; i++) {
      const text = texts[i];
      // Two FNV-1a streams over the text and a separator; 32 + 21 bits of them make the key.
      for (let j = 0; j <= text.length; j++) {
        const unit = j < text.length ? text.charCodeAt(j) : 0x1f;
        a = Math.imul(a ^ unit, 0x01000193);
        b = Math.imul(b ^ unit, 0x0100019d);
      }
      const key = (a >>> 0) * 0x200000 + (b >>> 11);
      keys.push(key);
      run += counts[i];
      if (matching && i < texts.length - 1 && this.#seen.has(key)) cached = run;
      else matching = false;
    }
    if (this.#seen.size + keys.length > this.#capacity) this.#seen.clear();
    for (const k of keys) this.#seen.add(k);
    return cached;
  }
}
