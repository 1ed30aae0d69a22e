/**
 * Synthetic prompts whose text encodes to exactly the requested number of tokens (AIPerf's `sonnet` corpus
 * behaviour, `reference/aiperf.md` §5.2 and §12 item 11).
 *
 * The corpus (blank lines removed, lines trimmed) is one flat pool of tokens. A prompt of `n` tokens is a window
 * of `n` pool tokens from a random start, as text.
 *
 * Fast path, with tokenizers that report piece boundaries (the builtin one, see `PieceEncoding`): the window is
 * moved forward from its random start to the first one that starts and ends on a piece boundary; such a window
 * is text that encodes to exactly its tokens, so no re-encoding is needed. For the bundled corpus and the builtin
 * tokenizer the pool comes from a precomputed piece table (`corpus_piece_table.ts`): the window's text is a slice
 * of the corpus, and the tokenizer's tables are never loaded (15–50 ms of start-up).
 *
 * Slow path (no aligned window near the start, prompts longer than the corpus, tokenizers without boundaries):
 * the window is decoded, and since decoding and re-encoding is not always the identity (a window may start or end
 * inside a word, and adjacent tokens can merge differently), the text is re-encoded and repaired until it encodes
 * to exactly `n` tokens: too long → keep the first `n` re-encoded tokens; too short → append the pool tokens that
 * follow the window (wrapping around the end). If that does not settle within `maxRepairRounds`, the next start is
 * tried (up to `maxAttempts`), and the closest text is returned with its achieved length, so callers always report
 * the achieved count, never the intended one. This path loads the tokenizer when it first runs.
 */
import { asLazyTokenizer, type LazyTokenizer, type Tokenizer } from "../tokenizer/tokenizer.ts";
import { BUILTIN_TOKENIZER_NAME, O200K_CACHE_KEY } from "../tokenizer/builtin_tokenizer.ts";
import type { SeededRandom } from "../base/seeded_random.ts";
import { cleanCorpus, piecePool, type PieceTableData, type TokenPool } from "./corpus_piece_table.ts";

export type { TokenPool };
import { DEFAULT_CORPUS_PIECES } from "./corpus_pieces.ts";
import { DEFAULT_CORPUS } from "./default_corpus.ts";

export interface PromptSynthesizerOptions {
  /** Re-encode/repair rounds per start position. @default 10 */
  readonly maxRepairRounds?: number;
  /** Start positions tried before giving up on an exact length. @default 8 */
  readonly maxAttempts?: number;
  /**
   * Precomputed pieces of the corpus, used when they match the corpus and the tokenizer is the builtin one;
   * `null` always tokenizes. @default DEFAULT_CORPUS_PIECES (the bundled corpus)
   */
  readonly pieceTable?: PieceTableData | null;
}

/** A synthesized prompt and the token count its text actually encodes to. */
export interface SynthesizedPrompt {
  readonly text: string;
  /** `tokenizer.encode(text).length`; equals the request except in the rare case no exact text was found. */
  readonly tokens: number;
}

/** A pool built by tokenizing: the ids, and the tokenizer the slow path re-encodes with. */
interface EncodedPool extends TokenPool {
  readonly ids: readonly number[];
  readonly tokenizer: Tokenizer;
}

export class PromptSynthesizer {
  readonly #tokenizer: LazyTokenizer;
  readonly #text: string;
  /** The pool the fast path reads: the piece table's, or the encoded one once built. */
  #pool: TokenPool | undefined;
  #encoded: Promise<EncodedPool> | undefined;
  readonly #rng: SeededRandom;
  readonly #maxRepairRounds: number;
  readonly #maxAttempts: number;

  /**
   * @param tokenizer Defines "token"; a lazy one is loaded only if a prompt needs the slow path.
   * @param corpus Source text; blank lines are dropped and lines trimmed.
   * @param rng Picks window starts; give the synthesizer its own derived stream.
   * @throws {RangeError} when the corpus has no text.
   */
  constructor(
    tokenizer: Tokenizer | LazyTokenizer,
    corpus: string,
    rng: SeededRandom,
    options: PromptSynthesizerOptions = {},
  ) {
    this.#tokenizer = asLazyTokenizer(tokenizer);
    this.#rng = rng;
    this.#maxRepairRounds = options.maxRepairRounds ?? 10;
    this.#maxAttempts = options.maxAttempts ?? 8;
    this.#text = cleanCorpus(corpus);
    if (this.#text.length === 0) {
      throw new RangeError("The prompt corpus has no tokens; pass a corpus with some text in it");
    }
    const table = options.pieceTable === undefined ? DEFAULT_CORPUS_PIECES : options.pieceTable;
    if (table !== null && this.#tokenizer.name === BUILTIN_TOKENIZER_NAME) {
      // The bundled corpus with its generated table needs no check of its text (corpus_piece_table_test keeps them
      // in step).
      const known = table === DEFAULT_CORPUS_PIECES && corpus === DEFAULT_CORPUS;
      this.#pool = piecePool(table, this.#text, O200K_CACHE_KEY, known);
    }
  }

  /** Whether a prompt needed the tokenizer, i.e. the piece table did not cover every prompt so far. */
  get tokenizerLoaded(): boolean {
    return this.#encoded !== undefined;
  }

  /**
   * A prompt of exactly `n` tokens (see {@linkcode SynthesizedPrompt.tokens} for the achieved length).
   *
   * @throws {RangeError} when `n` is not a positive integer.
   */
  async prompt(n: number): Promise<SynthesizedPrompt> {
    if (!Number.isInteger(n) || n < 1) {
      throw new RangeError(`Prompt length must be a positive integer, got ${n}; use at least 1 token`);
    }
    const pool = this.#pool ?? await this.#encodedPool();
    // Starts are drawn where a window fits without wrapping, so the fast path can find one from any start.
    const range = n <= pool.size ? pool.size - n + 1 : pool.size;
    const first = this.#rng.int(range);
    let best: SynthesizedPrompt | undefined;
    for (let attempt = 0; attempt < this.#maxAttempts; attempt++) {
      const start = (first + attempt * 7919) % range;
      const aligned = alignedWindow(pool, start, n);
      if (aligned !== undefined) return { text: pool.text(aligned, aligned + n), tokens: n };
      const candidate = this.#fromWindow(await this.#encodedPool(), start, n);
      if (candidate.tokens === n) return candidate;
      if (best === undefined || Math.abs(candidate.tokens - n) < Math.abs(best.tokens - n)) best = candidate;
    }
    return best!;
  }

  #encodedPool(): Promise<EncodedPool> {
    this.#encoded ??= this.#tokenizer.load().then((tokenizer) => {
      const text = this.#text;
      const pieces = tokenizer.encodeWithPieceStarts?.(text);
      const ids = pieces?.ids ?? tokenizer.encode(text);
      if (ids.length === 0) throw new RangeError("The prompt corpus has no tokens; pass a corpus with some text in it");
      const pool: EncodedPool = {
        size: ids.length,
        boundary: pieces?.boundary,
        ids,
        tokenizer,
        text: (start, end) => tokenizer.decode(ids.slice(start, end)),
      };
      this.#pool ??= pool;
      return pool;
    });
    return this.#encoded;
  }

  #fromWindow(pool: EncodedPool, start: number, n: number): SynthesizedPrompt {
    const tokenizer = pool.tokenizer;
    let next = start;
    let text = tokenizer.decode(take(pool.ids, next, n));
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
        ids = encoded.concat(take(pool.ids, next, missing));
        next += missing;
      }
      text = tokenizer.decode(ids);
      encoded = tokenizer.encode(text);
    }
    return { text, tokens: encoded.length };
  }
}

/** First start ≥ `start` (within a short scan, no wrap) whose window of `n` tokens begins and ends on boundaries. */
function alignedWindow(pool: TokenPool, start: number, n: number): number | undefined {
  const boundary = pool.boundary;
  if (boundary === undefined) return undefined;
  const last = Math.min(start + ALIGN_SCAN, pool.size - n);
  for (let s = start; s <= last; s++) if (boundary[s] === 1 && boundary[s + n] === 1) return s;
  return undefined;
}

/** `count` pool tokens from `start`, wrapping around the end. */
function take(pool: readonly number[], start: number, count: number): number[] {
  const out = new Array<number>(count);
  let at = start % pool.length;
  for (let i = 0; i < count; i++) {
    out[i] = pool[at];
    if (++at === pool.length) at = 0;
  }
  return out;
}

/** How far past a random start the fast path looks for a boundary-aligned window (most positions are one). */
const ALIGN_SCAN = 256;
