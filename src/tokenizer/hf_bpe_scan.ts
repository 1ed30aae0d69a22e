/**
 * Reads a byte-level BPE `tokenizer.json` from its bytes without `JSON.parse`-ing the whole document: the two
 * big parts, `model.vocab` (~150k string → id) and `model.merges` (~150k pairs), are decoded straight into
 * {@linkcode HfBpeVocab} / {@linkcode HfBpeMerges} bytes, and only the small rest (normalizer, pre-tokenizer,
 * added tokens, the model's options) goes through `JSON.parse`. Parsing all of it built ~150 MB of strings and
 * objects and took most of a first load.
 *
 * JSON strings are decoded exactly (UTF-8, every escape including `\uXXXX`); a string with characters outside
 * the byte-level alphabet is marked as such, as the converters from parsed JSON do. Anything this scanner does
 * not read exactly — vocab ids that are not plain integers, merges in mixed or other forms, raw control
 * characters, malformed JSON — makes it answer undefined, and the caller parses the whole file instead (which
 * also reports malformed JSON with its position).
 */
import {
  CHAR_TO_BYTE,
  type HfBpeMerges,
  type HfBpeVocab,
  LEFT_OUTSIDE,
  MERGE_MISSING,
  RIGHT_OUTSIDE,
} from "./hf_bpe_model_data.ts";
import { BPE_HASH_PRIME, BPE_HASH_SEED, finishHash } from "./bpe_ranks.ts";
import type { ChainedMerges, MergeResolver, ResolvedMerges } from "./hf_bpe_resolved_merges.ts";

/**
 * The document with `model.vocab` and `model.merges` left empty (`{}`, `[]`), the vocabulary as bytes, and the
 * merges as bytes or (with {@linkcode ScanOptions.onVocab}, vocabulary first) resolved as they were read.
 */
export interface ScannedTokenizerJson {
  readonly json: Record<string, unknown>;
  readonly vocab: HfBpeVocab;
  readonly merges: HfBpeMerges | ResolvedMerges | ChainedMerges;
}

/** Options of {@linkcode scanTokenizerJson}. */
export interface ScanOptions {
  /**
   * Called with the vocabulary once it is read, and how many bytes of the file follow it (at least three per
   * merge); a resolver returned takes the merges that follow one by one, so that their strings are never stored.
   */
  readonly onVocab?: (vocab: HfBpeVocab, bytesLeft: number) => MergeResolver | undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

/** Thrown inside the scanner for anything it does not read; never escapes {@linkcode scanTokenizerJson}. */
class NotScanned extends Error {}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const l = c | 0x20;
  if (l >= 0x61 && l <= 0x66) return l - 0x61 + 10;
  throw new NotScanned();
}

/**
 * The bytes decoded from the rest of the file: as long as that rest (decoding never grows it), so writes need no
 * bound checks. Pages never written are never touched, so the unused part costs no memory.
 */
class ByteOut {
  readonly bytes: Uint8Array;
  at = 0;
  constructor(capacity: number) {
    this.bytes = new Uint8Array(capacity);
  }
}

/** Room for one merge's decoded bytes when merges are resolved as they are read (longer ones: parse the file). */
const MERGE_SCRATCH_BYTES = 1 << 16;

function growInt32(a: Int32Array<ArrayBuffer>, need: number): Int32Array<ArrayBuffer> {
  if (need <= a.length) return a;
  const grown = new Int32Array(Math.max(2 * a.length, need));
  grown.set(a);
  return grown;
}

class Scanner {
  readonly b: Uint8Array;
  readonly n: number;
  i = 0;
  vocab: HfBpeVocab | undefined;
  merges: HfBpeMerges | ResolvedMerges | ChainedMerges | undefined;
  readonly #text = new TextDecoder();
  readonly #options: ScanOptions;
  #resolver: MergeResolver | undefined;

  constructor(bytes: Uint8Array, options: ScanOptions) {
    this.b = bytes;
    this.n = bytes.length;
    this.#options = options;
  }

  ws(): void {
    const b = this.b;
    let i = this.i;
    for (;;) {
      const c = b[i];
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
    this.i = i;
  }

  expect(c: number): void {
    this.ws();
    if (this.b[this.i] !== c) throw new NotScanned();
    this.i++;
  }

  /** Skips one JSON value (its validity is checked by `JSON.parse` of the slice). */
  skipValue(): void {
    const b = this.b;
    const n = this.n;
    let i = this.i;
    let depth = 0;
    for (;;) {
      if (i >= n) throw new NotScanned();
      const c = b[i];
      if (c === QUOTE) {
        i++;
        while (i < n && b[i] !== QUOTE) i += b[i] === BACKSLASH ? 2 : 1;
        if (i >= n) throw new NotScanned();
        i++;
        if (depth === 0) break;
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        depth++;
        i++;
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        if (depth === 0) break;
        depth--;
        i++;
        if (depth === 0) break;
      } else if (depth === 0 && (c === COMMA || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) {
        break;
      } else {
        i++;
      }
    }
    this.i = i;
  }

  /** The value at the cursor, parsed by `JSON.parse`. */
  parseValue(): unknown {
    this.ws();
    const start = this.i;
    this.skipValue();
    try {
      return JSON.parse(this.#text.decode(this.b.subarray(start, this.i)));
    } catch {
      throw new NotScanned();
    }
  }

  /** An object key (the cursor on its opening quote). */
  key(): string {
    this.ws();
    if (this.b[this.i] !== QUOTE) throw new NotScanned();
    const value = this.parseValue();
    if (typeof value !== "string") throw new NotScanned();
    return value;
  }

  /** Calls `member` for each key of the object at the cursor, with the cursor on the key's value. */
  object(member: (key: string) => void): void {
    this.expect(OPEN_BRACE);
    this.ws();
    if (this.b[this.i] === CLOSE_BRACE) {
      this.i++;
      return;
    }
    for (;;) {
      const key = this.key();
      this.expect(COLON);
      this.ws();
      member(key);
      this.ws();
      const c = this.b[this.i++];
      if (c === CLOSE_BRACE) return;
      if (c !== COMMA) throw new NotScanned();
    }
  }

  document(): Record<string, unknown> {
    const json: Record<string, unknown> = {};
    this.object((key) => {
      if (key === "model" && this.b[this.i] === OPEN_BRACE) json[key] = this.model();
      else json[key] = this.parseValue();
    });
    this.ws();
    if (this.i !== this.n) throw new NotScanned();
    return json;
  }

  model(): Record<string, unknown> {
    const model: Record<string, unknown> = {};
    this.object((key) => {
      if (key === "vocab" && this.b[this.i] === OPEN_BRACE && this.vocab === undefined) {
        this.vocab = this.vocabObject();
        this.#resolver = this.#options.onVocab?.(this.vocab, this.n - this.i);
        model[key] = {};
      } else if (key === "merges" && this.b[this.i] === OPEN_BRACKET && this.merges === undefined) {
        this.merges = this.mergeList();
        model[key] = [];
      } else {
        if (key === "vocab" || key === "merges") throw new NotScanned();
        model[key] = this.parseValue();
      }
    });
    return model;
  }

  /**
   * Decodes the JSON string at the cursor into `out` as byte-level bytes, in one pass, hashing as it goes
   * (`hashBytes`'s FNV-1a steps, unfinished). `split`: a space ends a part (the string form of a merge): returns
   * the number of parts seen. Sets `#outside` bits (1 << part) for parts with characters outside the alphabet,
   * `#partEnd` to `out.at` after the first part, `#hashFirst` to the first part's hash, `#hashLast` to the last
   * part's, and `#hashAll` to all kept bytes' hash continued from `hashFrom`.
   */
  #outside = 0;
  #partEnd = 0;
  #hashFirst = 0;
  #hashLast = 0;
  #hashAll = 0;
  token(out: ByteOut, split: boolean, hashFrom: number): number {
    const b = this.b;
    const n = this.n;
    let i = this.i;
    if (b[i] !== QUOTE) throw new NotScanned();
    i++;
    // The output holds at least the rest of the file (decoding never grows a string), so no bound checks here.
    const bytes = out.bytes;
    let at = out.at;
    let part = 0;
    let outside = 0;
    let hashPart = BPE_HASH_SEED;
    let hashAll = hashFrom;
    this.#partEnd = -1;
    this.#hashFirst = BPE_HASH_SEED;
    for (;;) {
      if (i >= n) throw new NotScanned();
      const c = b[i];
      let u: number;
      if (c < 0x80) {
        if (c === QUOTE) break;
        if (c === BACKSLASH) {
          const e = b[i + 1];
          if (e === 0x75) { // \uXXXX
            if (i + 6 > n) throw new NotScanned();
            u = (hexValue(b[i + 2]) << 12) | (hexValue(b[i + 3]) << 8) | (hexValue(b[i + 4]) << 4) |
              hexValue(b[i + 5]);
            i += 6;
          } else {
            u = e === QUOTE || e === BACKSLASH || e === 0x2f
              ? e
              : e === 0x6e
              ? 0x0a
              : e === 0x74
              ? 0x09
              : e === 0x72
              ? 0x0d
              : e === 0x62
              ? 0x08
              : e === 0x66
              ? 0x0c
              : -1;
            if (u < 0) throw new NotScanned();
            i += 2;
          }
        } else {
          if (c < 0x20) throw new NotScanned(); // raw control characters are not JSON
          u = c;
          i++;
        }
      } else if (c >= 0xc2 && c <= 0xc5 && (b[i + 1] & 0xc0) === 0x80) {
        u = ((c & 0x1f) << 6) | (b[i + 1] & 0x3f);
        i += 2;
      } else {
        // Any other character (3- or 4-byte UTF-8, or bytes that decode to U+FFFD) is outside the alphabet; its
        // bytes are never quotes or backslashes, so stepping over them one at a time keeps the string's bounds.
        outside |= 1 << Math.min(part, 2);
        i++;
        continue;
      }
      if (u === 0x20 && split) {
        if (part === 0) {
          this.#partEnd = at;
          this.#hashFirst = hashPart;
        }
        part++;
        hashPart = BPE_HASH_SEED;
        continue;
      }
      if (part >= 2) continue; // `split(" ", 2)` drops the rest
      const byte = CHAR_TO_BYTE[u];
      if (byte < 0) outside |= 1 << part;
      else {
        bytes[at++] = byte;
        hashPart = Math.imul(hashPart ^ byte, BPE_HASH_PRIME);
        hashAll = Math.imul(hashAll ^ byte, BPE_HASH_PRIME);
      }
    }
    this.i = i + 1;
    out.at = at;
    this.#outside = outside;
    this.#hashLast = hashPart;
    this.#hashAll = hashAll;
    return part + 1;
  }

  vocabObject(): HfBpeVocab {
    const out = new ByteOut(this.n - this.i);
    // As many entries as the rest of the file could hold (`"":0,` is five bytes), so that they never grow: only
    // the pages written are backed by memory.
    const capacity = Math.floor((this.n - this.i) / 5) + 2;
    let starts = new Int32Array(capacity);
    let ids = new Int32Array(capacity);
    let hashes = new Int32Array(capacity);
    let count = 0;
    const b = this.b;
    this.expect(OPEN_BRACE);
    this.ws();
    if (b[this.i] === CLOSE_BRACE) {
      this.i++;
    } else {
      for (;;) {
        this.ws();
        const start = out.at;
        this.token(out, false, BPE_HASH_SEED);
        const inside = this.#outside === 0;
        if (!inside) out.at = start;
        this.expect(COLON);
        this.ws();
        let i = this.i;
        let id = 0;
        const first = i;
        while (b[i] >= DIGIT_0 && b[i] <= DIGIT_9) id = id * 10 + (b[i++] - DIGIT_0);
        // Plain non-negative integers only (no sign, fraction, exponent or leading zero); else parse the file.
        if (i === first || i - first > 9 || (b[first] === DIGIT_0 && i - first > 1)) throw new NotScanned();
        this.i = i;
        if (inside) {
          starts = growInt32(starts, count + 2);
          ids = growInt32(ids, count + 1);
          hashes = growInt32(hashes, count + 1);
          starts[count] = start;
          hashes[count] = finishHash(this.#hashLast);
          ids[count++] = id;
        }
        this.ws();
        const c = b[this.i++];
        if (c === CLOSE_BRACE) break;
        if (c !== COMMA) throw new NotScanned();
      }
    }
    starts = growInt32(starts, count + 1);
    starts[count] = out.at;
    return {
      bytes: out.bytes.subarray(0, out.at),
      starts: starts.subarray(0, count + 1),
      ids: ids.subarray(0, count),
      hashes: hashes.subarray(0, count),
    };
  }

  /**
   * The merge list at the cursor: stored as bytes, or handed one by one to the resolver (each decoded into a
   * scratch buffer that the next one reuses).
   */
  mergeList(): HfBpeMerges | ResolvedMerges | ChainedMerges {
    const b = this.b;
    const resolver = this.#resolver;
    const out = new ByteOut(resolver === undefined ? this.n - this.i : Math.min(this.n - this.i, MERGE_SCRATCH_BYTES));
    let bounds = new Int32Array(resolver === undefined ? 3 << 16 : 0);
    let hashes = new Int32Array(resolver === undefined ? 3 << 16 : 0);
    let flags = new Uint8Array(resolver === undefined ? 1 << 16 : 0);
    let count = 0;
    let arrayForm: boolean | undefined;
    this.expect(OPEN_BRACKET);
    this.ws();
    if (b[this.i] === CLOSE_BRACKET) {
      this.i++;
    } else {
      for (;;) {
        this.ws();
        const isArray = b[this.i] === OPEN_BRACKET;
        arrayForm ??= isArray;
        if (isArray !== arrayForm) throw new NotScanned(); // mixed forms: let the library's reading decide
        if (resolver === undefined) {
          bounds = growInt32(bounds, 3 * count + 3);
          hashes = growInt32(hashes, 3 * count + 3);
          if (flags.length <= count) {
            const grown = new Uint8Array(2 * flags.length);
            grown.set(flags);
            flags = grown;
          }
        } else {
          out.at = 0;
        }
        const start = out.at;
        let flag = 0;
        let middle: number;
        let end: number;
        let hashLeft: number;
        let hashRight: number;
        let hashAll: number;
        if (isArray) {
          // `[a, b]`: exactly two strings (other shapes go to the full parse).
          this.i++;
          this.ws();
          this.token(out, false, BPE_HASH_SEED);
          if (this.#outside !== 0) {
            flag |= LEFT_OUTSIDE;
            out.at = start;
          }
          const left = this.#hashLast;
          middle = out.at;
          this.expect(COMMA);
          this.ws();
          this.token(out, false, left);
          hashLeft = finishHash(left);
          hashRight = finishHash(this.#hashLast);
          hashAll = finishHash(this.#hashAll);
          if (this.#outside !== 0) {
            flag |= RIGHT_OUTSIDE;
            out.at = middle;
          }
          end = out.at;
          this.expect(CLOSE_BRACKET);
        } else {
          const parts = this.token(out, true, BPE_HASH_SEED);
          hashLeft = finishHash(this.#hashFirst);
          hashRight = finishHash(this.#hashLast);
          hashAll = finishHash(this.#hashAll);
          if (parts < 2) {
            out.at = start;
            middle = start;
            end = MERGE_MISSING;
          } else {
            middle = this.#partEnd;
            end = out.at;
            // Drop an outside side's bytes so the sides stay contiguous (such a merge never applies).
            if (this.#outside & 2) {
              flag |= RIGHT_OUTSIDE;
              end = out.at = middle;
            }
            if (this.#outside & 1) {
              flag |= LEFT_OUTSIDE;
              out.bytes.copyWithin(start, middle, end);
              end = out.at = start + (end - middle);
              middle = start;
            }
          }
        }
        if (resolver === undefined) {
          bounds[3 * count] = start;
          bounds[3 * count + 1] = middle;
          bounds[3 * count + 2] = end;
          hashes[3 * count] = hashLeft;
          hashes[3 * count + 1] = hashRight;
          hashes[3 * count + 2] = hashAll;
          flags[count] = flag;
        } else {
          // Writes past the scratch buffer are dropped: such a string cannot be read here.
          if (out.at > out.bytes.length) throw new NotScanned();
          resolver.add(out.bytes, start, middle, end, flag, hashLeft, hashRight, hashAll);
        }
        count++;
        this.ws();
        const c = b[this.i++];
        if (c === CLOSE_BRACKET) break;
        if (c !== COMMA) throw new NotScanned();
      }
    }
    if (resolver !== undefined) return resolver.finish();
    return { count, bytes: out.bytes.subarray(0, out.at), bounds, flags, hashes };
  }
}

/**
 * `tokenizer.json`'s bytes read as described above, or undefined when the scanner does not read this file (a
 * different model shape, an unusual encoding of the two big parts, or malformed JSON): parse it whole then.
 */
export function scanTokenizerJson(bytes: Uint8Array, options: ScanOptions = {}): ScannedTokenizerJson | undefined {
  const scanner = new Scanner(bytes, options);
  try {
    const json = scanner.document();
    if (scanner.vocab === undefined || scanner.merges === undefined) return undefined;
    return { json, vocab: scanner.vocab, merges: scanner.merges };
  } catch (error) {
    if (error instanceof NotScanned) return undefined;
    throw error;
  }
}
