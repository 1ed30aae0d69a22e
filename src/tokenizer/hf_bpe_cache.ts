/**
 * On-disk cache of built {@linkcode HfBpeTables}, so that loading a `tokenizer.json` after the first time on a
 * machine reads finished tables (a few ms) instead of parsing ~10 MB of JSON and hashing every token and merge.
 * Same directory, rules and guarantees as rank_cache.ts (`INFERMETER_CACHE_DIR`, `off` disables; a checksum
 * guards against damage; any problem reads as "no cache").
 *
 * The key names the file by its real path, size and modification time, the tokenizer_config.json's likewise,
 * and this format's version: replacing either file (a new snapshot, an edit) builds anew.
 *
 * File layout (little-endian): magic `IMHFB\0\0\x01`, u32 header length, JSON header (key, meta, section
 * lengths, checksum), zero padding to a multiple of 8, then Int32 sections rankStart, rankEnd, slots, pairs,
 * outIds, byteSymbols, then the symbol bytes.
 */
import type { HfBpeMeta, HfBpeTables } from "./hf_bpe_tables.ts";
import { cacheDir, checksumTables } from "./rank_cache.ts";
import { asBytes, cachePath, readTableFile, writeTableFile } from "./table_cache_file.ts";

const MAGIC = [0x49, 0x4d, 0x48, 0x46, 0x42, 0, 0, 1]; // "IMHFB", format 1
const MAX_FILE_BYTES = 512 * 1024 * 1024;

interface Header {
  readonly key: string;
  readonly meta: HfBpeMeta;
  readonly words: readonly number[];
  readonly byteCount: number;
  readonly size: number;
  readonly checksum: number;
}

/** A short cache key for a tokenizer file and its config (path, size and mtime of each). */
export function hfBpeCacheKey(parts: readonly string[]): string {
  let h1 = 0x811c9dc5, h2 = 0x01000193;
  for (const part of parts) {
    for (let i = 0; i < part.length; i++) {
      const c = part.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995) ^ (h2 >>> 13);
    }
    h1 = Math.imul(h1 ^ 0xff, 0x01000193);
  }
  return `hf-bpe-1-${(h1 >>> 0).toString(16).padStart(8, "0")}${(h2 >>> 0).toString(16).padStart(8, "0")}`;
}

function words(t: HfBpeTables & { pairs: Int32Array }): Int32Array[] {
  return [t.symbols.rankStart, t.symbols.rankEnd, t.symbols.slots, t.pairs, t.outIds, t.byteSymbols];
}

/** The cached tables for `key`, in SharedArrayBuffers, or undefined when there is no valid cache. */
export function readHfBpeCache(key: string, dir: string | null = cacheDir() ?? null): HfBpeTables | undefined {
  if (dir === null) return undefined;
  const file = readTableFile(cachePath(dir, key), MAGIC, MAX_FILE_BYTES);
  if (file === undefined) return undefined;
  try {
    const header = file.header as Header;
    if (header.key !== key || header.words.length !== 6) return undefined;
    const shared = file.shared;
    let at = file.dataStart;
    const total = header.words.reduce((a, b) => a + b, 0);
    if (at + 4 * total + header.byteCount !== file.length) return undefined;
    const sections = header.words.map((n) => {
      const view = new Int32Array(shared, at, n);
      at += 4 * n;
      return view;
    });
    const [rankStart, rankEnd, slots, pairs, outIds, byteSymbols] = sections;
    const tables: HfBpeTables & { pairs: Int32Array } = {
      symbols: { rankStart, rankEnd, slots, bytes: new Uint8Array(shared, at, header.byteCount), size: header.size },
      pairs,
      outIds,
      byteSymbols,
      meta: header.meta,
    };
    if (checksumTables(words(tables), tables.symbols.bytes) !== header.checksum) return undefined;
    return tables;
  } catch {
    return undefined; // a header that is not ours
  }
}

/** Writes the tables for `key` (temporary name, then renamed). Resolves false when it cannot be written. */
export async function writeHfBpeCache(
  key: string,
  tables: HfBpeTables,
  dir: string | null = cacheDir() ?? null,
): Promise<boolean> {
  // Only full tables are cached: chained merges are what a quick first load builds, not what a later one reads.
  if (dir === null || tables.pairs === undefined) return false;
  const sections = words(tables as HfBpeTables & { pairs: Int32Array });
  const header: Header = {
    key,
    meta: tables.meta,
    words: sections.map((w) => w.length),
    byteCount: tables.symbols.bytes.length,
    size: tables.symbols.size,
    checksum: checksumTables(sections, tables.symbols.bytes),
  };
  return await writeTableFile(dir, cachePath(dir, key), MAGIC, header, [
    ...sections.map(asBytes),
    tables.symbols.bytes,
  ]);
}
