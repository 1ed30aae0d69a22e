/**
 * A tiktoken-compatible byte-pair-encoding tokenizer over a {@linkcode BpeRanks} table.
 *
 * Algorithm (the same as tiktoken's core, so ids match token for token):
 * 1. Pre-tokenize: split the text into pieces with the encoding's `pat_str` regex (Unicode mode; matching is
 *    done on the whole text so lookaheads see what follows a piece).
 * 2. UTF-8 encode the piece into a reused scratch buffer (ASCII written directly, otherwise `encodeInto`).
 * 3. If the whole piece is a token, emit it (most English words are).
 * 4. Otherwise repeatedly merge the adjacent pair of parts whose concatenation has the lowest rank (leftmost on
 *    ties) until no pair is a token; emit the parts' ranks. Short pieces use a linear scan (O(n²) with tiny n,
 *    like tiktoken); longer pieces (runs of letters, spaces or symbols) use a binary heap with lazy invalidation
 *    (O(n log n)), so a pathological input cannot stall the counter.
 *
 * Multi-token pieces are memoized (piece text → ids) in a bounded `Map` that is cleared when full, so repeated
 * words cost one regex step and one map lookup. Special tokens are never produced: `<|endoftext|>` in the input
 * is ordinary text.
 */
import type { PieceEncoding, Tokenizer } from "./tokenizer.ts";
import { BPE_HASH_PRIME, BPE_HASH_SEED, type BpeRanks, finishHash, hashBytes, NO_RANK } from "./bpe_ranks.ts";
import { LONG_PIECE_WINDOW, LongPieceMerger, PartList } from "./long_piece.ts";
import { BacktrackMerger } from "./bpe_backtrack.ts";
import { LETTER_RUN, LETTER_RUN_BOTH, LongRunScanner, O200K_PATTERN, RUN_SAMPLE_STRIDE } from "./long_run_scanner.ts";

/** Default for {@linkcode BpeTokenizerOptions.heapMergeThreshold}. */
export const HEAP_MERGE_THRESHOLD = 128;

export interface BpeTokenizerOptions {
  /** Reported as {@linkcode Tokenizer.name}. */
  readonly name: string;
  /** Token bytes ↔ ranks. */
  readonly ranks: BpeRanks;
  /** Pre-tokenizer regex source (tiktoken `pat_str`), compiled with Unicode semantics. */
  readonly pattern: string;
  /** Special tokens (text → id); used only so that `decode()` can render their ids. @default {} */
  readonly specialTokens?: Readonly<Record<string, number>>;
  /** Memo capacity in pieces; the memo is cleared when it reaches this size. 0 disables it. @default 50_000 */
  readonly memoSize?: number;
  /** Pieces longer than this (UTF-16 code units) are not memoized. @default 256 */
  readonly memoMaxPieceLength?: number;
  /** Pieces longer than this many bytes are merged with a heap instead of a linear scan. @default 128 */
  readonly heapMergeThreshold?: number;
  /**
   * Pieces longer than twice this many bytes are merged in windows of this size (long_piece.ts; the same result).
   * 0 merges every piece whole. @default LONG_PIECE_WINDOW
   */
  readonly longPieceWindow?: number;
  /**
   * Merge pieces longer than `heapMergeThreshold` with the linear search of bpe_backtrack.ts (the same result;
   * its tables are built on the first piece over 1 KB). false keeps the heap merge for them. @default true
   */
  readonly backtrack?: boolean;
  /**
   * Where the pattern is o200k_base's, the pieces of runs of letters or symbols at least this long (UTF-16 units;
   * every run twice as long) are found without the pattern (long_run_scanner.ts; the same pieces). 0 always uses
   * the pattern. @default RUN_SAMPLE_STRIDE
   */
  readonly longRunStride?: number;
}

type MemoEntry = readonly number[];

export class BpeTokenizer implements Tokenizer {
  readonly name: string;
  readonly #ranks: BpeRanks;
  /** Sticky: a match must start exactly where the previous one ended (tiktoken's pieces are contiguous). */
  readonly #sticky: RegExp;
  /** Global twin, used only to skip characters the pattern cannot match (tiktoken drops them). */
  readonly #search: RegExp;
  readonly #specialBytes: Map<number, Uint8Array>;
  readonly #memo = new Map<string, MemoEntry>();
  readonly #memoSize: number;
  readonly #memoMaxPieceLength: number;
  readonly #heapMergeThreshold: number;
  readonly #encoder = new TextEncoder();
  readonly #decoder = new TextDecoder("utf-8");
  #scratch = new Uint8Array(1024);
  #parts = new Int32Array(256);
  #pairRanks = new Int32Array(256);
  #pieceIds: number[] = [];
  /** Hash of the bytes last written by {@linkcode #utf8} (computed while writing them). */
  #hash = 0;
  /** Long pieces are merged in windows (long_piece.ts); undefined when disabled. */
  readonly #longPieces: LongPieceMerger | undefined;
  readonly #useBacktrack: boolean;
  #backtrack: BacktrackMerger | undefined;
  readonly #midParts = new PartList();
  /** Pieces in long runs found without the pattern (long_run_scanner.ts); undefined for other patterns. */
  readonly #runs: LongRunScanner | undefined;
  readonly #runStride: number;

  constructor(options: BpeTokenizerOptions) {
    this.name = options.name;
    this.#ranks = options.ranks;
    this.#sticky = new RegExp(options.pattern, "uy");
    this.#search = new RegExp(options.pattern, "gu");
    const stride = options.longRunStride ?? RUN_SAMPLE_STRIDE;
    this.#runs = options.pattern === O200K_PATTERN && stride > 0 ? new LongRunScanner(stride) : undefined;
    this.#runStride = stride;
    this.#memoSize = options.memoSize ?? 50_000;
    this.#memoMaxPieceLength = options.memoMaxPieceLength ?? 256;
    this.#heapMergeThreshold = options.heapMergeThreshold ?? HEAP_MERGE_THRESHOLD;
    const window = options.longPieceWindow ?? LONG_PIECE_WINDOW;
    this.#useBacktrack = options.backtrack ?? true;
    this.#longPieces = window > 0
      ? new LongPieceMerger(
        { mergeRange: (start, end, parts) => this.#windowMerge(start, end, parts) },
        window,
      )
      : undefined;
    this.encodeWithPieceStarts = boundarySafe(options.pattern)
      ? (text) => this.#encodeWithPieceStarts(text)
      : undefined;
    this.#specialBytes = new Map();
    for (const [text, id] of Object.entries(options.specialTokens ?? {})) {
      this.#specialBytes.set(id, this.#encoder.encode(text));
    }
  }

  encode(text: string): number[] {
    const out: number[] = [];
    this.#run(text, out);
    return out;
  }

  /** See {@linkcode PieceEncoding}; undefined-valued (absent) when the pattern cannot promise it. */
  readonly encodeWithPieceStarts: ((text: string) => PieceEncoding) | undefined;

  #encodeWithPieceStarts(text: string): PieceEncoding {
    const ids: number[] = [];
    const starts: number[] = [];
    const blank: boolean[] = [];
    this.#run(text, ids, starts, blank);
    const boundary = new Uint8Array(ids.length + 1);
    // Characters the pattern dropped would be missing between two pieces of a window, and the pieces around
    // the gap could then merge differently: offer no boundaries at all for such a text (never with o200k).
    if (this.#droppedAny) return { ids, boundary };
    markPieceBoundaries(boundary, starts, blank, ids.length);
    if (!this.#endedOnPiece) boundary[ids.length] = 0;
    return { ids, boundary };
  }

  count(text: string): number {
    return this.#run(text, undefined);
  }

  decode(ids: readonly number[]): string {
    const ranks = this.#ranks;
    let length = 0;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (ranks.has(id)) length += ranks.tokenLength(id);
      else {
        const special = this.#specialBytes.get(id);
        if (special === undefined) {
          throw new RangeError(`Token id ${id} is not in the ${this.name} vocabulary; pass ids produced by encode()`);
        }
        length += special.length;
      }
    }
    const bytes = new Uint8Array(length);
    let at = 0;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (ranks.has(id)) at = ranks.copyToken(id, bytes, at);
      else {
        const special = this.#specialBytes.get(id)!;
        bytes.set(special, at);
        at += special.length;
      }
    }
    return this.#decoder.decode(bytes);
  }

  /** Long pieces merged in windows, and handed back to be merged whole (for tests and benchmarks). */
  get longPieces(): { readonly windowed: number; readonly handedBack: number } {
    return { windowed: this.#longPieces?.windowed ?? 0, handedBack: this.#longPieces?.handedBack ?? 0 };
  }

  /** Number of memoized pieces (for tests and benchmarks). */
  get memoEntries(): number {
    return this.#memo.size;
  }

  /** Whether the last #run's final piece ended exactly at the end of its text (nothing dropped after it). */
  #endedOnPiece = false;
  /** Whether the last #run dropped characters the pattern did not match. */
  #droppedAny = false;

  /**
   * Tokenize `text`; appends ids to `out` when given; returns the token count. With `starts`, records the index
   * of the first token of every piece that begins where the previous one ended (see PieceEncoding).
   */
  #run(text: string, out: number[] | undefined, starts?: number[], blank?: boolean[]): number {
    const sticky = this.#sticky;
    const ranks = this.#ranks;
    const memo = this.#memo;
    const length = text.length;
    let count = 0;
    let pos = 0;
    /** Whether `pos` is where the previous piece ended (nothing skipped since). */
    let contiguous = true;
    let dropped = false;
    // Long runs of letters or symbols, as [start, end, kind] triples; the pieces from just before one to its end
    // are found by the scanner (the pattern's cost there grows with the run, and fails past a few million).
    const scanner = this.#runs;
    // Only in a string with characters past U+00FF: for one-byte strings V8 compiles the classes into simple
    // loops that are fast and keep no stack per character (and the test answers at once).
    const runs = scanner !== undefined && length >= 2 * this.#runStride && TWO_BYTE.test(text)
      ? scanner.findRuns(text)
      : NO_RUNS;
    let run = 0;
    // The character before a run (two code units if astral) may be the prefix of its first piece.
    let watch = runs.length > 0 ? runs[0] - 2 : length;
    while (pos < length) {
      let end = -1;
      if (pos >= watch) {
        while (run < runs.length && pos >= runs[run + 1]) run += 3;
        if (run >= runs.length) watch = length;
        else if (pos < runs[run] - 2) watch = runs[run] - 2;
        else {
          const kind = runs[run + 2];
          end = kind === LETTER_RUN
            ? scanner!.letterPiece(text, pos)
            : kind === LETTER_RUN_BOTH
            ? scanner!.bothPiece(text, pos, runs[run], runs[run + 1])
            : scanner!.symbolPiece(text, pos, runs[run + 1]);
        }
      }
      if (end < 0) {
        sticky.lastIndex = pos;
        if (!sticky.test(text)) {
          contiguous = false;
          dropped = true;
          // Nothing matches here: skip to the next match, dropping the unmatched characters like tiktoken.
          const search = this.#search;
          search.lastIndex = pos;
          const next = search.exec(text);
          if (next === null) break;
          pos = next.index;
          continue;
        }
        end = sticky.lastIndex;
      }
      if (end === pos) {
        // An empty match encodes to nothing; step over one code point.
        contiguous = false;
        dropped = true;
        const c = text.charCodeAt(pos);
        pos += c >= 0xd800 && c <= 0xdbff && pos + 1 < length ? 2 : 1;
        continue;
      }
      if (starts !== undefined && contiguous) {
        starts.push(count);
        blank?.push(BLANK_PIECE.test(text.substring(pos, end)));
      }
      contiguous = true;
      // A piece longer (in UTF-16 units, so at least as long in bytes) than the longest token is not one.
      const long = end - pos > 256 && end - pos > this.#maxTokenBytes();
      const byteLength = long ? this.#utf8Long(text, pos, end) : this.#utf8(text, pos, end);
      const whole = long ? NO_RANK : ranks.rankOfHashed(this.#scratch, 0, byteLength, this.#hash);
      if (whole !== NO_RANK) {
        if (out !== undefined) out.push(whole);
        count++;
        pos = end;
        continue;
      }
      const memoize = this.#memoSize > 0 && end - pos <= this.#memoMaxPieceLength;
      if (!memoize) {
        // A long piece: its ids go straight to the output (or are only counted).
        count += this.#merge(byteLength, out);
        pos = end;
        continue;
      }
      const piece = text.substring(pos, end);
      let ids = memo.get(piece);
      if (ids === undefined) {
        const fresh = this.#pieceIds;
        fresh.length = 0;
        this.#merge(byteLength, fresh);
        if (memo.size >= this.#memoSize) memo.clear();
        ids = fresh.slice();
        memo.set(piece, ids);
      }
      if (out !== undefined) { for (let i = 0; i < ids.length; i++) out.push(ids[i]); }
      count += ids.length;
      pos = end;
    }
    this.#endedOnPiece = contiguous && pos === length;
    this.#droppedAny = dropped;
    if (this.#scratch.length > BIG_PIECE_BYTES) this.#scratch = new Uint8Array(1024);
    return count;
  }

  /** Bytes of the vocabulary's longest token (counted on first use: most texts never need it). */
  #maxTokenBytes(): number {
    if (this.#longestToken < 0) {
      const ranks = this.#ranks;
      let longest = 0;
      for (let r = 0; r <= ranks.maxRank; r++) {
        if (ranks.has(r) && ranks.tokenLength(r) > longest) longest = ranks.tokenLength(r);
      }
      this.#longestToken = longest;
    }
    return this.#longestToken;
  }

  #longestToken = -1;

  /** UTF-8 encode `text[start, end)` into the scratch buffer (no hash: a long piece is never a whole token). */
  #utf8Long(text: string, start: number, end: number): number {
    let need = (end - start) * 3;
    // Up to a few million characters, three bytes each is room enough without counting them (a pass as long as
    // the encoding); beyond, the buffer gets the exact size.
    if (need > HUGE_PIECE_BYTES) need = utf8Length(text, start, end);
    if (need > this.#scratch.length) {
      this.#scratch = new Uint8Array(need > BIG_PIECE_BYTES ? need : Math.max(need, this.#scratch.length * 2));
    }
    return this.#encoder.encodeInto(text.substring(start, end), this.#scratch).written;
  }

  /**
   * UTF-8 encode `text[start, end)` into the scratch buffer and hash it (into `#hash`); returns the byte length.
   * ASCII is written and hashed in one pass; anything else goes through `encodeInto`.
   */
  #utf8(text: string, start: number, end: number): number {
    let need = (end - start) * 3;
    // A huge piece gets a buffer of its exact size (not three bytes per character), given back after it.
    if (need > BIG_PIECE_BYTES) need = utf8Length(text, start, end);
    else if (this.#scratch.length > BIG_PIECE_BYTES) this.#scratch = new Uint8Array(1024);
    if (need > this.#scratch.length) {
      this.#scratch = new Uint8Array(need > BIG_PIECE_BYTES ? need : Math.max(need, this.#scratch.length * 2));
    }
    const scratch = this.#scratch;
    let n = 0;
    let h = BPE_HASH_SEED;
    for (let i = start; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0x80) {
        n = this.#encoder.encodeInto(text.substring(start, end), scratch).written;
        this.#hash = hashBytes(scratch, 0, n);
        return n;
      }
      scratch[n++] = c;
      h = Math.imul(h ^ c, BPE_HASH_PRIME);
    }
    this.#hash = finishHash(h);
    return n;
  }

  /** Byte-pair merge of the scratch bytes `[0, n)`; appends the resulting ranks to `out` (when given), returns their count. */
  #merge(n: number, out: number[] | undefined): number {
    const long = this.#longPieces;
    if (long !== undefined && n > long.minBytes) {
      const count = long.merge(this.#scratch, n, out === undefined ? undefined : (rank) => out.push(rank));
      if (count >= 0) return count;
    }
    if (n > this.#heapMergeThreshold) {
      // The linear search once its tables exist (or for a piece worth building them for), else the heap.
      if (this.#useBacktrack && (this.#backtrack !== undefined || n > BUILD_BACKTRACK_BYTES)) {
        this.#backtrack ??= new BacktrackMerger(this.#ranks);
        const parts = this.#midParts;
        parts.length = 0;
        if (this.#backtrack.mergeRange(this.#scratch, 0, n, parts)) {
          if (out !== undefined) { for (let i = 0; i < parts.length; i++) out.push(parts.syms[i]); }
          return parts.length;
        }
      }
      const ranks: number[] = [];
      this.#heapMerge(0, n, ranks, []);
      if (out !== undefined) { for (let i = 0; i < ranks.length; i++) out.push(ranks[i]); }
      return ranks.length;
    }
    const bytes = this.#scratch;
    const ranks = this.#ranks;
    if (this.#parts.length < n + 1) {
      this.#parts = new Int32Array(2 * (n + 1));
      this.#pairRanks = new Int32Array(2 * (n + 1));
    }
    // parts[k] = start of part k (parts[m] = n); pairRanks[k] = rank of parts k and k+1 joined, or NO_RANK.
    const parts = this.#parts;
    const pairRanks = this.#pairRanks;
    for (let k = 0; k <= n; k++) parts[k] = k;
    for (let k = 0; k < n - 1; k++) pairRanks[k] = ranks.rankOf(bytes, k, k + 2);
    let m = n;
    while (m > 1) {
      let best = -1;
      let bestRank = 0x7fffffff;
      for (let k = 0; k < m - 1; k++) {
        const r = pairRanks[k];
        if (r !== NO_RANK && r < bestRank) {
          bestRank = r;
          best = k;
        }
      }
      if (best < 0) break;
      // Merge parts best and best+1: drop boundary best+1.
      for (let k = best + 1; k < m; k++) parts[k] = parts[k + 1];
      for (let k = best + 1; k < m - 2; k++) pairRanks[k] = pairRanks[k + 1];
      m--;
      pairRanks[best] = best + 1 < m ? ranks.rankOf(bytes, parts[best], parts[best + 2]) : NO_RANK;
      if (best > 0) pairRanks[best - 1] = ranks.rankOf(bytes, parts[best - 1], parts[best + 1]);
    }
    for (let k = 0; k < m; k++) {
      const rank = this.#partRank(parts[k], parts[k + 1]);
      if (out !== undefined) out.push(rank);
    }
    return m;
  }

  /** A long piece's window: the linear search when enabled (and it finds the answer), else the heap merge. */
  #windowMerge(start: number, end: number, out: PartList): void {
    if (this.#useBacktrack) {
      this.#backtrack ??= new BacktrackMerger(this.#ranks);
      if (this.#backtrack.mergeRange(this.#scratch, start, end, out)) return;
    }
    const ranks: number[] = [];
    const ends: number[] = [];
    this.#heapMerge(start, end, ranks, ends);
    for (let i = 0; i < ranks.length; i++) out.push(ranks[i], ends[i]);
  }

  /**
   * The same merge order as {@linkcode #merge}, driven by a min-heap keyed by (rank, start), over the scratch bytes
   * `[start, end)` alone: appends each part's rank to `ranks` and its end (absolute) to `ends`.
   */
  #heapMerge(start: number, end: number, ranks: number[], ends: number[]): void {
    const bytes = this.#scratch;
    const table = this.#ranks;
    const n = end - start;
    // Parts are named by their start byte (relative); next[k] = start of the following part (n at the end).
    const next = new Int32Array(n);
    const prev = new Int32Array(n);
    const alive = new Uint8Array(n);
    const version = new Int32Array(n);
    for (let k = 0; k < n; k++) {
      next[k] = k + 1;
      prev[k] = k - 1;
      alive[k] = 1;
    }
    const heap = new MergeHeap(n);
    for (let k = 0; k < n - 1; k++) {
      const r = table.rankOf(bytes, start + k, start + k + 2);
      if (r !== NO_RANK) heap.push(r, k, 0);
    }
    while (heap.size > 0) {
      heap.pop();
      const k = heap.poppedStart;
      if (alive[k] === 0 || version[k] !== heap.poppedVersion) continue;
      // Merge part k with its successor j.
      const j = next[k];
      alive[j] = 0;
      const after = next[j];
      next[k] = after;
      if (after < n) prev[after] = k;
      version[k]++;
      if (after < n) {
        const r = table.rankOf(bytes, start + k, start + next[after]);
        if (r !== NO_RANK) heap.push(r, k, version[k]);
      }
      const p = prev[k];
      if (p >= 0) {
        version[p]++;
        const r = table.rankOf(bytes, start + p, start + after);
        if (r !== NO_RANK) heap.push(r, p, version[p]);
      }
    }
    for (let k = 0; k < n; k = next[k]) {
      ranks.push(this.#partRank(start + k, start + next[k]));
      ends.push(start + next[k]);
    }
  }

  #partRank(start: number, end: number): number {
    const r = this.#ranks.rankOf(this.#scratch, start, end);
    if (r === NO_RANK) {
      // Only possible with a vocabulary that lacks some single bytes (never for tiktoken encodings).
      throw new RangeError(
        `The ${this.name} vocabulary has no token for a ${end - start}-byte piece; use a byte-complete vocabulary`,
      );
    }
    return r;
  }
}

/** A piece longer than this many bytes (merged alone) builds the linear search's tables (~10 ms) if need be. */
const BUILD_BACKTRACK_BYTES = 1024;

const NO_RUNS: readonly number[] = [];
/** A character that a one-byte (Latin-1) string cannot hold. */
const TWO_BYTE = /[\u0100-\uffff]/;

/** Pieces whose UTF-8 scratch buffer is sized exactly and given back afterwards, bytes. */
const BIG_PIECE_BYTES = 1 << 20;
/** Pieces that may need more than this many bytes get a buffer of their exact UTF-8 length. */
const HUGE_PIECE_BYTES = 16 << 20;

/** Bytes of `text[start, end)` in UTF-8 (a lone surrogate takes three, as `TextEncoder` writes U+FFFD). */
export function utf8Length(text: string, start: number, end: number): number {
  let n = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n++;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < end) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/** Binary min-heap of merge candidates ordered by (rank, start), in typed arrays. */
export class MergeHeap {
  size = 0;
  poppedStart = 0;
  poppedVersion = 0;
  #keys: Float64Array;
  #versions: Int32Array;
  readonly #n: number;

  constructor(n: number) {
    this.#n = n;
    this.#keys = new Float64Array(Math.max(16, 2 * n));
    this.#versions = new Int32Array(Math.max(16, 2 * n));
  }

  push(rank: number, start: number, version: number): void {
    if (this.size === this.#keys.length) {
      const keys = new Float64Array(this.#keys.length * 2);
      keys.set(this.#keys);
      this.#keys = keys;
      const versions = new Int32Array(this.#versions.length * 2);
      versions.set(this.#versions);
      this.#versions = versions;
    }
    const keys = this.#keys;
    const versions = this.#versions;
    const key = rank * this.#n + start;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (keys[parent] <= key) break;
      keys[i] = keys[parent];
      versions[i] = versions[parent];
      i = parent;
    }
    keys[i] = key;
    versions[i] = version;
  }

  /** Remove the minimum; its start and version land in `poppedStart` / `poppedVersion`. */
  pop(): void {
    const keys = this.#keys;
    const versions = this.#versions;
    const top = keys[0];
    this.poppedStart = top % this.#n;
    this.poppedVersion = versions[0];
    const last = --this.size;
    if (last === 0) return;
    const key = keys[last];
    const version = versions[last];
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= last) break;
      if (child + 1 < last && keys[child + 1] < keys[child]) child++;
      if (keys[child] >= key) break;
      keys[i] = keys[child];
      versions[i] = versions[child];
      i = child;
    }
    keys[i] = key;
    versions[i] = version;
  }
}

/** A piece of whitespace only (`\s`, or `\p{White_Space}` as translated Hugging Face patterns write it). */
export const BLANK_PIECE = /^[\s\p{White_Space}]+$/u;

/**
 * Marks in `boundary` the start of each piece (`starts[k]`, its first token) and the end of the last (`end`),
 * except after a whitespace piece that follows another: `\s+(?!\S)` leaves the last character of a run to the
 * piece after it, and at the end of a window the run would be one piece again.
 */
export function markPieceBoundaries(
  boundary: Uint8Array,
  starts: readonly number[],
  blank: readonly boolean[],
  end: number,
): void {
  if (starts.length > 0) boundary[starts[0]] = 1;
  for (let k = 0; k < starts.length; k++) {
    const pieceEnd = k + 1 < starts.length ? starts[k + 1] : end;
    boundary[pieceEnd] = k > 0 && blank[k] && blank[k - 1] ? 0 : 1;
  }
}

/**
 * Whether piece boundaries of `pattern` are context-free (see PieceEncoding): no `^`/`$` anchors outside
 * character classes, no word boundaries, no lookbehind, no backreferences, and no lookahead but `(?!\S)` (or
 * `(?!\P{White_Space})`).
 */
export function boundarySafe(pattern: string): boolean {
  const p = pattern
    .replaceAll("(?!\\S)", "")
    .replaceAll("(?!\\P{White_Space})", "") // the same, as Hugging Face patterns are translated
    // Escapes: word boundaries and backreferences are unsafe ("!" stands for them), the rest are plain text.
    .replace(/\\./g, (m) => (m === "\\b" || m === "\\B" || /\\[1-9k]/.test(m) ? "!" : "_"))
    .replace(/\[\^/g, "[");
  return !/[\^$!]/.test(p.replace(/\(\?<?[=!]/g, "!"));
}
