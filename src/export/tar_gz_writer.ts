/**
 * Writes a gzip-compressed ustar archive (`base/tar_archive.ts`) of in-memory and on-disk members, streamed through
 * the runtime's `CompressionStream("gzip")`: a member file is read in chunks, never whole, so an archive of a long
 * run's requests costs little memory.
 */
import { tarEnd, tarHeader, tarPadding } from "../base/tar_archive.ts";

/** A member: its bytes, or a file to copy in. */
export type TarGzMember =
  | { readonly name: string; readonly bytes: Uint8Array }
  | { readonly name: string; readonly file: string };

/** Writes `members` in order to `path` (created or truncated). Rejects with the first read or write error. */
export async function writeTarGz(path: string, members: readonly TarGzMember[], mtimeMs = Date.now()): Promise<void> {
  const out = await Deno.open(path, { write: true, create: true, truncate: true });
  const gzip = new CompressionStream("gzip");
  const piped = gzip.readable.pipeTo(out.writable);
  const writer = gzip.writable.getWriter();
  const put = (bytes: Uint8Array) => writer.write(bytes as Uint8Array<ArrayBuffer>);
  try {
    for (const member of members) {
      if ("bytes" in member) {
        await put(tarHeader(member.name, member.bytes.length, mtimeMs / 1000));
        await put(member.bytes);
        await put(tarPadding(member.bytes.length));
        continue;
      }
      using file = await Deno.open(member.file, { read: true });
      const size = (await file.stat()).size;
      await put(tarHeader(member.name, size, mtimeMs / 1000));
      let copied = 0;
      const chunk = new Uint8Array(256 * 1024);
      for (;;) {
        const n = await file.read(chunk);
        if (n === null) break;
        copied += n;
        if (copied > size) break;
        await put(chunk.slice(0, n));
      }
      // A file that changed size while copied would make the archive lie about its member.
      if (copied !== size) throw new Error(`${member.file} changed size while it was archived`);
      await put(tarPadding(size));
    }
    await put(tarEnd());
    await writer.close();
  } catch (err) {
    await writer.abort(err).catch(() => {});
    await piped.catch(() => {});
    throw err;
  }
  await piped;
}
