/**
 * A Hugging Face byte-level BPE tokenizer (Qwen 2/3, Llama 3, GPT-2…) on typed tables ({@linkcode HfBpeTables}),
 * giving the same ids as `@huggingface/tokenizers`' `encode(text, { add_special_tokens: false })`:
 *
 * 1. Added tokens: the raw text is cut at every added token that is not normalized (longest match at each
 *    position, scanning left to right); a token with `lstrip`/`rstrip` trims the whitespace beside it. Each
 *    remaining section is normalized (NFC…) and cut again at the normalized tokens. A section that spells an
 *    added token is that token.
 * 2. Pre-tokenization of each section: the regex's matches, plus (for `Split` with `Isolated`) the text between
 *    them; ByteLevel's `add_prefix_space` puts a space before a section that does not start with one.
 * 3. BPE of each piece's UTF-8 bytes: with `ignore_merges`, a piece that is a token is emitted whole; otherwise
 *    parts start as single bytes and the adjacent pair listed earliest in `merges` is merged (leftmost first on
 *    ties) until no listed pair remains. This is merge-list BPE, not tiktoken's rank-of-concatenation BPE: the
 *    two differ whenever a pair's concatenation is a token but the pair itself is not a listed merge.
 * 4. Parts outside the vocabulary are dropped (these models have no `unk_token`).
 *
 * Pieces' ids are memoized in a bounded Map, as in {@linkcode BpeTokenizer}. A pair's merge comes from the pair
 * table, or with chained merges (a quick first load, hf_bpe_resolved_merges.ts) from the token its two parts'
 * bytes spell and the merges filed under it, remembered in a small direct-mapped cache.
 */
import { BpeRanks, hashBytes, NO_RANK } from "./bpe_ranks.ts";
import { BLANK_PIECE, boundarySafe, markPieceBoundaries, MergeHeap, utf8Length } from "./bpe_tokenizer.ts";
import { LongPieceMerger } from "./long_piece.ts";
import { LongRunFinder, longRunRules } from "./hf_long_runs.ts";
import type { AddedTokenSpec } from "./hf_bpe_spec.ts";
import { type HfBpeTables, pairSlot } from "./hf_bpe_tables.ts";
import type { PieceEncoding, SharedTokenizer, Tokenizer } from "./tokenizer.ts";

/** Pieces whose UTF-8 scratch buffer is sized exactly (and replaced by a small one for the next piece), bytes. */
const BIG_PIECE_BYTES = 1 << 20;
/** Pieces longer than this many bytes are merged with a heap instead of a linear scan. */
const HEAP_MERGE_THRESHOLD = 128;
const MEMO_SIZE = 50_000;
/** Entries of the chained-merges pair cache (4 ints each). */
const PAIR_CACHE_SIZE = 1 << 16;
const MEMO_MAX_PIECE_LENGTH = 256;

interface TrieNode {
  readonly next: Map<number, TrieNode>;
  end: string | undefined;
}

/** `@huggingface/tokenizers`' DictionarySplitter: cuts text at the longest dictionary word at each position. */
class DictionarySplitter {
  readonly #root: TrieNode = { next: new Map(), end: undefined };
  readonly #first = new Uint8Array(65536);
  readonly empty: boolean;

  constructor(words: readonly string[]) {
    for (const word of words) {
      let node = this.#root;
      for (let i = 0; i < word.length; i++) {
        const c = word.charCodeAt(i);
        let child = node.next.get(c);
        if (child === undefined) node.next.set(c, child = { next: new Map(), end: undefined });
        node = child;
      }
      node.end = word;
      if (word.length > 0) this.#first[word.charCodeAt(0)] = 1;
    }
    this.empty = words.every((w) => w.length === 0);
  }

  split(text: string): string[] {
    const n = text.length;
    if (this.empty) return n > 0 ? [text] : [];
    const result: string[] = [];
    const first = this.#first;
    let start = 0;
    let i = 0;
    while (i < n) {
      if (first[text.charCodeAt(i)] === 0) {
        i++;
        continue;
      }
      let node: TrieNode | undefined = this.#root;
      let match: string | undefined;
      for (let j = i; j < n && (node = node.next.get(text.charCodeAt(j))) !== undefined; j++) {
        if (node.end) match = node.end;
      }
      if (match) {
        if (i > start) result.push(text.slice(start, i));
        result.push(match);
        i += match.length;
        start = i;
      } else {
        i++;
      }
    }
    if (start < n) result.push(text.slice(start));
    return result;
  }
}

/** The fast path's {@linkcode Tokenizer.engine}. */
export const FAST_BPE_ENGINE = "infermeter byte-level BPE";

export class HfBpeTokenizer implements Tokenizer {
  readonly name: string;
  readonly engine = FAST_BPE_ENGINE;
  readonly #symbols: BpeRanks;
  readonly #pairs: Int32Array | undefined;
  readonly #pairMask: number;
  readonly #chains: HfBpeTables["chains"];
  /** Chained merges' resolved pairs: `[left + 1, right, rank, merged]` per entry, 0 = empty. */
  readonly #pairCache: Int32Array;
  #join = new Uint8Array(256);
  /** The joined symbol of the pair {@linkcode #pair} last found. */
  #merged = -1;
  readonly #outIds: Int32Array;
  readonly #byteSymbols: Int32Array;
  readonly #regex: RegExp;
  /** Long runs of letters, digits or symbols, pre-tokenized around the pattern (hf_long_runs.ts); undefined for
   * patterns outside the families that rule is proven for. */
  readonly #longRuns: LongRunFinder | undefined;
  readonly #keepGaps: boolean;
  readonly #addPrefixSpace: boolean;
  readonly #ignoreMerges: boolean;
  readonly #normalizer: string | undefined;
  /** Content (and normalized content, for normalized tokens) → token, as the library's `added_tokens_map`. */
  readonly #added = new Map<string, AddedTokenSpec>();
  readonly #addedById = new Map<number, string>();
  readonly #rawSplitter: DictionarySplitter;
  readonly #normalizedSplitter: DictionarySplitter;
  readonly #memo = new Map<string, readonly number[]>();
  readonly #encoder = new TextEncoder();
  #scratch = new Uint8Array(1024);
  #syms = new Int32Array(256);
  #pairRanks = new Int32Array(256);
  #pairMerged = new Int32Array(256);
  #pieceIds: number[] = [];
  /** Long pieces are merged in windows (long_piece.ts). */
  readonly #longPieces = new LongPieceMerger({
    mergeRange: (start, end, out) => {
      const parts: number[] = [];
      const ends: number[] = [];
      this.#heapMerge(start, end, parts, ends);
      for (let i = 0; i < parts.length; i++) out.push(parts[i], ends[i]);
    },
  });

  /** Long pieces merged in windows, and handed back to be merged whole (for tests and benchmarks). */
  get longPieces(): { readonly windowed: number; readonly handedBack: number } {
    return { windowed: this.#longPieces.windowed, handedBack: this.#longPieces.handedBack };
  }

  readonly #tables: HfBpeTables;
  readonly #persist: (() => Promise<void>) | undefined;
  #persisted: Promise<void> | undefined;

  /** `persist`: builds and caches the full tables, for tables that are chained merges (a quick first load). */
  constructor(
    name: string,
    tables: HfBpeTables,
    persist?: () => Promise<void>,
    options: { readonly longRunStride?: number; readonly longRuns?: boolean } = {},
  ) {
    this.name = name;
    this.#tables = tables;
    this.#persist = persist;
    this.#symbols = BpeRanks.fromSnapshot(tables.symbols);
    this.#pairs = tables.pairs;
    this.#pairMask = tables.pairs === undefined ? 0 : tables.pairs.length / 4 - 1;
    this.#chains = tables.chains;
    if (tables.pairs === undefined && tables.chains === undefined) throw new Error("tables without merges");
    this.#pairCache = new Int32Array(tables.pairs === undefined ? 4 * PAIR_CACHE_SIZE : 0);
    this.#outIds = tables.outIds;
    this.#byteSymbols = tables.byteSymbols;
    const meta = tables.meta;
    this.#regex = new RegExp(meta.regexSource, meta.regexFlags.includes("g") ? meta.regexFlags : meta.regexFlags + "g");
    const rules = longRunRules(this.#regex.source, this.#regex.flags);
    this.#longRuns = rules === undefined || options.longRuns === false
      ? undefined
      : new LongRunFinder(rules, options.longRunStride);
    this.#keepGaps = meta.keepGaps;
    this.#addPrefixSpace = meta.addPrefixSpace;
    this.#ignoreMerges = meta.ignoreMerges;
    this.#normalizer = meta.normalizer;
    const raw: string[] = [];
    const normalized: string[] = [];
    for (const t of meta.addedTokens) {
      this.#added.set(t.content, t);
      this.#addedById.set(t.id, t.content);
      if (t.normalized && this.#normalizer !== undefined) {
        const form = t.content.normalize(this.#normalizer);
        normalized.push(form);
        this.#added.set(form, t);
      } else {
        raw.push(t.content);
      }
    }
    this.#rawSplitter = new DictionarySplitter(raw);
    this.#normalizedSplitter = new DictionarySplitter(normalized);
    // Pieces are independent of the text around them only when matching starts fresh at each one (the pattern's
    // test, as for tiktoken files) and no prefix space is added to a text that does not start with one.
    this.encodeWithPieceStarts = boundarySafe(this.#regex.source) && !this.#addPrefixSpace
      ? (text) => this.#encodeWithPieceStarts(text)
      : undefined;
  }

  /** See {@linkcode PieceEncoding}; absent when the pre-tokenizer cannot promise it. */
  readonly encodeWithPieceStarts: ((text: string) => PieceEncoding) | undefined;

  /**
   * Boundaries only for a text that is one section (no added token in it) and already in its normal form: a
   * window of it is then one section too, and (a substring of a normalized text being normalized) pre-tokenized
   * into the same pieces. Any other text gets no boundaries (the caller re-encodes its windows).
   */
  #encodeWithPieceStarts(text: string): PieceEncoding {
    const plain = this.#rawSplitter.split(text).length <= 1 &&
      (this.#normalizer === undefined || text.normalize(this.#normalizer) === text) &&
      this.#normalizedSplitter.split(text).length <= 1 && this.#added.get(text) === undefined;
    if (!plain) {
      const ids = this.encode(text);
      return { ids, boundary: new Uint8Array(ids.length + 1) };
    }
    const ids: number[] = [];
    const pieces = { starts: [] as number[], blank: [] as boolean[], dropped: false };
    this.#preTokenize(text, ids, pieces);
    const boundary = new Uint8Array(ids.length + 1);
    // Characters the pattern dropped would be missing between two pieces of a window: no boundaries then.
    if (pieces.dropped) return { ids, boundary };
    markPieceBoundaries(boundary, pieces.starts, pieces.blank, ids.length);
    return { ids, boundary };
  }

  share(): SharedTokenizer {
    return { kind: "hf-bpe", name: this.name, tables: this.#tables };
  }

  persist(): Promise<void> {
    return this.#persisted ??= this.#persist?.().catch(() => {}) ?? Promise.resolve();
  }

  encode(text: string): number[] {
    const out: number[] = [];
    this.#run(text, out);
    return out;
  }

  count(text: string): number {
    return this.#run(text, undefined);
  }

  decode(ids: readonly number[]): string {
    const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
    const symbols = this.#symbols;
    let text = "";
    let run: number[] = [];
    const flush = () => {
      if (run.length === 0) return;
      let length = 0;
      for (const id of run) length += symbols.tokenLength(id);
      const bytes = new Uint8Array(length);
      let at = 0;
      for (const id of run) at = symbols.copyToken(id, bytes, at);
      text += decoder.decode(bytes);
      run = [];
    };
    for (const id of ids) {
      const added = this.#addedById.get(id);
      if (added !== undefined) {
        flush();
        text += added;
      } else if (symbols.has(id) && this.#outIds[id] === id) {
        run.push(id);
      } else {
        throw new RangeError(`Token id ${id} is not in the ${this.name} vocabulary; pass ids produced by encode()`);
      }
    }
    flush();
    return text;
  }

  /** Number of memoized pieces (for tests and benchmarks). */
  get memoEntries(): number {
    return this.#memo.size;
  }

  #run(text: string, out: number[] | undefined): number {
    if (text.length === 0) return 0;
    const sections = this.#rawSplitter.split(text);
    let count = 0;
    this.#strip(sections);
    for (let i = 0; i < sections.length; i++) {
      const section = sections[i];
      if (section.length === 0) continue;
      const token = this.#added.get(section);
      if (token !== undefined) {
        out?.push(token.id);
        count++;
        continue;
      }
      const normalized = this.#normalizer === undefined ? section : section.normalize(this.#normalizer);
      if (normalized.length === 0) continue;
      const subsections = this.#normalizedSplitter.split(normalized);
      this.#strip(subsections);
      for (const sub of subsections) {
        if (sub.length === 0) continue;
        const subToken = this.#added.get(sub);
        if (subToken !== undefined) {
          out?.push(subToken.id);
          count++;
          continue;
        }
        count += this.#preTokenize(sub, out);
      }
    }
    return count;
  }

  /** The library's lstrip/rstrip: trims the neighbours of sections that are added tokens, in order. */
  #strip(sections: string[]): void {
    if (this.#added.size === 0) return;
    for (let i = 0; i < sections.length; i++) {
      const token = this.#added.get(sections[i]);
      if (token === undefined) continue;
      if (token.lstrip && i > 0) sections[i - 1] = sections[i - 1].trimEnd();
      if (token.rstrip && i < sections.length - 1) sections[i + 1] = sections[i + 1].trimStart();
    }
  }

  /**
   * Appends the pieces' ids to `out` (when given); returns how many. With `pieces` (and `out`), records where each
   * piece's ids begin in `out`, and whether the pattern dropped any character (ByteLevel's own regex drops the
   * text between matches).
   */
  #preTokenize(
    section: string,
    out: number[] | undefined,
    pieces?: { readonly starts: number[]; readonly blank: boolean[]; dropped: boolean },
  ): number {
    try {
      return this.#splitAndEncode(section, out, pieces);
    } catch (error) {
      if (!(error instanceof RangeError) || !/call stack/.test(error.message)) throw error;
      throw new Error(
        `${this.name}: the tokenizer.json pre-tokenizer pattern ran out of stack on a text of ${section.length} ` +
          `characters (a run of millions of characters without spaces), and this pattern is not one whose long ` +
          `runs this build splits without it (GPT-2, Llama 3 and Qwen 2 patterns); count with --tokenizer builtin`,
        { cause: error },
      );
    }
  }

  #splitAndEncode(
    section: string,
    out: number[] | undefined,
    pieces?: { readonly starts: number[]; readonly blank: boolean[]; dropped: boolean },
  ): number {
    const starts = pieces?.starts;
    const blank = pieces?.blank;
    const text = this.#addPrefixSpace && !section.startsWith(" ") ? " " + section : section;
    const regex = this.#regex;
    const keepGaps = this.#keepGaps;
    // Long runs: the pattern runs on the text up to a few characters into the run (`subject`, ending at `edge`),
    // and the match that reaches that edge goes on to the run's end (hf_long_runs.ts says why that is exact).
    const finder = this.#longRuns;
    const runs = finder === undefined ? NO_RUNS : finder.find(text);
    let run = 0;
    let subject = text;
    let edge = -1;
    const nextRun = (from: number) => {
      while (run < runs.length && runs[run] < from) run += 3;
      if (run >= runs.length) {
        subject = text;
        edge = -1;
        return;
      }
      edge = runs[run] + RUN_EDGE;
      if (isHighSurrogate(text.charCodeAt(edge - 1))) edge++;
      subject = text.substring(0, edge);
    };
    if (runs.length > 0) nextRun(0);
    regex.lastIndex = 0;
    let count = 0;
    let prev = 0;
    for (;;) {
      const from = regex.lastIndex;
      const m = regex.exec(subject);
      if (m === null) {
        if (subject === text) break;
        // No match before the edge (the accepted patterns always match): let the pattern see the whole text.
        runs.length = 0;
        nextRun(0);
        regex.lastIndex = from;
        continue;
      }
      const start = m.index;
      let end = start + m[0].length;
      let piece = m[0];
      if (end === edge) {
        const kind = runs[run + 2];
        end = runs[run + 1];
        if (finder!.hasTail(kind)) {
          for (let c = text.charCodeAt(end); c === 0x0a || c === 0x0d; c = text.charCodeAt(++end));
        }
        piece = "";
        regex.lastIndex = end;
        nextRun(end);
      }
      if (prev < start) {
        if (keepGaps) {
          starts?.push(out!.length);
          blank?.push(BLANK_PIECE.test(text.substring(prev, start)));
          count += this.#piece(text, prev, start, out);
        } else if (pieces !== undefined) {
          pieces.dropped = true;
        }
      }
      if (end > start) {
        starts?.push(out!.length);
        blank?.push(piece !== "" && BLANK_PIECE.test(piece));
        count += this.#piece(text, start, end, out);
      } else {
        regex.lastIndex = advance(text, end);
      }
      prev = end;
    }
    if (prev < text.length) {
      if (keepGaps) {
        starts?.push(out!.length);
        blank?.push(BLANK_PIECE.test(text.substring(prev)));
        count += this.#piece(text, prev, text.length, out);
      } else if (pieces !== undefined) {
        pieces.dropped = true;
      }
    }
    return count;
  }

  /** BPE of `text[start, end)`; appends ids to `out` when given; returns how many. */
  #piece(text: string, start: number, end: number, out: number[] | undefined): number {
    const memoize = end - start <= MEMO_MAX_PIECE_LENGTH;
    const key = memoize ? text.substring(start, end) : "";
    let ids = memoize ? this.#memo.get(key) : undefined;
    if (ids === undefined) {
      const fresh = this.#pieceIds;
      fresh.length = 0;
      this.#encodePiece(text, start, end, fresh);
      if (memoize) {
        if (this.#memo.size >= MEMO_SIZE) this.#memo.clear();
        ids = fresh.slice();
        this.#memo.set(key, ids);
      } else {
        ids = fresh;
      }
    }
    if (out !== undefined) { for (let i = 0; i < ids.length; i++) out.push(ids[i]); }
    return ids.length;
  }

  #encodePiece(text: string, start: number, end: number, out: number[]): void {
    let need = (end - start) * 3;
    // A huge piece gets a buffer of its exact size (not three bytes per character), given back after it.
    if (need > BIG_PIECE_BYTES) need = utf8Length(text, start, end);
    else if (this.#scratch.length > BIG_PIECE_BYTES) this.#scratch = new Uint8Array(1024);
    if (need > this.#scratch.length) {
      this.#scratch = new Uint8Array(need > BIG_PIECE_BYTES ? need : Math.max(need, this.#scratch.length * 2));
    }
    const bytes = this.#scratch;
    const n = this.#encoder.encodeInto(text.substring(start, end), bytes).written;
    const outIds = this.#outIds;
    if (this.#ignoreMerges) {
      const whole = this.#symbols.rankOfHashed(bytes, 0, n, hashBytes(bytes, 0, n));
      if (whole !== NO_RANK && outIds[whole] >= 0) {
        out.push(outIds[whole]);
        return;
      }
    }
    if (n > this.#longPieces.minBytes && this.#longPieces.merge(bytes, n, (sym) => this.#emit(sym, out)) >= 0) return;
    if (n > HEAP_MERGE_THRESHOLD) {
      const parts: number[] = [];
      this.#heapMerge(0, n, parts, []);
      for (const sym of parts) this.#emit(sym, out);
    } else this.#linearMerge(n, out);
  }

  /** Rank of the merge of (left, right), or -1 when there is none; sets {@linkcode #merged} to its result. */
  #pair(left: number, right: number): number {
    if (left < 0 || right < 0) return -1;
    const pairs = this.#pairs;
    if (pairs === undefined) return this.#chainedPair(left, right);
    const mask = this.#pairMask;
    let slot = pairSlot(left, right, mask);
    for (;;) {
      const l = pairs[4 * slot];
      if (l === -1) return -1;
      if (l === left && pairs[4 * slot + 1] === right) {
        this.#merged = pairs[4 * slot + 3];
        return pairs[4 * slot + 2];
      }
      slot = (slot + 1) & mask;
    }
  }

  /** {@linkcode #pair} from chained merges: the token the two parts' bytes spell, and its merge split there. */
  #chainedPair(left: number, right: number): number {
    const cache = this.#pairCache;
    const at = 4 * pairSlot(left, right, PAIR_CACHE_SIZE - 1);
    if (cache[at] === left + 1 && cache[at + 1] === right) {
      this.#merged = cache[at + 3];
      return cache[at + 2];
    }
    const symbols = this.#symbols;
    const leftLength = symbols.tokenLength(left);
    const length = leftLength + symbols.tokenLength(right);
    if (this.#join.length < length) this.#join = new Uint8Array(2 * length);
    const join = this.#join;
    symbols.copyToken(right, join, symbols.copyToken(left, join, 0));
    const token = symbols.rankOfHashed(join, 0, length, hashBytes(join, 0, length));
    let rank = -1;
    if (token !== NO_RANK) {
      const { head, next, split } = this.#chains!;
      for (let m = head[token]; m >= 0; m = next[m]) {
        if (split[m] === leftLength) {
          rank = m;
          break;
        }
      }
    }
    cache[at] = left + 1;
    cache[at + 1] = right;
    cache[at + 2] = rank;
    cache[at + 3] = token;
    this.#merged = token;
    return rank;
  }

  #emit(sym: number, out: number[]): void {
    if (sym < 0) return;
    const id = this.#outIds[sym];
    if (id >= 0) out.push(id);
  }

  /** Merge-list BPE of the scratch bytes `[0, n)` by repeated scans (short pieces). */
  #linearMerge(n: number, out: number[]): void {
    if (this.#syms.length < n) {
      this.#syms = new Int32Array(2 * n);
      this.#pairRanks = new Int32Array(2 * n);
      this.#pairMerged = new Int32Array(2 * n);
    }
    const bytes = this.#scratch;
    const syms = this.#syms;
    const ranks = this.#pairRanks; // merge rank of parts k and k+1, or -1
    const merged = this.#pairMerged; // and the symbol they merge into
    for (let k = 0; k < n; k++) syms[k] = this.#byteSymbols[bytes[k]];
    for (let k = 0; k < n - 1; k++) {
      ranks[k] = this.#pair(syms[k], syms[k + 1]);
      merged[k] = this.#merged;
    }
    let m = n;
    while (m > 1) {
      let best = -1;
      let bestRank = 0x7fffffff;
      for (let k = 0; k < m - 1; k++) {
        const r = ranks[k];
        if (r >= 0 && r < bestRank) {
          bestRank = r;
          best = k;
        }
      }
      if (best < 0) break;
      syms[best] = merged[best];
      for (let k = best + 1; k < m - 1; k++) syms[k] = syms[k + 1];
      for (let k = best + 1; k < m - 2; k++) {
        ranks[k] = ranks[k + 1];
        merged[k] = merged[k + 1];
      }
      m--;
      if (best + 1 < m) {
        ranks[best] = this.#pair(syms[best], syms[best + 1]);
        merged[best] = this.#merged;
      } else {
        ranks[best] = -1;
      }
      if (best > 0) {
        ranks[best - 1] = this.#pair(syms[best - 1], syms[best]);
        merged[best - 1] = this.#merged;
      }
    }
    for (let k = 0; k < m; k++) this.#emit(syms[k], out);
  }

  /**
   * The same merge order as {@linkcode #linearMerge}, driven by a min-heap keyed by (rank, start), over the scratch
   * bytes `[start, end)` alone: appends each part's symbol to `parts` and its end (absolute) to `ends`.
   */
  #heapMerge(start: number, end: number, parts: number[], ends: number[]): void {
    const bytes = this.#scratch;
    const n = end - start;
    const syms = new Int32Array(n);
    const next = new Int32Array(n);
    const prev = new Int32Array(n);
    const alive = new Uint8Array(n);
    const version = new Int32Array(n);
    for (let k = 0; k < n; k++) {
      syms[k] = this.#byteSymbols[bytes[start + k]];
      next[k] = k + 1;
      prev[k] = k - 1;
      alive[k] = 1;
    }
    const heap = new MergeHeap(n);
    for (let k = 0; k < n - 1; k++) {
      const r = this.#pair(syms[k], syms[k + 1]);
      if (r >= 0) heap.push(r, k, 0);
    }
    while (heap.size > 0) {
      heap.pop();
      const k = heap.poppedStart;
      if (alive[k] === 0 || version[k] !== heap.poppedVersion) continue;
      const j = next[k];
      this.#pair(syms[k], syms[j]);
      syms[k] = this.#merged;
      alive[j] = 0;
      const after = next[j];
      next[k] = after;
      if (after < n) prev[after] = k;
      version[k]++;
      if (after < n) {
        const r = this.#pair(syms[k], syms[after]);
        if (r >= 0) heap.push(r, k, version[k]);
      }
      const p = prev[k];
      if (p >= 0) {
        version[p]++;
        const r = this.#pair(syms[p], syms[k]);
        if (r >= 0) heap.push(r, p, version[p]);
      }
    }
    for (let k = 0; k < n; k = next[k]) {
      parts.push(syms[k]);
      ends.push(start + next[k]);
    }
  }
}

/** Characters of a long run the pattern reads before its match is taken on to the run's end (at least three). */
const RUN_EDGE = 4;
const NO_RUNS: number[] = [];

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

/** The index after the code point at `i` (RegExp's AdvanceStringIndex in Unicode mode). */
function advance(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && i + 1 < text.length ? i + 2 : i + 1;
}
