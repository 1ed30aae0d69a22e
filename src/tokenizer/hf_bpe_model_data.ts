/**
 * A byte-level BPE model's `vocab` and `merges` as raw bytes (the byte-level alphabet undone: `Ġ` → 0x20…), the
 * form {@linkcode buildHfBpeTables} consumes. Two producers give the same data: the byte scanner over the file
 * (hf_bpe_scan.ts, no `JSON.parse` of the ~10 MB document) and, for files it does not read, the converters
 * here from the parsed JSON ({@linkcode vocabFromObject}, {@linkcode mergesFromList}).
 */

/** GPT-2's bytes_to_unicode: byte → the character that stands for it in a byte-level vocabulary. */
export const BYTE_TO_CHAR: readonly string[] = (() => {
  const printable = (b: number) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  const out = new Array<string>(256);
  let n = 0;
  for (let b = 0; b < 256; b++) out[b] = String.fromCharCode(printable(b) ? b : 256 + n++);
  return out;
})();

/** Inverse of {@linkcode BYTE_TO_CHAR} per UTF-16 code unit; -1 outside the alphabet. */
export const CHAR_TO_BYTE: Int16Array = (() => {
  const t = new Int16Array(65536).fill(-1);
  BYTE_TO_CHAR.forEach((c, b) => t[c.charCodeAt(0)] = b);
  return t;
})();

/**
 * Vocabulary tokens whose strings are inside the byte-level alphabet (others can never be produced from text):
 * token `t` is `bytes[starts[t], starts[t + 1])` with id `ids[t]`. A key the scanner met twice is listed
 * twice; the builder keeps the later id, as `JSON.parse` does.
 */
export interface HfBpeVocab {
  readonly bytes: Uint8Array;
  readonly starts: Int32Array;
  readonly ids: Int32Array;
  /**
   * Token `t`'s `hashBytes` (bpe_ranks.ts), when the producer computed it while decoding (the scanner does); else the
   * builder hashes the bytes itself.
   */
  readonly hashes?: Int32Array;
}

/** `bounds[3m + 2]` of a merge that is not a pair of strings: it is skipped, as `@huggingface/tokenizers` does. */
export const MERGE_MISSING = -1;
/** Flag bits of a merge: its left / right side has characters outside the byte-level alphabet. */
export const LEFT_OUTSIDE = 1;
export const RIGHT_OUTSIDE = 2;

/**
 * Merge `m`'s sides as bytes: left `bytes[bounds[3m], bounds[3m + 1])`, right `bytes[bounds[3m + 1],
 * bounds[3m + 2])` (so the two joined are one contiguous range); `flags[m]` says which side is outside the
 * alphabet (that side is then empty here and the merge cannot apply); `bounds[3m + 2] === MERGE_MISSING` for
 * an entry that names no pair.
 */
export interface HfBpeMerges {
  readonly count: number;
  readonly bytes: Uint8Array;
  readonly bounds: Int32Array;
  readonly flags: Uint8Array;
  /**
   * Per merge `[3m, 3m + 1, 3m + 2]`: `hashBytes` (bpe_ranks.ts) of the left side, the right side and the two joined,
   * when the producer computed them while decoding (the joined hash continues the left side's over the right);
   * meaningless for a merge with a flag or {@linkcode MERGE_MISSING}.
   */
  readonly hashes?: Int32Array;
}

/** Writes the bytes `s` stands for at `out[at…]`; returns the end, or -1 when `s` is outside the alphabet. */
export function unByteLevel(s: string, out: Uint8Array, at: number): number {
  for (let i = 0; i < s.length; i++) {
    const b = CHAR_TO_BYTE[s.charCodeAt(i)];
    if (b < 0) return -1;
    out[at++] = b;
  }
  return at;
}

/**
 * The parsed `model.vocab` as {@linkcode HfBpeVocab}.
 * @throws {Error} when a token's id is not a non-negative integer.
 */
export function vocabFromObject(vocab: Readonly<Record<string, unknown>>): HfBpeVocab {
  const keys = Object.keys(vocab);
  let byteCapacity = 0;
  for (const k of keys) byteCapacity += k.length;
  const bytes = new Uint8Array(byteCapacity);
  const starts = new Int32Array(keys.length + 1);
  const ids = new Int32Array(keys.length);
  let count = 0;
  let at = 0;
  for (const k of keys) {
    const id = vocab[k];
    if (typeof id !== "number" || !Number.isInteger(id) || id < 0 || id > 0x7fffffff) {
      throw new Error(`the vocabulary gives ${JSON.stringify(k)} the id ${id}; ids must be non-negative integers`);
    }
    const end = unByteLevel(k, bytes, at);
    if (end < 0) continue;
    starts[count] = at;
    ids[count++] = id;
    at = end;
  }
  starts[count] = at;
  return { bytes: bytes.subarray(0, at), starts: starts.subarray(0, count + 1), ids: ids.subarray(0, count) };
}

/**
 * The parsed `model.merges` as {@linkcode HfBpeMerges}, read as the JavaScript library reads them: the first
 * entry decides the form, `[a, b] = entry` for pairs and `"a b".split(" ", 2)` for strings.
 */
export function mergesFromList(merges: readonly unknown[]): HfBpeMerges {
  const count = merges.length;
  const arrayForm = Array.isArray(merges[0]);
  const bounds = new Int32Array(3 * count);
  const flags = new Uint8Array(count);
  let bytes = new Uint8Array(1024);
  let at = 0;
  for (let m = 0; m < count; m++) {
    const entry = merges[m] as string | readonly unknown[];
    let a: unknown, b: unknown;
    if (arrayForm) [a, b] = entry as readonly unknown[];
    else [a, b] = String(entry).split(" ", 2);
    bounds[3 * m] = bounds[3 * m + 1] = at;
    if (typeof a !== "string" || typeof b !== "string") {
      bounds[3 * m + 2] = MERGE_MISSING;
      continue;
    }
    if (at + a.length + b.length > bytes.length) {
      const grown = new Uint8Array(Math.max(2 * bytes.length, at + a.length + b.length));
      grown.set(bytes.subarray(0, at));
      bytes = grown;
    }
    const afterA = unByteLevel(a, bytes, at);
    if (afterA < 0) flags[m] |= LEFT_OUTSIDE;
    else at = afterA;
    bounds[3 * m + 1] = at;
    const afterB = unByteLevel(b, bytes, at);
    if (afterB < 0) flags[m] |= RIGHT_OUTSIDE;
    else at = afterB;
    bounds[3 * m + 2] = at;
  }
  return { count, bytes: bytes.subarray(0, at), bounds, flags };
}
