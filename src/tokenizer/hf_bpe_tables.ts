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
 * Strings with characters outside the byte-level alphabet can never be produced from text and are left out.
 */
import { BpeRanks, type BpeRanksSnapshot, NO_RANK } from "./bpe_ranks.ts";
import type { AddedTokenSpec, HfBpeSpec } from "./hf_bpe_spec.ts";

/** Everything needed to tokenize; the typed arrays live in SharedArrayBuffers. */
export interface HfBpeTables {
  readonly symbols: BpeRanksSnapshot;
  readonly pairs: Int32Array;
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

/** GPT-2's bytes_to_unicode: byte → the character that stands for it in a byte-level vocabulary. */
export const BYTE_TO_CHAR: readonly string[] = (() => {
  const printable = (b: number) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  const out = new Array<string>(256);
  let n = 0;
  for (let b = 0; b < 256; b++) out[b] = String.fromCharCode(printable(b) ? b : 256 + n++);
  return out;
})();

/** Inverse of {@linkcode BYTE_TO_CHAR} per UTF-16 code unit; -1 outside the alphabet. */
const CHAR_TO_BYTE: Int16Array = (() => {
  const t = new Int16Array(65536).fill(-1);
  BYTE_TO_CHAR.forEach((c, b) => t[c.charCodeAt(0)] = b);
  return t;
})();

/** Writes the bytes `s` stands for at `out[at…]`; returns the end, or -1 when `s` is outside the alphabet. */
function unByteLevel(s: string, out: Uint8Array, at: number): number {
  for (let i = 0; i < s.length; i++) {
    const b = CHAR_TO_BYTE[s.charCodeAt(i)];
    if (b < 0) return -1;
    out[at++] = b;
  }
  return at;
}

/** Hash slot of a symbol pair in a table of `mask + 1` slots. */
export function pairSlot(left: number, right: number, mask: number): number {
  let h = Math.imul(left, 0x9e3779b1) ^ Math.imul(right + 0x7f4a7c15, 0x85ebca77);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 13;
  return h & mask;
}

function sharedInt32(length: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(length * 4));
}

/**
 * Builds the tables. `regex` is the pre-tokenizer's compiled pattern (see {@linkcode HfBpeMeta.regexSource}).
 * @throws {Error} when the vocabulary holds an id that is not a non-negative integer.
 */
export function buildHfBpeTables(spec: HfBpeSpec, regex: RegExp): HfBpeTables {
  // Pass 1: the vocabulary as symbols.
  const keys = Object.keys(spec.vocab);
  let byteCapacity = 0;
  for (const k of keys) byteCapacity += k.length;
  let bytes = new Uint8Array(byteCapacity + 1024);
  let starts = new Int32Array(keys.length + 1);
  let ids = new Int32Array(keys.length);
  let count = 0;
  let at = 0;
  let maxId = -1;
  for (const k of keys) {
    const id = spec.vocab[k];
    if (!Number.isInteger(id) || id < 0) {
      throw new Error(`the vocabulary gives ${JSON.stringify(k)} the id ${id}; ids must be non-negative integers`);
    }
    const end = unByteLevel(k, bytes, at);
    if (end < 0) continue;
    starts[count] = at;
    ids[count++] = id;
    at = end;
    if (id > maxId) maxId = id;
  }
  starts[count] = at;
  for (const t of spec.addedTokens) if (t.id > maxId) maxId = t.id;
  const vocabSymbols = BpeRanks.fromTokens(bytes, starts, ids.subarray(0, count));
  const vocabCount = count;

  // Extra symbols: strings outside the vocabulary that merges or added tokens name.
  const extras = new Map<string, number>();
  let nextSymbol = maxId + 1;
  let scratch = new Uint8Array(256);
  const symbolOf = (s: string, create: boolean): number => {
    if (s.length * 2 > scratch.length) scratch = new Uint8Array(s.length * 4);
    const n = unByteLevel(s, scratch, 0);
    if (n < 0) return -1;
    const r = vocabSymbols.rankOf(scratch, 0, n);
    if (r !== NO_RANK) return r;
    let e = extras.get(s);
    if (e === undefined && create) extras.set(s, e = nextSymbol++);
    return e ?? -1;
  };

  // Merge sides and results; sides must be symbols, results only when they are.
  const mergeCount = spec.merges.length;
  const lefts = new Int32Array(mergeCount);
  const rights = new Int32Array(mergeCount);
  const joined: string[] = new Array(mergeCount);
  const arrayForm = Array.isArray(spec.merges[0]);
  for (let m = 0; m < mergeCount; m++) {
    const entry = spec.merges[m];
    let a: string | undefined, b: string | undefined;
    if (arrayForm) {
      [a, b] = entry as readonly [string, string];
    } else {
      // `"a b".split(" ", 2)`, as the JavaScript library reads the string form.
      [a, b] = String(entry).split(" ", 2);
    }
    if (typeof a !== "string" || typeof b !== "string") {
      lefts[m] = -1;
      continue;
    }
    lefts[m] = symbolOf(a, true);
    rights[m] = symbolOf(b, true);
    joined[m] = a + b;
  }
  for (const t of spec.addedTokens) symbolOf(t.content, true);

  // Pass 2: all symbols in one table.
  if (extras.size > 0) {
    let extraBytes = 0;
    for (const s of extras.keys()) extraBytes += s.length;
    const all = new Uint8Array(at + extraBytes);
    all.set(bytes.subarray(0, at));
    bytes = all;
    const allStarts = new Int32Array(count + extras.size + 1);
    allStarts.set(starts.subarray(0, count + 1));
    starts = allStarts;
    const allIds = new Int32Array(count + extras.size);
    allIds.set(ids.subarray(0, count));
    ids = allIds;
    for (const [s, sym] of extras) {
      at = unByteLevel(s, bytes, at);
      ids[count++] = sym;
      starts[count] = at;
    }
  }
  const symbols = extras.size > 0 ? BpeRanks.fromTokens(bytes, starts, ids.subarray(0, count)) : vocabSymbols;
  const symbolCount = nextSymbol;
  const lookup = (s: string): number => {
    if (s.length * 2 > scratch.length) scratch = new Uint8Array(s.length * 4);
    const n = unByteLevel(s, scratch, 0);
    return n < 0 ? -1 : symbols.rankOf(scratch, 0, n);
  };

  let capacity = 16;
  while (capacity < mergeCount * 2) capacity *= 2;
  const mask = capacity - 1;
  const pairs = sharedInt32(4 * capacity).fill(-1);
  for (let m = 0; m < mergeCount; m++) {
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
    pairs[4 * slot + 3] = lookup(joined[m]);
  }

  const outIds = sharedInt32(symbolCount).fill(-1);
  for (let t = 0; t < vocabCount; t++) outIds[ids[t]] = ids[t]; // a vocabulary token's symbol is its id
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
