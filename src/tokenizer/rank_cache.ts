/**
 * On-disk cache of built BPE tables, so that a run after the first on a machine skips parsing the rank text.
 *
 * Why: building o200k_base from js-tiktoken's base64 rank text (import as text, JSON.parse, decode, hash 200k
 * tokens) costs ~45 ms of a ~150 ms start; reading the finished tables back costs a few. Like tiktoken's and
 * Hugging Face's caches, the first run on a machine builds and writes them (off the engine's path), later runs
 * read them. The key names the source package version and this file's format, which change together with any
 * change in the data; a checksum over everything read guards against a truncated or damaged file, and any
 * problem means "no cache": the tables are built from the source as if the file were not there.
 *
 * Location: `$INFERMETER_CACHE_DIR`, else the platform cache directory + `/infermeter`. Set
 * `INFERMETER_CACHE_DIR=off` to never read or write a cache.
 *
 * File layout (little-endian): magic `IMBPE\0\0\x01`, u32 header length, JSON header, zero padding to a
 * multiple of 8, then Int32 rankStart[ranks], Int32 rankEnd[ranks], Int32 slots[slotCount], u8 bytes[byteCount].
 */
import type { BpeRanksSnapshot } from "./bpe_ranks.ts";
import { asBytes, cachePath, readTableFile, writeTableFile } from "./table_cache_file.ts";

const MAGIC = [0x49, 0x4d, 0x42, 0x50, 0x45, 0, 0, 1]; // "IMBPE", format 1

/** What besides the rank tables a BPE tokenizer needs; stored in the header. */
export interface CachedTokenizerData {
  readonly patStr: string;
  readonly specialTokens: Readonly<Record<string, number>>;
  readonly ranks: BpeRanksSnapshot;
}

interface Header {
  readonly key: string;
  readonly patStr: string;
  readonly specialTokens: Record<string, number>;
  readonly ranks: number;
  readonly slotCount: number;
  readonly byteCount: number;
  readonly size: number;
  readonly checksum: number;
}

/** The cache directory, or undefined when caching is off or no home/cache directory is known. */
export function cacheDir(): string | undefined {
  const env = (name: string) => {
    try {
      return Deno.env.get(name) || undefined;
    } catch {
      return undefined; // no env permission
    }
  };
  const explicit = env("INFERMETER_CACHE_DIR");
  if (explicit !== undefined) return explicit === "off" ? undefined : explicit;
  const sep = Deno.build.os === "windows" ? "\\" : "/";
  if (Deno.build.os === "windows") {
    const local = env("LOCALAPPDATA");
    return local ? `${local}${sep}infermeter${sep}cache` : undefined;
  }
  const home = env("HOME");
  if (Deno.build.os === "darwin") return home ? `${home}/Library/Caches/infermeter` : undefined;
  const xdg = env("XDG_CACHE_HOME");
  return xdg ? `${xdg}/infermeter` : home ? `${home}/.cache/infermeter` : undefined;
}

/**
 * The cached tables for `key` in `dir` (null: caching off), in SharedArrayBuffers like freshly built ones (so
 * another thread could be given them without a copy), or undefined when there is no valid cache.
 */
export function readRankCache(key: string, dir: string | null = cacheDir() ?? null): CachedTokenizerData | undefined {
  if (dir === null) return undefined;
  const file = readTableFile(cachePath(dir, key), MAGIC, MAX_FILE_BYTES);
  if (file === undefined) return undefined;
  try {
    const header = file.header as Header;
    if (header.key !== key) return undefined;
    const { shared, dataStart: start } = file;
    const ints = 2 * header.ranks + header.slotCount;
    if (start + 4 * ints + header.byteCount !== file.length) return undefined;
    const words = new Int32Array(shared, start, ints);
    const ranks: BpeRanksSnapshot = {
      rankStart: words.subarray(0, header.ranks),
      rankEnd: words.subarray(header.ranks, 2 * header.ranks),
      slots: words.subarray(2 * header.ranks),
      bytes: new Uint8Array(shared, start + 4 * ints, header.byteCount),
      size: header.size,
    };
    if (checksum(ranks) !== header.checksum) return undefined;
    return { patStr: header.patStr, specialTokens: header.specialTokens, ranks };
  } catch {
    return undefined; // a header that is not ours
  }
}

/**
 * Writes the tables for `key` (to a temporary name, then renamed, so a concurrent reader never sees half a
 * file). Resolves false instead of throwing when the cache cannot be written.
 */
export async function writeRankCache(
  key: string,
  data: CachedTokenizerData,
  dir: string | null = cacheDir() ?? null,
): Promise<boolean> {
  if (dir === null) return false;
  const r = data.ranks;
  if (r.rankEnd.length !== r.rankStart.length || r.slots.length % 2 !== 0) return false;
  const header: Header = {
    key,
    patStr: data.patStr,
    specialTokens: { ...data.specialTokens },
    ranks: r.rankStart.length,
    slotCount: r.slots.length,
    byteCount: r.bytes.length,
    size: r.size,
    checksum: checksum(r),
  };
  return await writeTableFile(dir, cachePath(dir, key), MAGIC, header, [
    asBytes(r.rankStart),
    asBytes(r.rankEnd),
    asBytes(r.slots),
    r.bytes,
  ]);
}

const MAX_FILE_BYTES = 256 * 1024 * 1024;

/**
 * A cheap checksum over the tables: four independent add/xor lanes per word array (~2 ns per word even before
 * the JIT warms up), then the bytes; enough to reject a truncated or damaged file.
 */
function checksum(r: BpeRanksSnapshot): number {
  return checksumTables([r.rankStart, r.rankEnd, r.slots], r.bytes);
}

/** The same checksum over any word arrays and one byte array (for other table caches). */
export function checksumTables(words: readonly Int32Array[], bytes: Uint8Array): number {
  let h = SEED;
  for (const w of words) h = mixWords(h, w);
  return mixBytes(h, bytes);
}

const SEED = 0x9e3779b9 | 0;

function mixWords(seed: number, w: Int32Array): number {
  let a = seed, b = 0, c = 0, d = 0;
  const n = w.length;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    a = (a + w[i]) | 0;
    b = ((b ^ w[i + 1]) + 1) | 0;
    c = (c + w[i + 2]) | 0;
    d = ((d ^ w[i + 3]) + 1) | 0;
  }
  for (; i < n; i++) a = (a + w[i]) | 0;
  return Math.imul(a, 31) ^ Math.imul(b, 37) ^ Math.imul(c, 41) ^ Math.imul(d, 43) ^ n;
}

function mixBytes(h: number, bytes: Uint8Array): number {
  let a = h, b = 0;
  const n = bytes.length;
  let i = 0;
  for (; i + 1 < n; i += 2) {
    a = (a + bytes[i]) | 0;
    b = Math.imul(b ^ bytes[i + 1], 3) | 0;
  }
  for (; i < n; i++) a = (a + bytes[i]) | 0;
  return (a ^ Math.imul(b, 0x01000193) ^ n) | 0;
}
