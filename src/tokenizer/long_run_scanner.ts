/**
 * Pre-tokenizes long runs of letters (and of punctuation) for the o200k_base pattern without the regular expression.
 *
 * Why: in a two-byte string, V8 compiles the pattern's Unicode classes (which hold astral ranges) into loops that
 * push one backtrack entry per character. A piece of a few million characters — an answer in Chinese, Japanese or
 * Thai without spaces, or a long run of symbols — then costs ~20 ns per character the first time a process grows
 * the regular expression's stack that far, and past ~3 M characters the match throws "Maximum call stack size
 * exceeded". A text is therefore first sampled (one character in {@linkcode RUN_SAMPLE_STRIDE}) for runs of at
 * least that many characters of one class (letters and marks; or symbols), and the pieces that start in such a
 * run (or just before it) are found here; everything else still goes through the pattern.
 *
 * Exactness: each function below follows the pattern's backtracking order for the alternatives that can match at
 * such a position (the letter alternatives 1 and 2 with their optional prefix and contraction; the symbol
 * alternative 4), and answers -1 for anything else, which the caller hands to the pattern. Characters are
 * classified by the pattern's own character classes (evaluated by the same engine, once per character seen), so
 * the scanner and the pattern cannot disagree on a Unicode category. A seeded differential test compares both on
 * random text of many scripts.
 */

import { CharClassTable } from "./char_class_table.ts";

/** The o200k_base pre-tokenizer pattern (tiktoken `pat_str`, as js-tiktoken spells it) the scanner implements. */
export const O200K_PATTERN =
  "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/**
 * Runs shorter than this are left to the pattern (cheap there); every run at least twice this long is found
 * (it holds two consecutive sample points).
 */
export const RUN_SAMPLE_STRIDE = 4096;

/** `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`: the first letter loop's class. */
const U = 1;
/** `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`: the second letter loop's class. */
const W = 2;
/** `[^\r\n\p{L}\p{N}]`: the optional prefix before letters. */
const P = 4;
/** `[^\s\p{L}\p{N}]`: the symbol loop's class. */
const X = 8;
/** `[\r\n/]`: what may follow a symbol run in its piece. */
const T = 16;
/** A symbol that is no mark (X without U or W): what long symbol runs are made of. */
const SYM = 32;
/** In both U and W (`\p{Lm}`, `\p{Lo}`, `\p{M}`). */
const BOTH = 64;

const LETTER = U | W;

/** Run kinds of {@linkcode LongRunScanner.findRuns}. */
export const LETTER_RUN = 0;
/** Letters and marks that are each in both letter classes (`\p{Lm}`, `\p{Lo}`, `\p{M}`: CJK, Thai, kana…). */
export const LETTER_RUN_BOTH = 2;
export const SYMBOL_RUN = 1;

/** The pattern's classes that the scanner reads, by bit. */
const CLASSES: readonly (readonly [number, string])[] = [
  [U, String.raw`[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`],
  [W, String.raw`[\p{Ll}\p{Lm}\p{Lo}\p{M}]`],
  [P, String.raw`[^\r\n\p{L}\p{N}]`],
  [X, String.raw`[^\s\p{L}\p{N}]`],
  [T, String.raw`[\r\n/]`],
];

/** The bits that follow from the pattern's classes: SYM and BOTH. */
function derived(bits: number): number {
  if ((bits & X) !== 0 && (bits & LETTER) === 0) bits |= SYM;
  return (bits & U) !== 0 && (bits & W) !== 0 ? bits | BOTH : bits;
}

const APOSTROPHE = 0x27;

/**
 * Finds long runs and the pieces in them. One per tokenizer (its tables fill as characters are first seen; a
 * random CJK text meets ~2,000 of them).
 */
export class LongRunScanner {
  readonly #stride: number;

  /** `stride`: runs of at least this many code units are found, every run of twice as many (tests use less). */
  constructor(stride = RUN_SAMPLE_STRIDE) {
    this.#stride = stride;
  }

  /** Class bits of the characters met, by the pattern's own classes (see char_class_table.ts). */
  readonly #chars = new CharClassTable(CLASSES, derived);

  /**
   * Runs of at least the stride's length of letters and marks (kind 0) or of symbols other than
   * marks (kind 1) in `text`, as `[start, end, kind]` triples in order (none in a text shorter than twice the
   * stride).
   */
  findRuns(text: string): number[] {
    const runs: number[] = [];
    const n = text.length;
    const stride = this.#stride;
    if (n < 2 * stride) return runs;
    let done = 0;
    for (let s = stride; s < n; s += stride) {
      if (s < done) continue;
      const bits = this.#chars.at(text, s);
      const cls = (bits & LETTER) !== 0 ? LETTER : (bits & SYM) !== 0 ? SYM : 0;
      if (cls === 0) continue;
      // Letters each in both letter classes first: where that run ends at a character that is no letter, the
      // letter run is made of them alone (scanned once).
      const both = cls === LETTER && (bits & BOTH) !== 0;
      let end = this.#chars.runEnd(text, s, both ? BOTH : cls);
      let bothAfter = both;
      if (both && end < n && (this.#chars.at(text, end) & LETTER) !== 0) {
        bothAfter = false;
        end = this.#chars.runEnd(text, end, LETTER);
      }
      if (end - s < stride / 2 && end < n) {
        done = end;
        continue;
      }
      let start = this.#chars.runStart(text, s, both ? BOTH : cls);
      let bothBefore = both;
      if (both && start > 0 && (this.#chars.before(text, start) & LETTER) !== 0) {
        bothBefore = false;
        start = this.#chars.runStart(text, start, LETTER);
      }
      done = end;
      if (end - start < stride) continue;
      runs.push(start, end, cls === SYM ? SYMBOL_RUN : bothAfter && bothBefore ? LETTER_RUN_BOTH : LETTER_RUN);
    }
    return runs;
  }

  /**
   * The end of the pattern's match at `pos`, where `pos` lies in a run of letters and marks `[pos, …)` or just
   * before one (`pos + 1` starts it); -1 where it is not one of the letter alternatives (the caller asks the
   * pattern).
   */
  letterPiece(text: string, pos: number): number {
    return this.#letterPiece(text, pos);
  }

  /**
   * {@linkcode letterPiece} in a run `[start, end)` of {@linkcode LETTER_RUN_BOTH} (`start - 2 <= pos`): every
   * character is in both letter loops' classes, so the first alternative takes the rest of the run (from the
   * prefix on: the character before the run, where it is one) and the contraction after it, without looking at the
   * characters again.
   */
  bothPiece(text: string, pos: number, start: number, end: number): number {
    if (pos >= end) return -1;
    if (pos < start && ((this.#chars.at(text, pos) & P) === 0 || pos + this.#chars.size !== start)) return -1;
    return this.#contraction(text, end);
  }

  #letterPiece(text: string, pos: number): number {
    const first = this.#chars.at(text, pos);
    const size = this.#chars.size;
    // Alternative 1, then 2, each with the optional prefix taken first, then without it.
    if ((first & P) !== 0) {
      const e = this.#uStarWPlus(text, pos + size);
      if (e >= 0) return e;
    }
    let e = this.#uStarWPlus(text, pos);
    if (e >= 0) return e;
    if ((first & P) !== 0) {
      e = this.#uPlusWStar(text, pos + size);
      if (e >= 0) return e;
    }
    return this.#uPlusWStar(text, pos);
  }

  /** `[U]*[W]+C?` at `i`: the end of its match, or -1. */
  #uStarWPlus(text: string, i: number): number {
    const n = text.length;
    const r = this.#chars.runEnd(text, i, U);
    if (r < n && (this.#chars.at(text, r) & W) !== 0) return this.#contraction(text, this.#chars.runEnd(text, r, W));
    // Backtrack the U loop one character at a time until the W loop can take one: the last W in [i, r).
    for (let j = r; j > i;) {
      const bits = this.#chars.before(text, j);
      if ((bits & W) !== 0) return this.#contraction(text, j); // the W loop takes that character, then stops
      j -= this.#chars.size;
    }
    return -1;
  }

  /** `[U]+[W]*C?` at `i`: the end of its match, or -1. */
  #uPlusWStar(text: string, i: number): number {
    const r = this.#chars.runEnd(text, i, U);
    if (r === i) return -1;
    return this.#contraction(text, this.#chars.runEnd(text, r, W));
  }

  /** `('s|'t|'re|'ve|'m|'ll|'d)?` in either case at `i` (the pattern lists the case variants): the end. */
  #contraction(text: string, i: number): number {
    if (i + 1 >= text.length || text.charCodeAt(i) !== APOSTROPHE) return i;
    const a = text.charCodeAt(i + 1) | 0x20;
    if (a === 0x73 || a === 0x74 || a === 0x6d || a === 0x64) return i + 2; // s t m d
    if (i + 2 >= text.length) return i;
    const b = text.charCodeAt(i + 2) | 0x20;
    if ((a === 0x72 || a === 0x76) && b === 0x65) return i + 3; // re ve
    if (a === 0x6c && b === 0x6c) return i + 3; // ll
    return i;
  }

  /**
   * The end of the pattern's match at `pos` in a run of symbols that are not marks, `[…, end)`, or at a space just
   * before it: `[^\s\p{L}\p{N}]+` (marks included) and the `[\r\n/]*` after it. -1 where another alternative could
   * match (the prefix before a letter or mark: fewer than two such symbols left, counted in code points), for the
   * pattern to answer.
   */
  symbolPiece(text: string, pos: number, end: number): number {
    const start = text.charCodeAt(pos) === 0x20 ? pos + 1 : pos;
    if (start >= end || (this.#chars.at(text, start) & SYM) === 0 || start + this.#chars.size >= end) return -1;
    return this.#chars.runEnd(text, this.#chars.runEnd(text, start, X), T);
  }
}
