/**
 * Class bits of characters by a pre-tokenizer pattern's own character classes, cached per code point, and the runs
 * of characters of one class: what the long-run scanners (`long_run_scanner.ts` for the builtin o200k pattern,
 * `hf_long_runs.ts` for a `tokenizer.json`'s) read instead of running the pattern over millions of characters.
 *
 * Classes are evaluated by the same regular-expression engine as the pattern, so the two cannot disagree on a
 * Unicode category; BMP characters are classified a block of 256 at a time (a text's characters come from few
 * blocks: ~8 for common CJK), astral ones and lone surrogates one by one.
 */

/** Set on every classified entry (0 = not classified yet); class bits must stay below it. */
export const CLASS_KNOWN = 128;

/** Characters classified together. */
const BLOCK = 256;

export class CharClassTable {
  /** Class bits per UTF-16 code unit outside the surrogates (0 = not classified yet): hot loops read it directly. */
  readonly units = new Uint8Array(0x10000);
  /** Code units taken by the last {@linkcode at} or {@linkcode before} (1, or 2 for a surrogate pair). */
  size = 1;
  /** Class bits per astral code point, and per lone surrogate (by its code unit). */
  readonly #astral = new Map<number, number>();
  readonly #classes: readonly [number, RegExp][];
  readonly #blockClasses: readonly [number, RegExp][];
  readonly #derive: (bits: number) => number;

  /**
   * @param classes each class's bit (below {@linkcode CLASS_KNOWN}) and its regular-expression source (one
   * character: `\p{L}`, `[^\s\p{L}\p{N}]`…)
   * @param derive bits that follow from the classes' bits, added to each entry (the identity by default)
   */
  constructor(classes: readonly (readonly [number, string])[], derive: (bits: number) => number = (bits) => bits) {
    this.#classes = classes.map(([bit, source]) => [bit, new RegExp(`^${source}$`, "u")]);
    this.#blockClasses = classes.map(([bit, source]) => [bit, new RegExp(source, "gu")]);
    this.#derive = derive;
  }

  /** Class bits of the code point at `i` (`i < text.length`); sets {@linkcode size}. */
  at(text: string, i: number): number {
    const c = text.charCodeAt(i);
    this.size = 1;
    if (c < 0xd800 || c > 0xdfff) {
      const units = this.units;
      if (units[c] === 0) this.#classifyBlock(c);
      return units[c];
    }
    let cp = c;
    if (c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        cp = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
        this.size = 2;
      }
    }
    let bits = this.#astral.get(cp);
    if (bits === undefined) {
      const s = this.size === 2 ? text.substring(i, i + 2) : String.fromCharCode(c);
      bits = CLASS_KNOWN;
      for (const [bit, re] of this.#classes) if (re.test(s)) bits |= bit;
      bits = this.#derive(bits);
      this.#astral.set(cp, bits);
    }
    return bits;
  }

  /** Class bits of the code point that ends just before `i` (`i > 0`); sets {@linkcode size}. */
  before(text: string, i: number): number {
    const d = text.charCodeAt(i - 1);
    if (d >= 0xdc00 && d <= 0xdfff && i >= 2) {
      const c = text.charCodeAt(i - 2);
      if (c >= 0xd800 && c <= 0xdbff) return this.at(text, i - 2);
    }
    return this.at(text, i - 1);
  }

  /** The end of the run of characters in any of the classes `cls` that starts at `i`. */
  runEnd(text: string, i: number, cls: number): number {
    const n = text.length;
    const units = this.units;
    for (;;) {
      // Surrogates and characters not classified yet read 0 here and take the slow path.
      while (i < n && (units[text.charCodeAt(i)] & cls) !== 0) i++;
      if (i >= n || (this.at(text, i) & cls) === 0) return i;
      i += this.size;
    }
  }

  /** The start of the run of characters in any of the classes `cls` that ends at `i`. */
  runStart(text: string, i: number, cls: number): number {
    while (i > 0) {
      if ((this.before(text, i) & cls) === 0) return i;
      i -= this.size;
    }
    return 0;
  }

  /** Classifies the block of {@linkcode BLOCK} code units holding `c` (no surrogate). */
  #classifyBlock(c: number): void {
    const base = c & ~(BLOCK - 1);
    const codes: number[] = [];
    for (let i = 0; i < BLOCK; i++) codes.push(base + i);
    const block = String.fromCharCode(...codes);
    const bits = new Uint8Array(BLOCK).fill(CLASS_KNOWN);
    for (const [bit, re] of this.#blockClasses) {
      re.lastIndex = 0;
      for (let m = re.exec(block); m !== null; m = re.exec(block)) bits[m.index] |= bit;
    }
    const units = this.units;
    for (let i = 0; i < BLOCK; i++) units[base + i] = this.#derive(bits[i]);
  }
}
