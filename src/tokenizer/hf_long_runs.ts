/**
 * Long runs of one character class (letters, digits or symbols) in a `tokenizer.json` pre-tokenizer's input, and
 * the rule that lets {@linkcode HfBpeTokenizer} find the pieces around them without running the pattern over them.
 *
 * Why: in a two-byte string V8 compiles `\p{L}+`-style loops (whose classes hold astral ranges) into loops that
 * push one backtrack entry per character, so one match over a run of a few million letters or symbols (an answer
 * in Chinese or Thai without spaces, or a long run of punctuation) throws "Maximum call stack size exceeded".
 *
 * The rule (exact for the patterns {@linkcode longRunRules} accepts). Take a run `[a, b)` of characters of one
 * class C, and the pattern matched on the head `text[0, E)` with `a + 3 <= E <= b - 1` (E on a code point
 * boundary). The patterns accepted are alternations (in any order) of these alternatives only:
 * - contractions (`'s`, `'[rR][eE]`…): read at most three characters, the first an apostrophe;
 * - `X?C+` then optionally `[\r\n]*`, for C = `\p{L}`, `\p{N}` or the symbol class `[^\s\p{L}\p{N}]` (X a single
 *   optional character), nothing after the loop but that tail, which holds no character of C;
 * - `\p{N}` and `\p{N}{1,3}` (at most three digits);
 * - whitespace alternatives (`\s*[\r\n]+`, `\s+(?!\S)`, `\s+`), spelled with the same whitespace class as the
 *   symbol class is, so that their loops take no character of C.
 * The three run classes are disjoint, and only the `X?C+` alternative has a loop that takes characters of C. An
 * alternative tried at a position `q < E` reads the head's end (position E) only after taking `text[E - 1]`, a
 * character of C; only the loop over C does that (the one-character prefix X and the contractions read at most
 * two characters past `q`, and with `E >= a + 3` a contraction or prefix that reads E starts inside the run,
 * where an apostrophe or a prefix followed by a letter cannot be read as C's member and the next character, also
 * in C, fails it just as the end does). Every other alternative therefore reads the same characters in the head
 * as in the whole text and gives the same result; lookaheads (`(?!\S)`) run only after whitespace, before `a`.
 * So each match in the head that ends before E is the whole text's match, and a match that ends at E is the loop
 * over C run into the edge: in the whole text that loop runs on to `b` (every character of `[E, b)` is in C, the
 * loop is greedy and nothing after it needs it to give any back), then the tail takes the `\r`/`\n` after `b`.
 * The pattern has no lookbehind, so matching resumes at the piece's end as it would in the whole text.
 */
import { CharClassTable } from "./char_class_table.ts";

/** Runs shorter than this many code units are left to the pattern; every run twice as long is found. */
export const LONG_RUN_STRIDE = 4096;

/** Run classes, as bits. */
const LETTER = 1;
const DIGIT = 2;
const SYMBOL = 4;

/** One class's run rule: whether its loop's piece takes the `[\r\n]*` after the run. */
export interface LongRunRules {
  /** Bits of the classes whose runs are handled ({@linkcode LETTER}…). */
  readonly classes: number;
  /** Bits of the classes whose loop is followed by `[\r\n]*`. */
  readonly tails: number;
  /** The symbol class's whitespace spelling: `\s` or `\p{White_Space}`. */
  readonly space: string;
}

const CONTRACTIONS = new Set([
  "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])",
  "'s",
  "'t",
  "'re",
  "'ve",
  "'m",
  "'ll",
  "'d",
]);

/** Splits a pattern at its top-level `|` (outside groups and classes); undefined for anything unbalanced. */
function topLevelAlternatives(source: string): string[] | undefined {
  const parts: string[] = [];
  let depth = 0;
  let inClass = false;
  let start = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
    } else if (c === "[") inClass = true;
    else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "|" && depth === 0) {
      parts.push(source.slice(start, i));
      start = i + 1;
    }
    if (depth < 0) return undefined;
  }
  if (depth !== 0 || inClass) return undefined;
  parts.push(source.slice(start));
  return parts;
}

/**
 * The run rules for a translated pre-tokenizer pattern, or undefined when it holds an alternative outside the
 * set above (its long runs then go through the pattern, which may fail on them with a clear error).
 */
export function longRunRules(source: string, flags: string): LongRunRules | undefined {
  if (!flags.includes("u") || flags.includes("i") || flags.includes("m") || flags.includes("y")) return undefined;
  const alternatives = topLevelAlternatives(source);
  if (alternatives === undefined) return undefined;
  let classes = 0;
  let tails = 0;
  let space: string | undefined;
  const spaceIs = (s: string): boolean => (space ??= s) === s;
  for (const alt of alternatives) {
    if (CONTRACTIONS.has(alt) || alt === "\\p{N}" || alt === "\\p{N}{1,3}") continue;
    if (alt === "[^\\r\\n\\p{L}\\p{N}]?\\p{L}+" || alt === " ?\\p{L}+") {
      classes |= LETTER;
      continue;
    }
    if (alt === " ?\\p{N}+") {
      classes |= DIGIT;
      continue;
    }
    const symbol = /^ \?\[\^(\\s|\\p\{White_Space\})\\p\{L\}\\p\{N\}\]\+(\[\\r\\n\]\*)?$/.exec(alt);
    if (symbol !== null) {
      if (!spaceIs(symbol[1])) return undefined;
      classes |= SYMBOL;
      if (symbol[2] !== undefined) tails |= SYMBOL;
      continue;
    }
    const blank = /^(\\s|\\p\{White_Space\})(\*\[\\r\\n\]\+|\+\(\?!(\\S|\\P\{White_Space\})\)|\+)$/.exec(alt);
    if (blank !== null) {
      const negated = blank[3];
      if (!spaceIs(blank[1])) return undefined;
      if (negated !== undefined && negated !== (blank[1] === "\\s" ? "\\S" : "\\P{White_Space}")) return undefined;
      continue;
    }
    return undefined;
  }
  if (classes === 0) return undefined;
  return { classes, tails, space: space ?? "\\s" };
}

/** Finds long runs of the rules' classes in a text, classifying characters by the pattern's own classes. */
export class LongRunFinder {
  readonly #rules: LongRunRules;
  readonly #stride: number;
  /** Class bits of the characters met, by the pattern's own classes (see char_class_table.ts). */
  readonly #chars: CharClassTable;

  /** `stride`: runs of at least this many code units are found, every run twice as long (tests use less). */
  constructor(rules: LongRunRules, stride = LONG_RUN_STRIDE) {
    // A run must reach past the head's edge (four characters in, five where that cuts a surrogate pair).
    if (!(stride >= 8)) throw new RangeError(`a long-run stride of at least 8 code units, not ${stride}`);
    this.#rules = rules;
    this.#stride = stride;
    const sources: [number, string][] = [
      [LETTER, "\\p{L}"],
      [DIGIT, "\\p{N}"],
      [SYMBOL, `[^${rules.space}\\p{L}\\p{N}]`],
    ];
    this.#chars = new CharClassTable(sources.filter(([bit]) => (rules.classes & bit) !== 0));
  }

  /** Whether the piece that ends a run of class `kind` takes the `\r`/`\n` after it. */
  hasTail(kind: number): boolean {
    return (this.#rules.tails & kind) !== 0;
  }

  /**
   * Runs of at least the stride's length, as `[start, end, class]` triples in order; none in a one-byte string
   * (there V8's loops keep no per-character backtrack entries) or a text shorter than twice the stride.
   */
  find(text: string): number[] {
    const runs: number[] = [];
    const n = text.length;
    const stride = this.#stride;
    if (n < 2 * stride || !TWO_BYTE.test(text)) return runs;
    let done = 0;
    for (let s = stride; s < n; s += stride) {
      if (s < done) continue;
      // A sample on a surrogate pair's second half is read from its first.
      const at = s > 0 && isLow(text.charCodeAt(s)) && isHigh(text.charCodeAt(s - 1)) ? s - 1 : s;
      const bits = this.#chars.at(text, at) & this.#rules.classes;
      if (bits === 0) continue;
      const end = this.#chars.runEnd(text, at, bits);
      const start = this.#chars.runStart(text, at, bits);
      done = end;
      if (end - start < stride) continue;
      runs.push(start, end, bits);
    }
    return runs;
  }
}

const TWO_BYTE = /[\u0100-\uffff]/;

function isHigh(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLow(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
