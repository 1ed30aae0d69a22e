/**
 * Synthetic prompts whose text encodes to exactly the requested number of tokens (AIPerf's `sonnet` corpus
 * behaviour, `reference/aiperf.md` §5.2 and §12 item 11).
 *
 * The corpus is tokenized once (blank lines removed, lines trimmed) into one flat token pool. A prompt of `n`
 * tokens is a window of `n` pool tokens at a random start (wrapping around the end), decoded to text. Decoding and
 * re-encoding is not always the identity (a window may start or end inside a word, and adjacent tokens can merge
 * differently), so the text is re-encoded and repaired until it encodes to exactly `n` tokens: too long → keep the
 * first `n` re-encoded tokens; too short → append the pool tokens that follow the window. If that does not settle
 * within `maxRepairRounds`, the next start is tried (up to `maxAttempts`), and the closest text is returned with
 * its achieved length, so callers always report the achieved count, never the intended one.
 *
 * Fast path, with tokenizers that report piece boundaries (the builtin one, see `PieceEncoding`): the window is
 * moved forward from its random start to the first one that starts and ends on a piece boundary; such a window
 * decodes to text that encodes to exactly its tokens, so no re-encoding is needed. This skips ~70k tokens of
 * BPE work for AIPerf's default 100 prompts of 550 tokens, a large part of the time to the first request.
 */
import type { Tokenizer } from "../tokenizer/tokenizer.ts";
import type { SeededRandom } from "./seeded_random.ts";

export interface PromptSynthesizerOptions {
  /** Re-encode/repair rounds per start position. @default 10 */
  readonly maxRepairRounds?: number;
  /** Start positions tried before giving up on an exact length. @default 8 */
  readonly maxAttempts?: number;
}

/** A synthesized prompt and the token count its text actually encodes to. */
export interface SynthesizedPrompt {
  readonly text: string;
  /** `tokenizer.encode(text).length`; equals the request except in the rare case no exact text was found. */
  readonly tokens: number;
}

export class PromptSynthesizer {
  readonly tokenizer: Tokenizer;
  readonly #pool: readonly number[];
  /** `boundary[i]` = 1 when pool token `i` starts a piece (length pool + 1), when the tokenizer reports them. */
  readonly #boundary: Uint8Array | undefined;
  readonly #rng: SeededRandom;
  readonly #maxRepairRounds: number;
  readonly #maxAttempts: number;

  /**
   * @param tokenizer Used for the pool and for every exactness check.
   * @param corpus Source text; blank lines are dropped and lines trimmed before tokenizing.
   * @param rng Picks window starts; give the synthesizer its own derived stream.
   * @throws {RangeError} when the corpus has no tokens.
   */
  constructor(tokenizer: Tokenizer, corpus: string, rng: SeededRandom, options: PromptSynthesizerOptions = {}) {
    this.tokenizer = tokenizer;
    this.#rng = rng;
    this.#maxRepairRounds = options.maxRepairRounds ?? 10;
    this.#maxAttempts = options.maxAttempts ?? 8;
    const cleaned = corpus
      .split(/\r\n|\r|\n/)
      .map((line) => line.trim())
      .filter((line) => line.length > 0)
      .join("\n");
    const pieces = tokenizer.encodeWithPieceStarts?.(cleaned);
    this.#pool = pieces?.ids ?? tokenizer.encode(cleaned);
    this.#boundary = pieces?.boundary;
    if (this.#pool.length === 0) {
      throw new RangeError("The prompt corpus has no tokens; pass a corpus with some text in it");
    }
  }

  /** Number of tokens in the corpus pool. */
  get poolSize(): number {
    return this.#pool.length;
  }

  /**
   * A prompt of exactly `n` tokens (see {@linkcode SynthesizedPrompt.tokens} for the achieved length).
   *
   * @throws {RangeError} when `n` is not a positive integer.
   */
  prompt(n: number): SynthesizedPrompt {
    if (!Number.isInteger(n) || n < 1) {
      throw new RangeError(`Prompt length must be a positive integer, got ${n}; use at least 1 token`);
    }
    let best: SynthesizedPrompt | undefined;
    const first = this.#rng.int(this.#pool.length);
    for (let attempt = 0; attempt < this.#maxAttempts; attempt++) {
      const start = (first + attempt * 7919) % this.#pool.length;
      const aligned = this.#alignedWindow(start, n);
      if (aligned !== undefined) {
        return { text: this.tokenizer.decode(this.#pool.slice(aligned, aligned + n)), tokens: n };
      }
      const candidate = this.#fromWindow(start, n);
      if (candidate.tokens === n) return candidate;
      if (best === undefined || Math.abs(candidate.tokens - n) < Math.abs(best.tokens - n)) best = candidate;
    }
    return best!;
  }

  /** First start ≥ `start` (within a short scan, no wrap) whose window of `n` tokens begins and ends on boundaries. */
  #alignedWindow(start: number, n: number): number | undefined {
    const boundary = this.#boundary;
    if (boundary === undefined) return undefined;
    const last = Math.min(start + ALIGN_SCAN, this.#pool.length - n);
    for (let s = start; s <= last; s++) if (boundary[s] === 1 && boundary[s + n] === 1) return s;
    return undefined;
  }

  #fromWindow(start: number, n: number): SynthesizedPrompt {
    const tokenizer = this.tokenizer;
    let next = start;
    let text = tokenizer.decode(this.#take(next, n));
    next += n;
    // Most windows are already exact: check with count(), which does not materialize ids.
    if (tokenizer.count(text) === n) return { text, tokens: n };
    let encoded = tokenizer.encode(text);
    for (let round = 0; round < this.#maxRepairRounds && encoded.length !== n; round++) {
      let ids: number[];
      if (encoded.length > n) {
        ids = encoded.slice(0, n);
      } else {
        const missing = n - encoded.length;
        ids = encoded.concat(this.#take(next, missing));
        next += missing;
      }
      text = tokenizer.decode(ids);
      encoded = tokenizer.encode(text);
    }
    return { text, tokens: encoded.length };
  }

  /** `count` pool tokens from `start`, wrapping around the end. */
  #take(start: number, count: number): number[] {
    const pool = this.#pool;
    const out = new Array<number>(count);
    let at = start % pool.length;
    for (let i = 0; i < count; i++) {
      out[i] = pool[at];
      if (++at === pool.length) at = 0;
    }
    return out;
  }
}

/** How far past a random start the fast path looks for a boundary-aligned window (most positions are one). */
const ALIGN_SCAN = 256;
