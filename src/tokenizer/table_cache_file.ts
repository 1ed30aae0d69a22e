/**
 * The file framing both tokenizer table caches use (rank_cache.ts, hf_bpe_cache.ts): magic (8 bytes), u32 header
 * length, a JSON header, zero padding to a multiple of 8, then the caller's sections. Read in one piece into a
 * SharedArrayBuffer, so the tables can be viewed in place and handed to another thread without a copy; written to a
 * temporary name and renamed, so a concurrent reader never sees half a file. Any problem reads as "no file".
 */

/** A cache file read whole: its bytes (shared), its parsed header, and where the sections start. */
export interface TableFile {
  readonly shared: SharedArrayBuffer;
  readonly length: number;
  readonly header: unknown;
  /** Byte offset of the first section (8-aligned). */
  readonly dataStart: number;
}

/** The file for `key` in `dir`. */
export function cachePath(dir: string, key: string): string {
  return `${dir}${Deno.build.os === "windows" ? "\\" : "/"}${key.replace(/[^A-Za-z0-9._-]/g, "_")}.bin`;
}

/** Reads `path` if it starts with `magic` and is at most `maxBytes`; undefined when absent, unreadable or not ours. */
export function readTableFile(path: string, magic: readonly number[], maxBytes: number): TableFile | undefined {
  let file: Deno.FsFile | undefined;
  try {
    file = Deno.openSync(path, { read: true });
    const length = file.statSync().size;
    if (length < 16 || length > maxBytes) return undefined;
    const shared = new SharedArrayBuffer(length);
    const all = new Uint8Array(shared);
    let read = 0;
    while (read < length) {
      const n = file.readSync(all.subarray(read));
      if (n === null || n === 0) return undefined;
      read += n;
    }
    for (let i = 0; i < magic.length; i++) if (all[i] !== magic[i]) return undefined;
    const headerLength = new DataView(shared).getUint32(8, true);
    if (16 + headerLength > length) return undefined;
    const header: unknown = JSON.parse(new TextDecoder().decode(all.slice(12, 12 + headerLength)));
    return { shared, length, header, dataStart: align8(12 + headerLength) };
  } catch {
    return undefined;
  } finally {
    file?.close();
  }
}

/** Writes `header` and `sections` to `path` under `dir`; resolves false instead of throwing when it cannot. */
export async function writeTableFile(
  dir: string,
  path: string,
  magic: readonly number[],
  header: unknown,
  sections: readonly Uint8Array[],
): Promise<boolean> {
  const tmp = `${path}.${Deno.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  const json = new TextEncoder().encode(JSON.stringify(header));
  const head = new Uint8Array(align8(12 + json.length));
  head.set(magic, 0);
  new DataView(head.buffer).setUint32(8, json.length, true);
  head.set(json, 12);
  try {
    await Deno.mkdir(dir, { recursive: true });
    const file = await Deno.open(tmp, { write: true, create: true, truncate: true });
    try {
      for (const part of [head, ...sections]) {
        let done = 0;
        while (done < part.length) done += await file.write(part.subarray(done));
      }
    } finally {
      file.close();
    }
    await Deno.rename(tmp, path);
    return true;
  } catch {
    await Deno.remove(tmp).catch(() => {});
    return false;
  }
}

/** The bytes of an Int32Array, in place. */
export function asBytes(a: Int32Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

function align8(n: number): number {
  return (n + 7) & ~7;
}
