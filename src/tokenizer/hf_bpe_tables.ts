/**
 * The tables {@linkcode HfBpeTokenizer} runs on, built from a byte-level BPE `tokenizer.json` ({@linkcode HfBpeSpec}).
 *
 * Symbols: every string the BPE model can hold as one part of a word, as raw bytes (the byte-level alphabet
 * undone: `Ġ` → 0x20…): the vocabulary's tokens under their own ids, then merge sides and added tokens that are
 * not in the vocabulary under fresh ids above every real one. Merging then works on symbol ids only:
 * - `pairs`: open addressing, 4 ints a slot `[left, right, rank, merged]` (left = -1: empty); `rank` is the
 *   merge's index in `merges` (a later duplicate wins, as `@huggingface/tokenizers` builds its Map), `merged` is
 *   the symbol of the two sides' bytes joined, or -1 when that string is no symbol (it then cannot merge again,
 *   and is dropped from the output as a string outside the vocabulary is when there is no `unk_token`);
 * - `outIds[symbol]`: the id emitted for a final part — its vocabulary id, or an added token's id where the
 *   added token spells the same bytes (added tokens win, as in `@huggingface/tokenizers`), or -1 (dropped);
 * - `byteSymbols[b]`: the symbol of the one-byte string `b`, -1 if none.
 *
 * A run's first load of a file builds `chains` instead of `pairs` ({@linkcode ChainedMerges}: merges filed under
 * the token they join into, pairs resolved as they are met), which encodes the same and costs a fraction to
 * build; only full tables are cached.
 *
 * Strings with characters outside the byte-level alphabet can never be produced from text and are left out.
 */
import { type BpeRanksSnapshot, hashBytes, NO_RANK } from "./bpe_ranks.ts";
import type { AddedTokenSpec, HfBpeSpec } from "./hf_bpe_spec.ts";
import { BYTE_TO_CHAR, unByteLevel } from "./hf_bpe_model_data.ts";
import {
  buildVocabTable,
  type ChainedMerges,
  type ResolvedMerges,
  resolveMerges,
  UNRESOLVED,
} from "./hf_bpe_resolved_merges.ts";

/** Everything needed to tokenize; the typed arrays live in SharedArrayBuffers. */
export interface HfBpeTables {
  readonly symbols: BpeRanksSnapshot;
  /** The pair table, or undefined when the merges are `chains`. */
  readonly pairs?: Int32Array;
  readonly chains?: Pick<ChainedMerges, "head" | "next" | "split">;
  readonly outIds: Int32Array;
  readonly byteSymbols: Int32Array;
  readonly meta: HfBpeMeta;
}

/** The non-table part, stored as JSON in the cache header. */
export interface HfBpeMeta {
  /** The pre-tokenizer regex, translated to JavaScript exactly as `@huggingface/tokenizers` translates it. */
  readonly regexSource: string;
  readonly regexFlags: string;
  /** Split(Isolated) keeps the text between matches as pieces; ByteLevel's own regex drops it. */
  readonly keepGaps: boolean;
  readonly addPrefixSpace: boolean;
  readonly ignoreMerges: boolean;
  readonly normalizer: HfBpeSpec["normalizer"];
  readonly addedTokens: readonly AddedTokenSpec[];
}

/** Hash slot of a symbol pair in a table of `mask + 1` slots. */
export function pairSlot(left: number, right: number, mask: number): number {
  let h = Math.imul(left, 0x9e3779b1) ^ Math.imul(right + 0x7f4a7c15, 0x85ebca77);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 13;
  return h & mask;
}

/** Slots of the pair table for `count` merges: a power of two, at most two thirds full. */
export function pairCapacity(count: number): number {
  let capacity = 16;
  while (capacity * 2 < count * 3) capacity *= 2;
  return capacity;
}

function sharedInt32(length: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(length * 4));
}

/**
 * Builds the tables. `regex` is the pre-tokenizer's compiled pattern (see {@linkcode HfBpeMeta.regexSource}).
 * `spec.merges` may come already resolved against the vocabulary (the scanner does it as it reads them).
 */
export function buildHfBpeTables(spec: HfBpeSpec, regex: RegExp): HfBpeTables {
  const given = spec.merges;
  let merges: ResolvedMerges;
  let chains: ChainedMerges | undefined;
  if ("complete" in given) {
    if (!given.complete) throw new Error("merges that do not all join into tokens need the full tables");
    chains = given;
    merges = noMerges(given.vocab);
  } else {
    merges = "lefts" in given ? given : resolveMerges(given, buildVocabTable(spec.vocab));
  }
  const { lefts, rights, results, misses, vocab } = merges;
  const vocabSymbols = vocab.symbols;
  let maxId = vocab.maxId;
  for (const t of spec.addedTokens) if (t.id > maxId) maxId = t.id;

  // Extra symbols: byte strings outside the vocabulary that merges or added tokens name (keyed as Latin-1),
  // numbered in the order they are first named: merges in order (left side, then right), then added tokens.
  const extras = new Map<string, number>();
  let nextSymbol = maxId + 1;
  const symbolOfBytes = (source: Uint8Array, start: number, end: number, hash: number): number => {
    const r = vocabSymbols.rankOfHashed(source, start, end, hash);
    if (r !== NO_RANK) return r;
    const key = String.fromCharCode(...source.subarray(start, end));
    let e = extras.get(key);
    if (e === undefined) extras.set(key, e = nextSymbol++);
    return e;
  };
  let scratch = new Uint8Array(256);
  const symbolOf = (s: string): number => {
    if (s.length * 2 > scratch.length) scratch = new Uint8Array(s.length * 4);
    const n = unByteLevel(s, scratch, 0);
    return n < 0 ? -1 : symbolOfBytes(scratch, 0, n, hashBytes(scratch, 0, n));
  };
  const { bytes: missBytes, bounds: missBounds, hashes: missHashes, indexes: missIndexes } = misses;
  for (let k = 0; k < misses.count; k++) {
    const m = missIndexes[k];
    const start = missBounds[3 * k], middle = missBounds[3 * k + 1], end = missBounds[3 * k + 2];
    if (lefts[m] === UNRESOLVED) lefts[m] = symbolOfBytes(missBytes, start, middle, missHashes[3 * k]);
    if (rights[m] === UNRESOLVED) rights[m] = symbolOfBytes(missBytes, middle, end, missHashes[3 * k + 1]);
  }
  for (const t of spec.addedTokens) symbolOf(t.content);

  // The extras join the vocabulary's table (its tokens are not hashed again).
  let symbols = vocabSymbols;
  if (extras.size > 0) {
    let extraBytes = 0;
    for (const s of extras.keys()) extraBytes += s.length;
    const xBytes = new Uint8Array(extraBytes);
    const xStarts = new Int32Array(extras.size + 1);
    const xIds = new Int32Array(extras.size);
    let at = 0;
    let x = 0;
    for (const [s, sym] of extras) {
      for (let i = 0; i < s.length; i++) xBytes[at++] = s.charCodeAt(i);
      xIds[x++] = sym;
      xStarts[x] = at;
    }
    symbols = vocabSymbols.withTokens(xBytes, xStarts, xIds);
  }
  for (let k = 0; k < misses.count; k++) {
    const m = missIndexes[k];
    if (results[m] !== UNRESOLVED) continue;
    results[m] = lefts[m] < 0 || rights[m] < 0
      ? -1
      : symbols.rankOfHashed(missBytes, missBounds[3 * k], missBounds[3 * k + 2], missHashes[3 * k + 2]);
  }
  const symbolCount = nextSymbol;
  const lookup = (s: string): number => {
    if (s.length * 2 > scratch.length) scratch = new Uint8Array(s.length * 4);
    const n = unByteLevel(s, scratch, 0);
    return n < 0 ? -1 : symbols.rankOf(scratch, 0, n);
  };

  const mergeCount = merges.count;
  const mask = chains !== undefined ? 0 : pairCapacity(mergeCount) - 1;
  const pairs = chains !== undefined ? undefined : sharedInt32(4 * (mask + 1)).fill(-1);
  for (let m = 0; pairs !== undefined && m < mergeCount; m++) {
    const left = lefts[m];
    const right = rights[m];
    if (left < 0 || right < 0) continue;
    let slot = pairSlot(left, right, mask);
    while (pairs[4 * slot] !== -1 && (pairs[4 * slot] !== left || pairs[4 * slot + 1] !== right)) {
      slot = (slot + 1) & mask;
    }
    pairs[4 * slot] = left;
    pairs[4 * slot + 1] = right;
    pairs[4 * slot + 2] = m;
    pairs[4 * slot + 3] = results[m];
  }

  const ids = vocab.ids;
  const outIds = sharedInt32(symbolCount).fill(-1);
  for (let t = 0; t < ids.length; t++) outIds[ids[t]] = ids[t]; // a vocabulary token's symbol is its id
  // Added tokens join the model's vocabulary (kept when produced), and their ids win over the vocabulary's for
  // every string the library maps to them: the content, and its normalized form for normalized tokens.
  const kept = new Uint8Array(symbolCount);
  for (let s = 0; s < symbolCount; s++) kept[s] = outIds[s] >= 0 ? 1 : 0;
  for (const t of spec.addedTokens) {
    const sym = lookup(t.content);
    if (sym >= 0) kept[sym] = 1;
  }
  for (const t of spec.addedTokens) {
    const forms = [t.content];
    if (t.normalized && spec.normalizer !== undefined) forms.push(t.content.normalize(spec.normalizer));
    for (const form of forms) {
      const sym = lookup(form);
      if (sym >= 0 && kept[sym] === 1) outIds[sym] = t.id;
    }
  }

  const byteSymbols = sharedInt32(256);
  for (let b = 0; b < 256; b++) byteSymbols[b] = lookup(BYTE_TO_CHAR[b]);

  return {
    symbols: symbols.snapshot(),
    pairs,
    chains: chains && { head: chains.head, next: chains.next, split: chains.split },
    outIds,
    byteSymbols,
    meta: {
      regexSource: regex.source,
      regexFlags: regex.flags,
      keepGaps: spec.preTokenizer.splitRegex !== undefined,
      addPrefixSpace: spec.preTokenizer.addPrefixSpace,
      ignoreMerges: spec.ignoreMerges,
      normalizer: spec.normalizer,
      addedTokens: spec.addedTokens,
    },
  };
}

/** Chained merges need no symbols per merge: none to resolve, none missed. */
function noMerges(vocab: ResolvedMerges["vocab"]): ResolvedMerges {
  const none = new Int32Array(0);
  return {
    count: 0,
    lefts: none,
    rights: none,
    results: none,
    misses: { count: 0, bytes: new Uint8Array(0), bounds: none, flags: new Uint8Array(0), hashes: none, indexes: none },
    vocab,
  };
}
