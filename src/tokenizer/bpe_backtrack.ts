/**
 * Byte-pair merging of a stretch of bytes in time linear in its length, without a heap: a search for the one
 * sequence of tokens in which every two neighbours are "compatible", which is exactly the merge's result.
 *
 * Why it is exact (the argument of GitHub's `bpe` crate README, crates/bpe, "Corollary I–IIIa"; it uses only
 * that the merge picks the lowest-ranked adjacent pair, leftmost among equals, and that a pair's rank depends only
 * on its two parts, so it holds for tiktoken's rank of the joined bytes):
 * - the merge's result for a text is unique, and every token in it merges to itself when merged alone;
 * - two neighbouring tokens `a b` of a result are compatible: merging the bytes of `a` and `b` alone gives `a b`;
 * - a sequence of self-merging tokens in which every neighbour pair is compatible is therefore a valid result, and
 *   being unique, it is the result.
 * So any search that finds such a sequence has found the answer. This one tries, at each position, the longest
 * token first, then shorter ones, and steps back when no token fits (as the crate's "backtracking" encoder does);
 * a position from which nothing fits is remembered, so the search stays linear. When the search gives up (it
 * never has on real text), the caller merges the stretch with its heap instead.
 *
 * Compatibility of `a b` without merging them: until a merge crosses the boundary, each side goes through its own
 * merges, in the order it would alone; only the rightmost part of `a` and the leftmost part of `b` can meet. The
 * boundary pair is merged when its rank is below the next merge of the left side and not above the next merge of
 * the right side (leftmost wins among equals). Each token's own merge order is computed once and kept; answers
 * for pairs are cached.
 *
 * Longest token at a position: a hash set of every prefix of every token (with the token's rank where the prefix
 * is a whole token), walked one byte at a time with the same running hash as {@linkcode BpeRanks}. It is built on
 * first use (a few tens of milliseconds) and only for tokenizers that meet long pieces.
 */
import { PartList } from "./long_piece.ts";
import { BPE_HASH_PRIME, BPE_HASH_SEED, type BpeRanks, finishHash, NO_RANK } from "./bpe_ranks.ts";

/** Prefix-set value: a prefix of some token that is not itself a token. */
const PREFIX_ONLY = -2;
/** Prefix-set value: two tokens share the slot's hash; ask the rank table. */
const AMBIGUOUS = -3;
/** Token-info index: not computed yet; a token that does not merge to itself. */
const UNKNOWN = -1;
const UNUSABLE = -2;
/** Pair-cache entries (direct-mapped, a power of two). */
const PAIR_BITS = 19;
const PAIR_CACHE = 1 << PAIR_BITS;
/** Windows searched directly after the shortcut failed, before it is tried again. */
const COMPOSE_SKIP = 8;
/** Characters whose tokens are kept (slots: twice as many). */
const UNITS = 1 << 14;
/** Matches remembered per walk (the longest first), so that trying a shorter token does not walk again. */
const MAX_MATCHES = 16;

export class BacktrackMerger {
  readonly #ranks: BpeRanks;
  /** The rank table's own arrays: token `r` is `#bytes[#rankStart[r], #rankEnd[r])` (-1 start: no token). */
  readonly #bytes: Uint8Array;
  readonly #rankStart: Int32Array;
  readonly #rankEnd: Int32Array;
  /** The rank table's hash slots (`[2s]` hash, `[2s + 1]` rank or NO_RANK), probed as {@linkcode BpeRanks} does. */
  readonly #rankSlots: Int32Array;
  /**
   * Prefixes of five bytes or more: open addressing, slot `s` = `[2s]` hash, `[2s + 1]` value + 4 (a rank,
   * PREFIX_ONLY or AMBIGUOUS; 0 = empty). Filled one group of tokens at a time (those that begin with the same two
   * bytes), when a walk first reaches that group, so a text pays only for the groups it uses.
   */
  #prefixes = new Int32Array(2 * 4096);
  /** Three- and four-byte prefixes, keyed by their bytes (little-endian), values as in `#prefixes`. */
  readonly #three = new ExactTable();
  readonly #four = new ExactTable();
  #mask = 4095;
  #prefixCount = 0;
  /** The prefix set's values (+ 4) for one- and two-byte prefixes, indexed by the bytes (0 = none); exact. */
  readonly #short = new Int32Array(256 + 65536);
  /** Tokens of three bytes or more grouped by their first two bytes: group `g` is `#grouped[#groupStart[g], #groupStart[g + 1])`. */
  readonly #groupStart = new Int32Array(65536 + 1);
  readonly #grouped: Int32Array;
  /** Whether group `g`'s prefixes are in the prefix set. */
  readonly #groupLoaded = new Uint8Array(65536);
  /** Per rank: offset of its merge order in `#steps`, or UNKNOWN / UNUSABLE. */
  readonly #info: Int32Array;
  /** Per token: `[K, (rank, rightmost part length, leftmost part length) × K]`. */
  #steps = new Int32Array(1 << 16);
  #stepsUsed = 0;
  #orderParts = new Int32Array(256);
  #orderPairs = new Int32Array(256);
  /** Compatibility of pairs of tokens, cached (see {@linkcode #compatible}). */
  readonly #pairs = new Int32Array(2 * PAIR_CACHE);
  #tokens = new Int32Array(1024);
  #starts = new Int32Array(1024);
  #dead = new Uint8Array(1024);
  /** The tokens the last {@linkcode #walk} found, shortest first: ranks and lengths. */
  readonly #matchRanks = new Int32Array(MAX_MATCHES);
  readonly #matchLengths = new Int32Array(MAX_MATCHES);
  /** Characters' own tokens for the shortcut: open addressing by the character's bytes (slot `at` 0 = empty). */
  readonly #unitKeys = new Int32Array(2 * UNITS);
  readonly #unitAt = new Int32Array(2 * UNITS);
  readonly #unitPool = new Int32Array(8 * UNITS);
  #unitUsed = 1;
  #unitCount = 0;
  readonly #unitParts = new PartList();
  #composeSkip = 0;
  /** Per stack entry: 1 when it was taken as part of a character's own tokens. */
  #composedAt = new Uint8Array(1024);
  /** Characters taken as their own tokens (for tests and benchmarks). */
  composed = 0;
  /** Stretches merged, and stretches given up on (for tests and benchmarks). */
  merged = 0;
  gaveUp = 0;

  constructor(ranks: BpeRanks) {
    this.#ranks = ranks;
    const table = ranks.snapshot();
    const bytes = table.bytes;
    const rankStart = table.rankStart;
    const rankEnd = table.rankEnd;
    this.#bytes = bytes;
    this.#rankStart = rankStart;
    this.#rankEnd = rankEnd;
    this.#rankSlots = table.slots;
    const count = rankStart.length;
    const groupStart = this.#groupStart;
    const short = this.#short;
    for (let r = 0; r < count; r++) {
      const at = rankStart[r];
      if (at < 0) continue;
      const length = rankEnd[r] - at;
      // A byte string that appears twice encodes as its later rank; the earlier one is never produced.
      if (length <= 2 && ranks.rankOf(bytes, at, at + length) !== r) continue;
      if (length === 1) short[bytes[at]] = r + 4;
      else if (length === 2) {
        const g = bytes[at] << 8 | bytes[at + 1];
        short[256 + g] = r + 4;
        if (short[bytes[at]] === 0) short[bytes[at]] = PREFIX_ONLY + 4;
      } else {
        const g = bytes[at] << 8 | bytes[at + 1];
        groupStart[g + 1]++;
        if (short[256 + g] === 0) short[256 + g] = PREFIX_ONLY + 4;
        if (short[bytes[at]] === 0) short[bytes[at]] = PREFIX_ONLY + 4;
      }
    }
    for (let g = 0; g < 65536; g++) groupStart[g + 1] += groupStart[g];
    const grouped = new Int32Array(groupStart[65536]);
    const fill = groupStart.slice(0, 65536);
    for (let r = 0; r < count; r++) {
      const at = rankStart[r];
      if (at < 0 || rankEnd[r] - at <= 2) continue;
      grouped[fill[bytes[at] << 8 | bytes[at + 1]]++] = r;
    }
    this.#grouped = grouped;
    this.#info = new Int32Array(count).fill(UNKNOWN);
  }

  /**
   * Puts the prefixes of group `g`'s tokens in the prefix set, from the third byte: three- and four-byte ones by
   * their bytes, longer ones hashed.
   */
  #loadGroup(g: number): void {
    this.#groupLoaded[g] = 1;
    const bytes = this.#bytes;
    const rankStart = this.#rankStart;
    const rankEnd = this.#rankEnd;
    const grouped = this.#grouped;
    for (let k = this.#groupStart[g]; k < this.#groupStart[g + 1]; k++) {
      const r = grouped[k];
      const at = rankStart[r];
      const end = rankEnd[r];
      // Ranks go up within a group: a byte string that appears twice ends up with its later rank (in the hashed
      // part both ranks share a key and the slot says AMBIGUOUS: the rank table decides).
      const key3 = bytes[at] | bytes[at + 1] << 8 | bytes[at + 2] << 16;
      this.#three.insert(key3, end - at === 3 ? r : PREFIX_ONLY);
      if (end - at < 4) continue;
      this.#four.insert(key3 | bytes[at + 3] << 24, end - at === 4 ? r : PREFIX_ONLY);
      let h = BPE_HASH_SEED;
      for (let i = at; i < at + 4; i++) h = Math.imul(h ^ bytes[i], BPE_HASH_PRIME);
      for (let i = at + 4; i < end; i++) {
        h = Math.imul(h ^ bytes[i], BPE_HASH_PRIME);
        this.#insert(finishHash(h), i + 1 === end ? r : PREFIX_ONLY);
      }
    }
  }

  #insert(key: number, value: number): void {
    if ((this.#prefixCount + 1) * 8 > (this.#mask + 1) * 3) this.#grow();
    const slots = this.#prefixes;
    const mask = this.#mask;
    for (let s = key & mask;; s = (s + 1) & mask) {
      const old = slots[2 * s + 1];
      if (old === 0) {
        slots[2 * s] = key;
        slots[2 * s + 1] = value + 4;
        this.#prefixCount++;
        return;
      }
      if (slots[2 * s] === key) {
        const was = old - 4;
        if (was === PREFIX_ONLY) slots[2 * s + 1] = value + 4;
        else if (value !== PREFIX_ONLY && value !== was) slots[2 * s + 1] = AMBIGUOUS + 4;
        return;
      }
    }
  }

  #grow(): void {
    // Four times the slots: a text that needs more groups tends to need many more.
    const old = this.#prefixes;
    const capacity = 2 * old.length;
    const slots = new Int32Array(2 * capacity);
    const mask = capacity - 1;
    for (let s = 0; s < old.length; s += 2) {
      if (old[s + 1] === 0) continue;
      let t = old[s] & mask;
      while (slots[2 * t + 1] !== 0) t = (t + 1) & mask;
      slots[2 * t] = old[s];
      slots[2 * t + 1] = old[s + 1];
    }
    this.#prefixes = slots;
    this.#mask = mask;
  }

  /**
   * Merges `bytes[start, end)` alone: pushes each token's rank and end (absolute) to `out` and returns true, or
   * returns false having pushed nothing (the caller then merges it another way).
   *
   * Tokens are tried at each position, the longest first, and the last one is taken back when nothing fits after
   * it. Where characters stay apart (CJK ideographs, most scripts without spaces, in most vocabularies), a
   * character's own tokens (its merge alone, kept per character) are tried first, as one step: when its first
   * token is compatible with the one before, they are taken without looking at longer tokens; taking one of them
   * back later looks at every token at its position. Whatever path it takes, a sequence in which all neighbours
   * are compatible is the answer; the shortcut is switched off for a while when it keeps missing (letters that
   * merge into words).
   */
  mergeRange(bytes: Uint8Array, start: number, end: number, out: PartList): boolean {
    const n = end - start;
    if (this.#dead.length < n + 1) {
      this.#dead = new Uint8Array(2 * (n + 1));
      this.#tokens = new Int32Array(2 * (n + 1));
      this.#starts = new Int32Array(2 * (n + 1));
      this.#composedAt = new Uint8Array(2 * (n + 1));
    }
    // dead[p]: no sequence goes on from p (p - start); explored[p] = 2: every token at p has been looked at.
    const dead = this.#dead;
    dead.fill(0, 0, n + 1);
    const composedAt = this.#composedAt;
    const tokens = this.#tokens;
    const starts = this.#starts;
    const pool = this.#unitPool;
    const rankStart = this.#rankStart;
    const rankEnd = this.#rankEnd;
    let compose = this.#composeSkip === 0;
    if (!compose) this.#composeSkip--;
    let tries = 0;
    let misses = 0;
    let top = 0;
    let pos = start;
    let limit = n;
    let budget = 8 * n + 64;
    while (pos < end) {
      if (--budget < 0) {
        this.gaveUp++;
        return false;
      }
      if (compose && limit === n && dead[pos - start] < 2 && (bytes[pos] & 0xc0) !== 0x80) {
        // One character: a lead byte and the continuation bytes it announces.
        const b0 = bytes[pos];
        const want = b0 < 0xc0 ? 1 : b0 < 0xe0 ? 2 : b0 < 0xf0 ? 3 : 4;
        let q = pos + 1;
        let key = b0;
        while (q < end && q - pos < want && (bytes[q] & 0xc0) === 0x80) {
          key |= bytes[q] << (8 * (q - pos));
          q++;
        }
        const at = this.#unitTokens(bytes, pos, q, key);
        tries++;
        if (at > 0 && dead[q - start] !== 1 && (top === 0 || this.#compatible(tokens[top - 1], pool[at + 1]))) {
          const count = pool[at];
          let p = pos;
          for (let i = 1; i <= count; i++) {
            const r = this.#unitPool[at + i];
            composedAt[top] = 1;
            tokens[top] = r;
            starts[top++] = p;
            p += rankEnd[r] - rankStart[r];
          }
          this.composed++;
          pos = q;
          continue;
        }
        if (++misses * 4 > tries && tries >= 8) compose = false;
      }
      let found = false;
      // Tokens at `pos` no longer than `limit`, the longest first.
      let m = this.#walk(bytes, pos, Math.min(end, pos + limit));
      while (m > 0) {
        m--;
        const r = this.#matchRanks[m];
        const length = this.#matchLengths[m];
        if (
          dead[pos + length - start] !== 1 && this.#info[r] !== UNUSABLE &&
          (top === 0 ? this.#selfMerging(r) : this.#compatible(tokens[top - 1], r))
        ) {
          composedAt[top] = 0;
          tokens[top] = r;
          starts[top++] = pos;
          pos += length;
          limit = n;
          found = true;
          break;
        }
      }
      if (found) continue;
      // Nothing fits after the current tokens: this position is a dead end; take the last token back.
      if (top === 0) {
        this.gaveUp++;
        return false;
      }
      dead[pos - start] = 1;
      top--;
      if (composedAt[top] === 1) {
        // Taken without looking at longer ones: now look at every token there.
        dead[starts[top] - start] = 2;
        limit = n + 1;
      } else limit = pos - starts[top] - 1;
      pos = starts[top];
    }
    // Missed too often in this window: search the next few directly.
    if (tries > 0 && (!compose || misses * 4 > tries)) this.#composeSkip = COMPOSE_SKIP;
    out.reserve(out.length + top);
    const syms = out.syms;
    const ends = out.ends;
    const at = out.length;
    for (let i = 0; i < top; i++) {
      syms[at + i] = tokens[i];
      ends[at + i] = i + 1 < top ? starts[i + 1] : end;
    }
    out.length = at + top;
    this.merged++;
    return true;
  }

  /** The merge by its definition (lowest-ranked pair first), for a few bytes: pushes the parts' ranks to `out`. */
  #mergeAlone(bytes: Uint8Array, from: number, to: number, out: PartList): boolean {
    const ranks = this.#ranks;
    const parts: number[] = [];
    for (let k = from; k <= to; k++) parts.push(k);
    for (;;) {
      let best = -1;
      let bestRank = 0x7fffffff;
      for (let k = 0; k + 2 < parts.length; k++) {
        const r = ranks.rankOf(bytes, parts[k], parts[k + 2]);
        if (r !== NO_RANK && r < bestRank) {
          bestRank = r;
          best = k;
        }
      }
      if (best < 0) break;
      parts.splice(best + 1, 1);
    }
    for (let k = 0; k + 1 < parts.length; k++) {
      const r = ranks.rankOf(bytes, parts[k], parts[k + 1]);
      if (r === NO_RANK || this.#order(r) < 0) return false;
      out.push(r, parts[k + 1]);
    }
    return true;
  }

  /**
   * Offset in `#unitPool` of the tokens of the character `bytes[from, to)` merged alone (`[count, ranks…]`),
   * computed on first use; -1 when the search cannot merge it.
   */
  #unitTokens(bytes: Uint8Array, from: number, to: number, key: number): number {
    const keys = this.#unitKeys;
    const mask = keys.length - 1;
    let s = Math.imul(key, 0x9e3779b1) >>> 16 & mask;
    for (;;) {
      const at = this.#unitAt[s];
      if (at === 0) break;
      if (keys[s] === key) return at;
      s = (s + 1) & mask;
    }
    const parts = this.#unitParts;
    parts.length = 0;
    if (!this.#mergeAlone(bytes, from, to, parts)) return -1;
    if (this.#unitCount * 2 >= keys.length || this.#unitUsed + parts.length + 1 > this.#unitPool.length) {
      // Full: start over (a text rarely has this many different characters).
      this.#unitKeys.fill(0);
      this.#unitAt.fill(0);
      this.#unitCount = 0;
      this.#unitUsed = 1;
      s = Math.imul(key, 0x9e3779b1) >>> 16 & mask;
    }
    const at = this.#unitUsed;
    const pool = this.#unitPool;
    pool[at] = parts.length;
    for (let i = 0; i < parts.length; i++) pool[at + 1 + i] = parts.syms[i];
    this.#unitUsed = at + 1 + parts.length;
    keys[s] = key;
    this.#unitAt[s] = at;
    this.#unitCount++;
    return at;
  }

  /**
   * The tokens that start at `from` and end at or before `to`, into `#matchRanks` / `#matchLengths` (shortest
   * first, at most the {@linkcode MAX_MATCHES} longest); returns how many.
   */
  #walk(bytes: Uint8Array, from: number, to: number): number {
    const own = this.#bytes;
    const rankStart = this.#rankStart;
    const rankEnd = this.#rankEnd;
    const matchRanks = this.#matchRanks;
    const matchLengths = this.#matchLengths;
    let found = 0;
    if (from >= to) return 0;
    const b0 = bytes[from];
    let value = this.#short[b0];
    if (value === 0) return 0;
    if (value >= 4) {
      matchRanks[0] = value - 4;
      matchLengths[0] = 1;
      found = 1;
    }
    if (from + 1 >= to) return found;
    const b1 = bytes[from + 1];
    const g = b0 << 8 | b1;
    value = this.#short[256 + g];
    if (value === 0) return found;
    if (value >= 4) {
      matchRanks[found] = value - 4;
      matchLengths[found++] = 2;
    }
    if (from + 2 >= to) return found;
    if (this.#groupLoaded[g] === 0) this.#loadGroup(g);
    // Three and four bytes: looked up by the bytes themselves (exact, nothing to compare).
    const b2 = bytes[from + 2];
    const key3 = g >> 8 | (g & 255) << 8 | b2 << 16;
    value = this.#three.get(key3);
    if (value === 0) return found;
    if (value >= 4) {
      matchRanks[found] = value - 4;
      matchLengths[found++] = 3;
    }
    if (from + 3 >= to) return found;
    const b3 = bytes[from + 3];
    value = this.#four.get(key3 | b3 << 24);
    if (value === 0) return found;
    if (value >= 4) {
      matchRanks[found] = value - 4;
      matchLengths[found++] = 4;
    }
    const slots = this.#prefixes;
    const mask = this.#mask;
    let h = Math.imul(Math.imul(BPE_HASH_SEED ^ b0, BPE_HASH_PRIME) ^ b1, BPE_HASH_PRIME);
    h = Math.imul(Math.imul(h ^ b2, BPE_HASH_PRIME) ^ b3, BPE_HASH_PRIME);
    for (let i = from + 4; i < to; i++) {
      h = Math.imul(h ^ bytes[i], BPE_HASH_PRIME);
      const key = finishHash(h);
      let s = key & mask;
      value = 0;
      for (;;) {
        const v = slots[2 * s + 1];
        if (v === 0) break;
        if (slots[2 * s] === key) {
          value = v;
          break;
        }
        s = (s + 1) & mask;
      }
      if (value === 0) break; // no token goes on with these bytes
      if (value === PREFIX_ONLY + 4) continue;
      if (value === AMBIGUOUS + 4) {
        found = this.#record(bytes, from, i + 1, found);
        continue;
      }
      const r = value - 4;
      // Another prefix with the same hash: compare the bytes.
      const at = rankStart[r];
      if (rankEnd[r] - at !== i + 1 - from) continue;
      let same = true;
      for (let j = 0; j <= i - from; j++) {
        if (own[at + j] !== bytes[from + j]) {
          same = false;
          break;
        }
      }
      if (!same) continue;
      if (found === MAX_MATCHES) {
        matchRanks.copyWithin(0, 1);
        matchLengths.copyWithin(0, 1);
        found--;
      }
      matchRanks[found] = r;
      matchLengths[found++] = i + 1 - from;
    }
    return found;
  }

  /** Adds the token `bytes[from, to)` (if it is one) to the walk's matches; returns their count. */
  #record(bytes: Uint8Array, from: number, to: number, found: number): number {
    const r = this.#ranks.rankOf(bytes, from, to);
    if (r === NO_RANK) return found;
    if (found === MAX_MATCHES) {
      this.#matchRanks.copyWithin(0, 1);
      this.#matchLengths.copyWithin(0, 1);
      found--;
    }
    this.#matchRanks[found] = r;
    this.#matchLengths[found] = to - from;
    return found + 1;
  }

  /** Whether token `r` merges to itself when merged alone (computes its merge order on first use). */
  #selfMerging(r: number): boolean {
    return this.#order(r) >= 0;
  }

  /** Offset of `r`'s merge order in `#steps`, or UNUSABLE. */
  #order(r: number): number {
    const known = this.#info[r];
    if (known !== UNKNOWN) return known;
    const ranks = this.#ranks;
    const bytes = ranks.tokenBytes(r);
    const n = bytes.length;
    // The linear merge of bpe_tokenizer.ts (pair ranks kept, two looked up per merge), recording each step's
    // rank and the outer parts' lengths.
    if (this.#orderParts.length < n + 1) {
      this.#orderParts = new Int32Array(2 * (n + 1));
      this.#orderPairs = new Int32Array(2 * (n + 1));
    }
    const parts = this.#orderParts;
    const pairs = this.#orderPairs;
    for (let p = 0; p <= n; p++) parts[p] = p;
    for (let p = 0; p < n - 1; p++) pairs[p] = ranks.rankOf(bytes, p, p + 2);
    const need = this.#stepsUsed + 1 + 3 * n;
    if (need > this.#steps.length) {
      const grown = new Int32Array(Math.max(need, 2 * this.#steps.length));
      grown.set(this.#steps.subarray(0, this.#stepsUsed));
      this.#steps = grown;
    }
    const steps = this.#steps;
    const at = this.#stepsUsed;
    let k = 0;
    let ok = true;
    for (let m = n; m > 1; m--) {
      // m parts: parts[0..m], pairs[0..m-2]
      let best = -1;
      let bestRank = 0x7fffffff;
      for (let p = 0; p < m - 1; p++) {
        const pr = pairs[p];
        if (pr !== NO_RANK && pr < bestRank) {
          bestRank = pr;
          best = p;
        }
      }
      if (best < 0) {
        ok = false;
        break;
      }
      for (let p = best + 1; p < m; p++) parts[p] = parts[p + 1];
      for (let p = best + 1; p < m - 2; p++) pairs[p] = pairs[p + 1];
      pairs[best] = best + 1 < m - 1 ? ranks.rankOf(bytes, parts[best], parts[best + 2]) : NO_RANK;
      if (best > 0) pairs[best - 1] = ranks.rankOf(bytes, parts[best - 1], parts[best + 1]);
      steps[at + 1 + 3 * k] = bestRank;
      steps[at + 2 + 3 * k] = n - parts[m - 2];
      steps[at + 3 + 3 * k] = parts[1];
      k++;
    }
    if (!ok || ranks.rankOf(bytes, 0, n) !== r) {
      this.#info[r] = UNUSABLE;
      return UNUSABLE;
    }
    steps[at] = k;
    this.#stepsUsed = at + 1 + 3 * k;
    this.#info[r] = at;
    return at;
  }

  /** Whether merging the bytes of tokens `a` and `b` alone gives `a b` (cached). */
  #compatible(a: number, b: number): boolean {
    // Two ways per set, the newer first: `[a + 1, b << 1 | answer]` (0 = empty).
    const cache = this.#pairs;
    const h = Math.imul(Math.imul(a, 0x9e3779b1) + b ^ a >>> 7, 0x85ebca77);
    const set = 4 * ((h ^ h >>> 16) >>> (33 - PAIR_BITS));
    const key = b << 1;
    if (cache[set] === a + 1 && (cache[set + 1] & ~1) === key) return (cache[set + 1] & 1) === 1;
    if (cache[set + 2] === a + 1 && (cache[set + 3] & ~1) === key) return (cache[set + 3] & 1) === 1;
    const answer = this.#computeCompatible(a, b);
    cache[set + 2] = cache[set];
    cache[set + 3] = cache[set + 1];
    cache[set] = a + 1;
    cache[set + 1] = key | (answer ? 1 : 0);
    return answer;
  }

  #computeCompatible(a: number, b: number): boolean {
    const oa = this.#order(a);
    const ob = this.#order(b);
    if (oa < 0 || ob < 0) return false;
    const steps = this.#steps;
    const ka = steps[oa];
    const kb = steps[ob];
    let i = 0;
    let j = 0;
    let right = 1; // length of a's rightmost part
    let left = 1; // length of b's leftmost part
    let across = this.#joinedRank(a, right, b, left);
    for (;;) {
      const nextA = i < ka ? steps[oa + 1 + 3 * i] : 0x7fffffff;
      const nextB = j < kb ? steps[ob + 1 + 3 * j] : 0x7fffffff;
      if (across !== NO_RANK && across < nextA && across <= nextB) return false;
      if (i === ka && j === kb) return true;
      if (nextA <= nextB) {
        const r = steps[oa + 2 + 3 * i++];
        if (r === right) continue;
        right = r;
      } else {
        const l = steps[ob + 3 + 3 * j++];
        if (l === left) continue;
        left = l;
      }
      across = this.#joinedRank(a, right, b, left);
    }
  }

  /** The rank of the last `right` bytes of token `a` followed by the first `left` bytes of token `b` (no copy). */
  #joinedRank(a: number, right: number, b: number, left: number): number {
    const own = this.#bytes;
    const aEnd = this.#rankEnd[a];
    const bStart = this.#rankStart[b];
    let h = BPE_HASH_SEED;
    for (let i = aEnd - right; i < aEnd; i++) h = Math.imul(h ^ own[i], BPE_HASH_PRIME);
    for (let i = bStart; i < bStart + left; i++) h = Math.imul(h ^ own[i], BPE_HASH_PRIME);
    const key = finishHash(h);
    const slots = this.#rankSlots;
    const mask = slots.length / 2 - 1;
    for (let s = key & mask;; s = (s + 1) & mask) {
      const r = slots[2 * s + 1];
      if (r === NO_RANK) return NO_RANK;
      if (slots[2 * s] !== key) continue;
      const at = this.#rankStart[r];
      if (this.#rankEnd[r] - at !== right + left) continue;
      let same = true;
      for (let k = 0; k < right + left && same; k++) {
        same = own[at + k] === (k < right ? own[aEnd - right + k] : own[bStart + k - right]);
      }
      if (same) return r;
    }
  }
}

/** Open addressing from an exact 32-bit key to a prefix-set value (+ 4; 0 = none), growing as it fills. */
class ExactTable {
  #keys = new Int32Array(4096);
  #values = new Int32Array(4096);
  #count = 0;

  get(key: number): number {
    const keys = this.#keys;
    const values = this.#values;
    const mask = keys.length - 1;
    for (let s = Math.imul(key, 0x9e3779b1) >>> 8 & mask;; s = (s + 1) & mask) {
      const v = values[s];
      if (v === 0 || keys[s] === key) return v;
    }
  }

  /** Adds `key` with `value` (a rank or PREFIX_ONLY); a rank wins over PREFIX_ONLY. */
  insert(key: number, value: number): void {
    if ((this.#count + 1) * 8 > this.#keys.length * 3) this.#grow();
    const keys = this.#keys;
    const values = this.#values;
    const mask = keys.length - 1;
    for (let s = Math.imul(key, 0x9e3779b1) >>> 8 & mask;; s = (s + 1) & mask) {
      if (values[s] === 0) {
        keys[s] = key;
        values[s] = value + 4;
        this.#count++;
        return;
      }
      if (keys[s] === key) {
        if (value !== PREFIX_ONLY) values[s] = value + 4;
        return;
      }
    }
  }

  #grow(): void {
    const keys = this.#keys;
    const values = this.#values;
    this.#keys = new Int32Array(4 * keys.length);
    this.#values = new Int32Array(4 * keys.length);
    this.#count = 0;
    for (let s = 0; s < keys.length; s++) if (values[s] !== 0) this.insert(keys[s], values[s] - 4);
  }
}
