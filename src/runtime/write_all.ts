/** Writes all of `bytes` to `file`, looping over short writes (`write()` may accept fewer bytes). */
export async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) offset += await file.write(bytes.subarray(offset));
}
