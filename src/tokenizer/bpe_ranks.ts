/**
 * A tiktoken rank table held in typed arrays: every token's bytes in one `Uint8Array`, and an open-addressing
 * hash table from a byte range to its rank.
 *
 * Why not a `Map<string, number>`: js-tiktoken keys its map by comma-joined byte strings, which costs ~1.4 s to
 * build for o200k_base and a string allocation per lookup. Here a lookup hashes the bytes in place
 * (`rankOf(bytes, start, end)`), compares bytes on probe, and allocates nothing; building the table from the
 * base64 rank text takes a few tens of milliseconds.
 *
 * Input format (js-tiktoken's `bpe_ranks`): lines `"<tag> <offset> <b64 token> <b64 token> …"`; the i-th token
 * of a line has rank `offset + i`. When the same bytes appear twice, the later rank wins for encoding (as in
 * js-tiktoken) while both ranks still decode.
 */

/** Returned by {@linkcode BpeRanks.rankOf} when a byte range is not a token. */
export const NO_RANK = -1;

/** Base64 digit value per UTF-16 code unit; -1 outside the alphabet (covers every code unit, so no range check). */
const BASE64_VALUES: Int8Array = (() => {
  const table = new Int8Array(65536).fill(-1);
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (let i = 0; i < alphabet.length; i++) table[alphabet.charCodeAt(i)] = i;
  return table;
})();

const SPACE = 32;
const NEWLINE = 10;
const CARRIAGE_RETURN = 13;
const EQUALS = 61;
const DIGIT_0 = 48;
const DIGIT_9 = 57;
/** Initial state of the byte hash used by {@linkcode BpeRanks} (FNV-1a offset basis). */
export const BPE_HASH_SEED = 0x811c9dc5;
/** Multiplier of one FNV-1a step: `h = Math.imul(h ^ byte, BPE_HASH_PRIME)`. */
export const BPE_HASH_PRIME = 0x01000193;

/**
 * Finish a byte hash accumulated with FNV-1a steps from {@linkcode BPE_HASH_SEED}: an avalanche so that the low
 * bits are usable as a slot index. Callers that already walk the bytes (e.g. while UTF-8 encoding) hash as they
 * go and call {@linkcode BpeRanks.rankOfHashed}.
 */
export function finishHash(h: number): number {
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h | 0;
}

/** The hash {@linkcode BpeRanks} uses for `bytes[start, end)`. */
export function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = BPE_HASH_SEED;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i], BPE_HASH_PRIME);
  return finishHash(h);
}

/** The built tables as plain typed arrays: cheap to clone into a Worker instead of parsing the ranks again. */
export interface BpeRanksSnapshot {
  readonly bytes: Uint8Array;
  readonly rankStart: Int32Array;
  readonly rankEnd: Int32Array;
  readonly slots: Int32Array;
  readonly size: number;
}

/**
 * The tables that outlive parsing live in SharedArrayBuffers, so that a `snapshot()` handed to another thread
 * shares ~7 MB instead of copying it (~6 ms): a tokenizer.json's tables go to the counting Worker that way
 * (`Tokenizer.share`), and the on-disk caches are read into them. The builtin tokenizer's counting Worker builds
 * or reads its own (the main thread needs none for default prompts).
 */
function sharedInt32(length: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(length * 4));
}

export class BpeRanks {
  /** Number of (bytes → rank) entries in the lookup table. */
  readonly size: number;
  /** Largest rank present; ranks are in `[0, maxRank]` (there may be gaps). */
  readonly maxRank: number;
  readonly #bytes: Uint8Array;
  /** Per rank: offset of its bytes in `#bytes`, or -1 when the rank is unused. */
  readonly #rankStart: Int32Array;
  /** Per rank: end offset (exclusive) of its bytes. */
  readonly #rankEnd: Int32Array;
  /**
   * Open addressing with linear probing; slot `s` is `[2s] = hash, [2s + 1] = rank` (-1 = empty), interleaved
   * so that a probe touches one cache line.
   */
  readonly #slots: Int32Array;
  readonly #mask: number;

  private constructor(
    bytes: Uint8Array,
    rankStart: Int32Array,
    rankEnd: Int32Array,
    entryRanks: Int32Array,
    entryHashes: Int32Array,
    prebuilt?: BpeRanksSnapshot,
  ) {
    this.#bytes = bytes;
    this.#rankStart = rankStart;
    this.#rankEnd = rankEnd;
    this.maxRank = rankStart.length - 1;
    let slots: Int32Array;
    let size: number;
    if (prebuilt !== undefined) {
      slots = prebuilt.slots;
      size = prebuilt.size;
    } else {
      let capacity = 16;
      while (capacity < entryRanks.length * 2) capacity *= 2;
      slots = sharedInt32(2 * capacity).fill(NO_RANK);
      size = 0;
    }
    const mask = slots.length / 2 - 1;
    this.#mask = mask;
    this.#slots = slots;
    for (let e = 0; e < entryRanks.length; e++) {
      const rank = entryRanks[e];
      const h = entryHashes[e];
      let slot = h & mask;
      for (;;) {
        const existing = slots[2 * slot + 1];
        if (existing === NO_RANK) {
          slots[2 * slot] = h;
          slots[2 * slot + 1] = rank;
          size++;
          break;
        }
        if (slots[2 * slot] === h && this.#sameBytes(existing, bytes, rankStart[rank], rankEnd[rank])) {
          slots[2 * slot + 1] = rank; // later rank wins, as in js-tiktoken
          break;
        }
        slot = (slot + 1) & mask;
      }
    }
    this.size = size;
  }

  /**
   * Parse js-tiktoken's compact rank text (`bpe_ranks`): lines of `<tag> <offset> <base64 token>…`, tokens in
   * standard padded base64.
   *
   * @throws {SyntaxError} on a missing offset or a token that is not padded base64.
   */
  /** The tables, for {@linkcode BpeRanks.fromSnapshot} in another thread. */
  snapshot(): BpeRanksSnapshot {
    return {
      bytes: this.#bytes,
      rankStart: this.#rankStart,
      rankEnd: this.#rankEnd,
      slots: this.#slots,
      size: this.size,
    };
  }

  /** Rebuilds from {@linkcode BpeRanks.snapshot} without hashing anything again. */
  static fromSnapshot(s: BpeRanksSnapshot): BpeRanks {
    const none = new Int32Array(0);
    return new BpeRanks(s.bytes, s.rankStart, s.rankEnd, none, none, s);
  }

  /**
   * Builds from token bytes already decoded: token `t` has bytes `bytes[starts[t], starts[t + 1])` and rank
   * `ranks[t]` (the later of equal byte strings wins for encoding). `bytes` is copied into shared memory.
   * `tokenHashes[t]`, when given, is token `t`'s {@linkcode hashBytes} (computed while decoding it).
   */
  static fromTokens(bytes: Uint8Array, starts: Int32Array, ranks: Int32Array, tokenHashes?: Int32Array): BpeRanks {
    const count = ranks.length;
    let maxRank = -1;
    for (let t = 0; t < count; t++) if (ranks[t] > maxRank) maxRank = ranks[t];
    const rankStart = sharedInt32(maxRank + 1).fill(-1);
    const rankEnd = sharedInt32(maxRank + 1).fill(-1);
    let hashes = tokenHashes;
    if (hashes === undefined) {
      hashes = new Int32Array(count);
      for (let t = 0; t < count; t++) hashes[t] = hashBytes(bytes, starts[t], starts[t + 1]);
    }
    for (let t = 0; t < count; t++) {
      rankStart[ranks[t]] = starts[t];
      rankEnd[ranks[t]] = starts[t + 1];
    }
    const shared = new Uint8Array(new SharedArrayBuffer(starts[count]));
    shared.set(bytes.subarray(0, starts[count]));
    return new BpeRanks(shared, rankStart, rankEnd, ranks, hashes);
  }

  /**
   * This table with more tokens (as {@linkcode fromTokens} takes them; a later equal byte string wins), built
   * without hashing this table's tokens again: its slots are copied, or re-inserted by their stored hashes when
   * the new tokens would fill more than half of them.
   */
  withTokens(bytes: Uint8Array, starts: Int32Array, ranks: Int32Array): BpeRanks {
    const count = ranks.length;
    const base = this.#bytes.length;
    const all = new Uint8Array(new SharedArrayBuffer(base + starts[count]));
    all.set(this.#bytes);
    all.set(bytes.subarray(0, starts[count]), base);
    let maxRank = this.maxRank;
    for (let t = 0; t < count; t++) if (ranks[t] > maxRank) maxRank = ranks[t];
    const rankStart = sharedInt32(maxRank + 1).fill(-1);
    const rankEnd = sharedInt32(maxRank + 1).fill(-1);
    rankStart.set(this.#rankStart);
    rankEnd.set(this.#rankEnd);
    const hashes = new Int32Array(count);
    for (let t = 0; t < count; t++) {
      rankStart[ranks[t]] = base + starts[t];
      rankEnd[ranks[t]] = base + starts[t + 1];
      hashes[t] = hashBytes(bytes, starts[t], starts[t + 1]);
    }
    const old = this.#slots;
    if ((this.size + count) * 4 <= old.length) {
      const slots = sharedInt32(old.length);
      slots.set(old);
      const prebuilt = { bytes: all, rankStart, rankEnd, slots, size: this.size };
      return new BpeRanks(all, rankStart, rankEnd, ranks, hashes, prebuilt);
    }
    const entryRanks = new Int32Array(this.size + count);
    const entryHashes = new Int32Array(this.size + count);
    let e = 0;
    for (let slot = 0; slot < old.length; slot += 2) {
      if (old[slot + 1] === NO_RANK) continue;
      entryHashes[e] = old[slot];
      entryRanks[e++] = old[slot + 1];
    }
    entryRanks.set(ranks, e);
    entryHashes.set(hashes, e);
    return new BpeRanks(all, rankStart, rankEnd, entryRanks, entryHashes);
  }

  static parse(bpeRanks: string): BpeRanks {
    const s = bpeRanks;
    const n = s.length;
    const b64 = BASE64_VALUES;
    // Upper bounds: every token takes at least 4 characters plus a separator.
    const bytes = new Uint8Array(Math.floor((n * 3) / 4) + 4);
    const tokenCapacity = Math.floor(n / 5) + 1;
    const tokenStart = new Int32Array(tokenCapacity + 1);
    const tokenRank = new Int32Array(tokenCapacity);
    const tokenHash = new Int32Array(tokenCapacity);
    let tokens = 0;
    let bytePos = 0;
    let maxRank = -1;
    let i = 0;
    while (i < n) {
      // A line: tag word, offset, tokens.
      let c = s.charCodeAt(i);
      if (c === NEWLINE || c === CARRIAGE_RETURN || c === SPACE) {
        i++;
        continue;
      }
      while (i < n && (c = s.charCodeAt(i)) !== SPACE && c !== NEWLINE) i++;
      if (i >= n || c === NEWLINE) continue; // a line with a tag only: nothing to read
      i++;
      let offset = 0;
      let digits = 0;
      while (i < n && (c = s.charCodeAt(i)) >= DIGIT_0 && c <= DIGIT_9) {
        offset = offset * 10 + (c - DIGIT_0);
        digits++;
        i++;
      }
      if (digits === 0) {
        throw new SyntaxError(
          `BPE rank text has no numeric offset at character ${i}; expected "<tag> <offset> <tokens…>"`,
        );
      }
      let rank = offset;
      while (i < n && (c = s.charCodeAt(i)) !== NEWLINE) {
        if (c === SPACE || c === CARRIAGE_RETURN) {
          i++;
          continue;
        }
        const first = i;
        tokenStart[tokens] = bytePos;
        let h = BPE_HASH_SEED;
        // One 4-character quantum per step: 3 bytes, fewer with "=" padding (only in the last quantum).
        for (;;) {
          if (i + 4 > n) throw badToken(s, first);
          const a = b64[s.charCodeAt(i)];
          const b = b64[s.charCodeAt(i + 1)];
          const c3 = s.charCodeAt(i + 2);
          const c4 = s.charCodeAt(i + 3);
          if ((a | b) < 0) throw badToken(s, first);
          let byte = (a << 2) | (b >> 4);
          bytes[bytePos++] = byte;
          h = Math.imul(h ^ byte, BPE_HASH_PRIME);
          i += 4;
          if (c3 === EQUALS) {
            if (c4 !== EQUALS) throw badToken(s, first);
            break;
          }
          const cc = b64[c3];
          if (cc < 0) throw badToken(s, first);
          byte = ((b & 15) << 4) | (cc >> 2);
          bytes[bytePos++] = byte;
          h = Math.imul(h ^ byte, BPE_HASH_PRIME);
          if (c4 === EQUALS) break;
          const d = b64[c4];
          if (d < 0) throw badToken(s, first);
          byte = ((cc & 3) << 6) | d;
          bytes[bytePos++] = byte;
          h = Math.imul(h ^ byte, BPE_HASH_PRIME);
          if (i >= n) break;
          c = s.charCodeAt(i);
          if (c === SPACE || c === NEWLINE || c === CARRIAGE_RETURN) break;
        }
        if (i < n && (c = s.charCodeAt(i)) !== SPACE && c !== NEWLINE && c !== CARRIAGE_RETURN) {
          throw badToken(s, first);
        }
        tokenRank[tokens] = rank;
        tokenHash[tokens] = finishHash(h);
        if (rank > maxRank) maxRank = rank;
        tokens++;
        rank++;
      }
    }
    tokenStart[tokens] = bytePos;
    const rankStart = sharedInt32(maxRank + 1).fill(-1);
    const rankEnd = sharedInt32(maxRank + 1).fill(-1);
    for (let t = 0; t < tokens; t++) {
      const r = tokenRank[t];
      rankStart[r] = tokenStart[t];
      rankEnd[r] = tokenStart[t + 1];
    }
    const tokenBytes = new Uint8Array(new SharedArrayBuffer(bytePos));
    tokenBytes.set(bytes.subarray(0, bytePos));
    return new BpeRanks(
      tokenBytes,
      rankStart,
      rankEnd,
      tokenRank.subarray(0, tokens),
      tokenHash.subarray(0, tokens),
    );
  }

  /** Rank of the token whose bytes are exactly `bytes[start, end)`, or {@linkcode NO_RANK}. */
  rankOf(bytes: Uint8Array, start: number, end: number): number {
    return this.rankOfHashed(bytes, start, end, hashBytes(bytes, start, end));
  }

  /** {@linkcode rankOf} with the range's {@linkcode hashBytes} already computed. */
  rankOfHashed(bytes: Uint8Array, start: number, end: number, h: number): number {
    const mask = this.#mask;
    const slots = this.#slots;
    let slot = h & mask;
    for (;;) {
      const rank = slots[2 * slot + 1];
      if (rank === NO_RANK) return NO_RANK;
      if (slots[2 * slot] === h && this.#sameBytes(rank, bytes, start, end)) return rank;
      slot = (slot + 1) & mask;
    }
  }

  /** Whether `rank` names a token (decodable). */
  has(rank: number): boolean {
    return Number.isInteger(rank) && rank >= 0 && rank <= this.maxRank && this.#rankStart[rank] >= 0;
  }

  /** Byte length of `rank`'s token; the caller checks {@linkcode has} first. */
  tokenLength(rank: number): number {
    return this.#rankEnd[rank] - this.#rankStart[rank];
  }

  /** Copy `rank`'s bytes into `out` at `at`; returns the position after them. */
  copyToken(rank: number, out: Uint8Array, at: number): number {
    const bytes = this.#bytes;
    const end = this.#rankEnd[rank];
    for (let i = this.#rankStart[rank]; i < end; i++) out[at++] = bytes[i];
    return at;
  }

  /** A read-only view of `rank`'s bytes (no copy). */
  tokenBytes(rank: number): Uint8Array {
    if (!this.has(rank)) throw new RangeError(`Token id ${rank} is not in this vocabulary; pass ids from encode()`);
    return this.#bytes.subarray(this.#rankStart[rank], this.#rankEnd[rank]);
  }

  /**
   * Whether `rank`'s token is exactly `bytes[start, end)` and that is what {@linkcode rankOf} gives for them: a
   * cheap check of a guessed rank (one token's bytes, no hash probe).
   */
  isRankOf(rank: number, bytes: Uint8Array, start: number, end: number): boolean {
    return rank >= 0 && rank <= this.maxRank && this.#rankStart[rank] >= 0 && this.#sameBytes(rank, bytes, start, end);
  }

  #sameBytes(rank: number, bytes: Uint8Array, start: number, end: number): boolean {
    const s = this.#rankStart[rank];
    if (this.#rankEnd[rank] - s !== end - start) return false;
    const own = this.#bytes;
    for (let i = start, j = s; i < end; i++, j++) if (own[j] !== bytes[i]) return false;
    return true;
  }
}

function badToken(text: string, at: number): SyntaxError {
  const end = text.slice(at, at + 40).search(/[ \r\n]|$/);
  return new SyntaxError(
    `BPE rank text has ${JSON.stringify(text.slice(at, at + end))} at character ${at}, which is not padded base64`,
  );
}
