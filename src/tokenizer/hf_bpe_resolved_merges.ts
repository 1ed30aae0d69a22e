/**
 * Merges resolved against the vocabulary's table one at a time as they are read: the byte scanner
 * (hf_bpe_scan.ts) hands each merge to a {@linkcode MergeResolver} while its decoded bytes are still in a small
 * scratch buffer, so a first load never stores ~280k merge strings, their bounds and hashes (tens of MB of fresh
 * memory, each page a fault) only to look them up afterwards. Two resolvers:
 * - {@linkcode SymbolResolver}: both sides and the joined string to symbols, for the full tables (hf_bpe_tables.ts);
 *   the few strings outside the vocabulary are kept, in order, for the build to number as extra symbols;
 * - {@linkcode MergeChainer}: each merge filed under the token it joins into, for a run's quick first load.
 */
import { BpeRanks, hashBytes, NO_RANK } from "./bpe_ranks.ts";
import { type HfBpeMerges, type HfBpeVocab, LEFT_OUTSIDE, MERGE_MISSING, RIGHT_OUTSIDE } from "./hf_bpe_model_data.ts";

/** A merge side or result that is not in the vocabulary, numbered later as an extra symbol (or no symbol). */
export const UNRESOLVED = -2;

/** The vocabulary as a symbol table (a token's symbol is its id); a key listed twice keeps its later id. */
export interface VocabTable {
  readonly symbols: BpeRanks;
  readonly ids: Int32Array;
  /** Largest id in the vocabulary, -1 when empty. */
  readonly maxId: number;
}

export function buildVocabTable(vocab: HfBpeVocab): VocabTable {
  let { bytes, starts, ids } = vocab;
  let count = ids.length;
  let symbols = BpeRanks.fromTokens(bytes, starts, ids, vocab.hashes);
  if (symbols.size < count) {
    // A key listed twice: keep its later id only, as JSON.parse does.
    const keep = new Int32Array(count);
    let kept = 0;
    for (let t = 0; t < count; t++) {
      if (symbols.rankOf(bytes, starts[t], starts[t + 1]) === ids[t]) keep[kept++] = t;
    }
    const keptStarts = new Int32Array(kept + 1);
    const keptIds = new Int32Array(kept);
    const keptBytes = new Uint8Array(bytes.length);
    let at = 0;
    for (let k = 0; k < kept; k++) {
      const t = keep[k];
      keptStarts[k] = at;
      keptBytes.set(bytes.subarray(starts[t], starts[t + 1]), at);
      at += starts[t + 1] - starts[t];
      keptIds[k] = ids[t];
    }
    keptStarts[kept] = at;
    bytes = keptBytes.subarray(0, at);
    starts = keptStarts;
    ids = keptIds;
    count = kept;
    symbols = BpeRanks.fromTokens(bytes, starts, ids);
  }
  let maxId = -1;
  for (let t = 0; t < count; t++) if (ids[t] > maxId) maxId = ids[t];
  return { symbols, ids, maxId };
}

/**
 * Merge `m`'s sides' symbols and the symbol of the two joined: `lefts[m]`, `rights[m]`, `results[m]`; -1 where
 * the merge can never apply (a side outside the alphabet, an entry that names no pair) or the joined bytes are
 * no symbol; {@linkcode UNRESOLVED} where the string is not in the vocabulary. `misses` holds, in merge order,
 * every merge with an unresolved entry (`misses.indexes[k]` is the merge index of its entry `k`).
 */
export interface ResolvedMerges {
  readonly count: number;
  readonly lefts: Int32Array;
  readonly rights: Int32Array;
  readonly results: Int32Array;
  readonly misses: HfBpeMerges & { readonly hashes: Int32Array; readonly indexes: Int32Array };
  /** The table the merges were resolved against. */
  readonly vocab: VocabTable;
}

function grownInt32(a: Int32Array<ArrayBuffer>, need: number): Int32Array<ArrayBuffer> {
  if (need <= a.length) return a;
  const grown = new Int32Array(Math.max(2 * a.length, need));
  grown.set(a);
  return grown;
}

function grownBytes(a: Uint8Array<ArrayBuffer>, need: number): Uint8Array<ArrayBuffer> {
  if (need <= a.length) return a;
  const grown = new Uint8Array(Math.max(2 * a.length, need));
  grown.set(a);
  return grown;
}

/**
 * The vocabulary token a merge's two sides join into, looked up in file order: first as the previous merge's token
 * or the next one (files list merges in the order of the tokens they make, several splits of one token in a row),
 * and only then by a hash probe.
 */
class JoinedTokens {
  readonly #symbols: BpeRanks;
  #last = -1;

  constructor(symbols: BpeRanks) {
    this.#symbols = symbols;
  }

  /** The token that is exactly `bytes[start, end)` (`hash` its `hashBytes`), or `NO_RANK`. */
  find(bytes: Uint8Array, start: number, end: number, hash: number): number {
    const symbols = this.#symbols;
    const last = this.#last;
    const token = symbols.isRankOf(last + 1, bytes, start, end)
      ? last + 1
      : symbols.isRankOf(last, bytes, start, end)
      ? last
      : symbols.rankOfHashed(bytes, start, end, hash);
    if (token !== NO_RANK) this.#last = token;
    return token;
  }
}

/** Takes merges in file order, one {@linkcode MergeResolver.add} each (the scanner's side of both kinds). */
export interface MergeResolver {
  /**
   * The next merge: left side `bytes[start, middle)`, right side `bytes[middle, end)` (`end` is
   * `MERGE_MISSING` for an entry that names no pair), `flag` its outside bits, and the `hashBytes` of the left
   * side, the right side and the two joined.
   */
  add(
    bytes: Uint8Array,
    start: number,
    middle: number,
    end: number,
    flag: number,
    hashLeft: number,
    hashRight: number,
    hashAll: number,
  ): void;
  finish(): ResolvedMerges | ChainedMerges;
}

/** Resolves every merge's sides and result to symbols ({@linkcode ResolvedMerges}), for the full tables. */
export class SymbolResolver implements MergeResolver {
  readonly vocab: VocabTable;
  readonly #symbols: BpeRanks;
  #lefts: Int32Array<ArrayBuffer>;
  #rights: Int32Array<ArrayBuffer>;
  #results: Int32Array<ArrayBuffer>;
  #count = 0;
  #missBytes = new Uint8Array(256);
  #missAt = 0;
  #missBounds = new Int32Array(48);
  #missHashes = new Int32Array(48);
  #missFlags = new Uint8Array(16);
  #missIndexes = new Int32Array(16);
  #missCount = 0;
  readonly #joined: JoinedTokens;

  /** `capacity`: the most merges expected (arrays grow past it; only pages written cost memory). */
  constructor(vocab: VocabTable, capacity = 1 << 16) {
    this.vocab = vocab;
    this.#symbols = vocab.symbols;
    this.#lefts = new Int32Array(capacity);
    this.#rights = new Int32Array(capacity);
    this.#results = new Int32Array(capacity);
    this.#joined = new JoinedTokens(vocab.symbols);
  }

  add(
    bytes: Uint8Array,
    start: number,
    middle: number,
    end: number,
    flag: number,
    hashLeft: number,
    hashRight: number,
    hashAll: number,
  ): void {
    const m = this.#count++;
    if (m === this.#lefts.length) {
      this.#lefts = grownInt32(this.#lefts, m + 1);
      this.#rights = grownInt32(this.#rights, m + 1);
      this.#results = grownInt32(this.#results, m + 1);
    }
    if (end === MERGE_MISSING) {
      this.#lefts[m] = this.#rights[m] = this.#results[m] = -1;
      return;
    }
    const symbols = this.#symbols;
    let left = -1;
    let right = -1;
    if ((flag & LEFT_OUTSIDE) === 0) {
      left = symbols.rankOfHashed(bytes, start, middle, hashLeft);
      if (left === NO_RANK) left = UNRESOLVED;
    }
    if ((flag & RIGHT_OUTSIDE) === 0) {
      right = symbols.rankOfHashed(bytes, middle, end, hashRight);
      if (right === NO_RANK) right = UNRESOLVED;
    }
    let result = -1;
    if (left === UNRESOLVED || right === UNRESOLVED) {
      result = UNRESOLVED;
    } else if (left >= 0 && right >= 0) {
      result = this.#joined.find(bytes, start, end, hashAll);
      if (result === NO_RANK) result = UNRESOLVED;
    }
    this.#lefts[m] = left;
    this.#rights[m] = right;
    this.#results[m] = result;
    if (result === UNRESOLVED) this.#miss(m, bytes, start, middle, end, flag, hashLeft, hashRight, hashAll);
  }
  #miss(
    m: number,
    bytes: Uint8Array,
    start: number,
    middle: number,
    end: number,
    flag: number,
    hashLeft: number,
    hashRight: number,
    hashAll: number,
  ): void {
    const k = this.#missCount++;
    this.#missBounds = grownInt32(this.#missBounds, 3 * k + 3);
    this.#missHashes = grownInt32(this.#missHashes, 3 * k + 3);
    this.#missIndexes = grownInt32(this.#missIndexes, k + 1);
    this.#missFlags = grownBytes(this.#missFlags, k + 1);
    this.#missBytes = grownBytes(this.#missBytes, this.#missAt + end - start);
    const at = this.#missAt;
    this.#missBytes.set(bytes.subarray(start, end), at);
    this.#missAt = at + end - start;
    this.#missBounds[3 * k] = at;
    this.#missBounds[3 * k + 1] = at + middle - start;
    this.#missBounds[3 * k + 2] = at + end - start;
    this.#missHashes[3 * k] = hashLeft;
    this.#missHashes[3 * k + 1] = hashRight;
    this.#missHashes[3 * k + 2] = hashAll;
    this.#missFlags[k] = flag;
    this.#missIndexes[k] = m;
  }

  finish(): ResolvedMerges {
    const n = this.#count;
    const k = this.#missCount;
    return {
      count: n,
      lefts: this.#lefts.subarray(0, n),
      rights: this.#rights.subarray(0, n),
      results: this.#results.subarray(0, n),
      misses: {
        count: k,
        bytes: this.#missBytes.subarray(0, this.#missAt),
        bounds: this.#missBounds.subarray(0, 3 * k),
        flags: this.#missFlags.subarray(0, k),
        hashes: this.#missHashes.subarray(0, 3 * k),
        indexes: this.#missIndexes.subarray(0, k),
      },
      vocab: this.vocab,
    };
  }
}

/** `merges` (read as a whole, e.g. from the parsed document) resolved against `vocab`. */
export function resolveMerges(merges: HfBpeMerges, vocab: VocabTable): ResolvedMerges {
  const resolver = new SymbolResolver(vocab);
  const { bytes, bounds, flags } = merges;
  const hashes = merges.hashes;
  for (let m = 0; m < merges.count; m++) {
    const start = bounds[3 * m], middle = bounds[3 * m + 1], end = bounds[3 * m + 2];
    if (end === MERGE_MISSING) {
      resolver.add(bytes, start, start, MERGE_MISSING, 0, 0, 0, 0);
    } else if (hashes !== undefined) {
      resolver.add(bytes, start, middle, end, flags[m], hashes[3 * m], hashes[3 * m + 1], hashes[3 * m + 2]);
    } else {
      resolver.add(
        bytes,
        start,
        middle,
        end,
        flags[m],
        hashBytes(bytes, start, middle),
        hashBytes(bytes, middle, end),
        hashBytes(bytes, start, end),
      );
    }
  }
  return resolver.finish();
}

/**
 * The merges as a run's first load needs them to start encoding, without the pair table: each merge is filed
 * under the vocabulary token its two sides join into, with where the left side ends, so that a pair of parts
 * (`a`, `b`) is a merge exactly when `a`'s bytes then `b`'s spell a token filed with a split at `a`'s length
 * (merge-list BPE's lookup, resolved as pairs are met; hf_bpe_tokenizer.ts). One lookup per merge (the joined
 * string) instead of three, and a few MB of arrays instead of the pair table.
 *
 * This equals the full tables only when the parts of a word are always vocabulary tokens: every merge joins
 * into a vocabulary token, and every one-byte side is one (files the `tokenizers` library loads always
 * qualify). Otherwise the full tables give such strings symbols of their own, `complete` is false, and the
 * caller builds the full tables.
 * - `head[token]`: the latest merge filed under `token`, -1 none; `next[m]`: the merge filed before `m` under
 *   the same token, -1 none (latest first, so a later duplicate of a pair wins, as in the library);
 * - `split[m]`: the byte length of merge `m`'s left side.
 */
export interface ChainedMerges {
  readonly count: number;
  readonly head: Int32Array;
  readonly next: Int32Array;
  readonly split: Int32Array;
  readonly complete: boolean;
  readonly vocab: VocabTable;
}

/** Files merges as they are read ({@linkcode ChainedMerges}). */
export class MergeChainer implements MergeResolver {
  readonly vocab: VocabTable;
  readonly #head: Int32Array;
  /** 1 where the one-byte string is a vocabulary token. */
  readonly #byteTokens = new Uint8Array(256);
  #next: Int32Array;
  #split: Int32Array;
  #count = 0;
  #complete = true;
  readonly #joined: JoinedTokens;

  /** `capacity`: the most merges expected (arrays grow past it; only pages written cost memory). */
  constructor(vocab: VocabTable, capacity = 1 << 16) {
    this.vocab = vocab;
    this.#head = sharedInt32(vocab.maxId + 1).fill(-1);
    this.#next = sharedInt32(capacity);
    this.#split = sharedInt32(capacity);
    this.#joined = new JoinedTokens(vocab.symbols);
    const one = new Uint8Array(1);
    for (let b = 0; b < 256; b++) {
      one[0] = b;
      this.#byteTokens[b] = vocab.symbols.rankOf(one, 0, 1) === NO_RANK ? 0 : 1;
    }
  }

  add(
    bytes: Uint8Array,
    start: number,
    middle: number,
    end: number,
    flag: number,
    _hashLeft: number,
    _hashRight: number,
    hashAll: number,
  ): void {
    const m = this.#count++;
    if (m === this.#next.length) {
      this.#next = grownShared(this.#next, m + 1);
      this.#split = grownShared(this.#split, m + 1);
    }
    // Entries that name no pair, or a side outside the alphabet, never apply.
    if (end === MERGE_MISSING || flag !== 0 || !this.#complete) return;
    const token = this.#joined.find(bytes, start, end, hashAll);
    if (
      token === NO_RANK || (middle - start === 1 && this.#byteTokens[bytes[start]] === 0) ||
      (end - middle === 1 && this.#byteTokens[bytes[middle]] === 0)
    ) {
      this.#complete = false; // the full tables give this merge a symbol of its own
      return;
    }
    this.#next[m] = this.#head[token];
    this.#split[m] = middle - start;
    this.#head[token] = m;
  }

  finish(): ChainedMerges {
    const n = this.#count;
    const next = this.#next.subarray(0, n);
    const split = this.#split.subarray(0, n);
    return { count: n, head: this.#head, next, split, complete: this.#complete, vocab: this.vocab };
  }
}

/** In shared memory, so that the tables can be handed to another thread as they are. */
function sharedInt32(length: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(length * 4));
}

function grownShared(a: Int32Array, need: number): Int32Array {
  const grown = sharedInt32(Math.max(2 * a.length, need));
  grown.set(a);
  return grown;
}
