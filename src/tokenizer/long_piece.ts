/**
 * Byte-pair merging of very long pieces (a letter or a space repeated for megabytes, a long run of CJK text) in
 * windows, with exactly the result of merging the whole piece at once.
 *
 * Why windows are exact. A BPE merge rule that picks, at every step, the pair of adjacent parts with the lowest
 * priority (leftmost among equals), where a pair's priority depends only on its two parts, has two properties
 * (proved for "original BPE" in GitHub's `bpe` crate README, crates/bpe, "Corollary II" and "III"; the proofs use
 * nothing but that rule, so they hold for tiktoken's rank of the joined bytes and for a `merges` list alike):
 * 1. the parts of the whole piece between two of its part boundaries are the parts of that stretch merged alone;
 * 2. if the parts of text `X` end with a part `P` and the parts of text `Y` begin with the same `P` (same bytes,
 *    at the same place, `X` and `Y` overlapping exactly from `P`'s start), the parts of `X ∪ Y` are those of `X`
 *    up to `P` followed by those of `Y` from `P` on.
 * So the driver merges a window, picks a part `P` near its end (the cut), merges the next window starting at
 * `P`'s start, and keeps going only when that window's first part is `P` again: then everything before `P` is
 * final. When no cut agrees (never seen on real text), the whole piece is merged at once, as before.
 *
 * Cost: each window once (plus a ~3 % overlap), so linear in the piece's length; windows of identical bytes (a
 * repeated character) are merged once and then looked up. The per-window merge stays the caller's heap merge.
 */
import { hashBytes } from "./bpe_ranks.ts";

/** The parts of a stretch: symbols and end offsets, in typed arrays reused from one stretch to the next. */
export class PartList {
  syms = new Int32Array(1024);
  ends = new Int32Array(1024);
  length = 0;

  push(sym: number, end: number): void {
    if (this.length === this.syms.length) this.reserve(2 * this.length);
    this.syms[this.length] = sym;
    this.ends[this.length++] = end;
  }

  /**
   * Makes room for `n` parts in all (keeping those held), at least doubling the room: a long piece's parts are
   * reserved window by window, and growing to the exact size each time copied them all per window.
   */
  reserve(n: number): void {
    if (n <= this.syms.length) return;
    const size = Math.max(n, 2 * this.syms.length);
    const syms = new Int32Array(size);
    const ends = new Int32Array(size);
    syms.set(this.syms.subarray(0, this.length));
    ends.set(this.ends.subarray(0, this.length));
    this.syms = syms;
    this.ends = ends;
  }
}

/** Merges stretches of the caller's piece bytes (absolute offsets), as if each were a whole piece. */
export interface RangeMerger {
  /**
   * Merges `bytes[start, end)` alone; pushes each resulting part's symbol (any number the caller can emit) and its
   * end offset (absolute) to `out` (emptied by the caller), in order.
   */
  mergeRange(start: number, end: number, out: PartList): void;
}

/** Bytes per window. */
export const LONG_PIECE_WINDOW = 4096;
/** The cut is the last part that ends at least this far before the window's end (a quarter of smaller windows). */
const CUT_MARGIN = 96;
/** Cuts tried (from the last one back) before giving up on windows for a piece. */
const CUT_TRIES = 4;
/** Windows remembered by their bytes. */
const MEMO_WINDOWS = 64;

interface MemoEntry {
  readonly bytes: Uint8Array;
  /** The window's parts, ends relative to its start. */
  readonly parts: PartList;
}

/** The windowed merge of one tokenizer's long pieces (its memo of windows lives as long as it does). */
export class LongPieceMerger {
  readonly #merger: RangeMerger;
  readonly #window: number;
  /** Pieces longer than this many bytes are worth merging in windows (twice the window). */
  readonly minBytes: number;
  readonly #margin: number;
  readonly #memo = new Map<number, MemoEntry[]>();
  #memoCount = 0;
  /** The current window's parts and the next one's (swapped when the next agrees), ends relative. */
  #cur = new PartList();
  #next = new PartList();
  /** Final parts, held until the whole piece has agreed (only when they are to be emitted). */
  #committed = new PartList();
  /** Pieces merged in windows, and pieces handed back to be merged whole (for tests and benchmarks). */
  windowed = 0;
  handedBack = 0;

  constructor(merger: RangeMerger, window = LONG_PIECE_WINDOW) {
    this.#merger = merger;
    this.#window = window;
    this.minBytes = 2 * window;
    this.#margin = Math.min(CUT_MARGIN, window >> 2);
  }

  /**
   * The parts of `bytes[0, n)` merged as one piece: calls `emit` (when given) with each part's symbol, in order,
   * and returns how many there are. Returns -1 (having emitted nothing) when no cut agreed; the caller then merges
   * the piece whole.
   */
  merge(bytes: Uint8Array, n: number, emit?: (sym: number) => void): number {
    const w = this.#window;
    // Final parts, held until the whole piece has agreed (4 bytes each: a 64 MiB run of one letter has 8 M).
    const committed = this.#committed;
    committed.length = 0;
    let done = 0;
    let start = 0;
    let cur = this.#parts(bytes, 0, Math.min(n, w), this.#cur);
    for (;;) {
      const end = start + cur.ends[cur.length - 1];
      if (end >= n) {
        if (emit !== undefined) {
          for (let i = 0; i < committed.length; i++) emit(committed.syms[i]);
          for (let i = 0; i < cur.length; i++) emit(cur.syms[i]);
        }
        if (committed.syms.length > BIG_LIST) this.#committed = new PartList();
        this.windowed++;
        return done + cur.length;
      }
      let last = cur.length - 1;
      while (last > 0 && start + cur.ends[last] > end - this.#margin) last--;
      let agreed = false;
      for (let c = last, tries = 0; c >= 1 && tries < CUT_TRIES; c--, tries++) {
        const a = start + cur.ends[c - 1];
        const b = start + cur.ends[c];
        const spare = cur === this.#cur ? this.#next : this.#cur;
        const next = this.#parts(bytes, a, Math.min(n, a + w), spare);
        if (next.ends[0] !== b - a || next.syms[0] !== cur.syms[c]) continue;
        if (emit !== undefined) {
          committed.reserve(committed.length + c);
          committed.syms.set(cur.syms.subarray(0, c), committed.length);
          committed.length += c;
        }
        done += c;
        start = a;
        cur = next;
        agreed = true;
        break;
      }
      if (!agreed) {
        this.handedBack++;
        return -1;
      }
    }
  }

  /**
   * The parts of `bytes[start, end)` merged alone (into `into`, or a remembered list). Windows that repeat a
   * short stretch (a run of one character or of a few) are remembered by their bytes, so the next such window is
   * looked up instead of merged; others are merged each time (remembering them would cost a hash and a copy of
   * every window for nothing).
   */
  #parts(bytes: Uint8Array, start: number, end: number, into: PartList): PartList {
    const periodic = hasShortPeriod(bytes, start, end);
    const hash = periodic ? hashBytes(bytes, start, end) : 0;
    const bucket = periodic ? this.#memo.get(hash) : undefined;
    if (bucket !== undefined) {
      for (const entry of bucket) if (sameBytes(entry.bytes, bytes, start, end)) return entry.parts;
    }
    into.length = 0;
    this.#merger.mergeRange(start, end, into);
    const ends = into.ends;
    for (let i = 0; i < into.length; i++) ends[i] -= start;
    if (!periodic) return into;
    if (this.#memoCount >= MEMO_WINDOWS) {
      this.#memo.clear();
      this.#memoCount = 0;
    }
    const parts = new PartList();
    parts.reserve(into.length);
    parts.syms.set(into.syms.subarray(0, into.length));
    parts.ends.set(into.ends.subarray(0, into.length));
    parts.length = into.length;
    const entry = { bytes: bytes.slice(start, end), parts };
    const list = this.#memo.get(hash);
    if (list !== undefined) list.push(entry);
    else this.#memo.set(hash, [entry]);
    this.#memoCount++;
    return parts;
  }
}

/** Committed-part lists longer than this are given back after their piece. */
const BIG_LIST = 1 << 20;

/** Whether `bytes[start, end)` repeats a stretch of at most {@linkcode MAX_PERIOD} bytes from its start. */
function hasShortPeriod(bytes: Uint8Array, start: number, end: number): boolean {
  for (let p = 1; p <= MAX_PERIOD && start + p < end; p++) {
    let i = start + p;
    while (i < end && bytes[i] === bytes[i - p]) i++;
    if (i === end) return true;
  }
  return false;
}

/** Longest repeated stretch a window is remembered for (a run of "ha", of one CJK character, of "=-"…). */
const MAX_PERIOD = 64;

function sameBytes(a: Uint8Array, b: Uint8Array, start: number, end: number): boolean {
  if (a.length !== end - start) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[start + i]) return false;
  return true;
}
