/**
 * The ustar archive format (POSIX.1-1988), as much of it as a run bundle needs: regular files with short, flat names.
 * Written here rather than taken from a package because the format is 512-byte blocks with a checksummed header,
 * and a reader that refuses everything else (links, directories, paths) is what keeps a bundle from another machine
 * from writing anywhere: members are read into memory, never extracted.
 *
 * A header block: name (100 bytes), mode, uid, gid (8 each, octal), size (12, octal), mtime (12, octal), checksum
 * (8: the sum of the header's bytes with this field read as spaces, six octal digits, NUL, space), type flag ("0"),
 * link name (100), "ustar\0" "00", owner and group names (32 each), device numbers (8 each), name prefix (155). The
 * member's bytes follow, padded to a whole block; two zero blocks end the archive.
 */

export const TAR_BLOCK = 512;

/** A member name this format writes and reads: a flat file name, no directories, no dot names. */
const MEMBER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** The archive is not a tar archive this reader accepts; the message says where and why. */
export class TarFormatError extends Error {
  override readonly name = "TarFormatError";
}

export interface TarMember {
  readonly name: string;
  readonly bytes: Uint8Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function writeOctal(block: Uint8Array, at: number, width: number, value: number): void {
  // width − 1 octal digits, then NUL (the classic form every tar reads).
  const digits = value.toString(8).padStart(width - 1, "0");
  if (digits.length > width - 1) throw new RangeError(`tar field of ${width} bytes cannot hold ${value}`);
  block.set(encoder.encode(digits), at);
  block[at + width - 1] = 0;
}

function checksum(block: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < TAR_BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i];
  return sum;
}

/** The header block of a regular file `name` of `size` bytes, modified at `mtimeSec` (epoch seconds). */
export function tarHeader(name: string, size: number, mtimeSec: number): Uint8Array {
  if (!MEMBER_NAME.test(name)) throw new RangeError(`tar member name ${JSON.stringify(name)} is not a flat file name`);
  if (!Number.isSafeInteger(size) || size < 0 || size >= 8 ** 11) {
    throw new RangeError(`tar member ${name}: size ${size} is out of range (under 8 GiB)`);
  }
  const block = new Uint8Array(TAR_BLOCK);
  block.set(encoder.encode(name), 0);
  writeOctal(block, 100, 8, 0o644);
  writeOctal(block, 108, 8, 0);
  writeOctal(block, 116, 8, 0);
  writeOctal(block, 124, 12, size);
  writeOctal(block, 136, 12, Math.max(0, Math.floor(mtimeSec)));
  block[156] = 0x30; // "0": a regular file
  block.set(encoder.encode("ustar\x0000"), 257);
  const sum = checksum(block).toString(8).padStart(6, "0");
  block.set(encoder.encode(`${sum}\x00 `), 148);
  return block;
}

/** Zero bytes that pad a member of `size` bytes to a whole block. */
export function tarPadding(size: number): Uint8Array {
  return new Uint8Array((TAR_BLOCK - size % TAR_BLOCK) % TAR_BLOCK);
}

/** The two zero blocks that end an archive. */
export function tarEnd(): Uint8Array {
  return new Uint8Array(2 * TAR_BLOCK);
}

function readOctal(block: Uint8Array, at: number, width: number, field: string, where: string): number {
  const text = decoder.decode(block.subarray(at, at + width)).replace(/[\0 ]+$/, "").replace(/^ +/, "");
  if (!/^[0-7]+$/.test(text)) throw new TarFormatError(`${where}: the ${field} field is not an octal number`);
  return parseInt(text, 8);
}

/**
 * The members of an uncompressed archive, in order.
 * @throws {TarFormatError} for a bad checksum, a member that is not a regular file or has a name with a directory,
 * a duplicate name, or an archive that ends before its members or its end blocks do.
 */
export function readTarArchive(bytes: Uint8Array): TarMember[] {
  const members: TarMember[] = [];
  const seen = new Set<string>();
  let at = 0;
  for (;;) {
    if (at + TAR_BLOCK > bytes.length) {
      throw new TarFormatError(`the archive ends at byte ${bytes.length}, before its end blocks (truncated)`);
    }
    const block = bytes.subarray(at, at + TAR_BLOCK);
    if (block.every((b) => b === 0)) {
      const next = bytes.subarray(at + TAR_BLOCK, at + 2 * TAR_BLOCK);
      if (next.length < TAR_BLOCK || !next.every((b) => b === 0)) {
        throw new TarFormatError(`the archive's end at byte ${at} is not two zero blocks (truncated or damaged)`);
      }
      return members;
    }
    const where = `tar header at byte ${at}`;
    if (readOctal(block, 148, 8, "checksum", where) !== checksum(block)) {
      throw new TarFormatError(`${where}: the checksum does not match (damaged)`);
    }
    const name = decoder.decode(block.subarray(0, 100)).replace(/\0.*$/s, "");
    const prefix = decoder.decode(block.subarray(345, 500)).replace(/\0.*$/s, "");
    const type = block[156];
    if (type !== 0x30 && type !== 0) {
      throw new TarFormatError(`${where}: member ${JSON.stringify(name)} is not a regular file`);
    }
    if (prefix !== "" || !MEMBER_NAME.test(name)) {
      throw new TarFormatError(`${where}: member name ${JSON.stringify(prefix + name)} is not a flat file name`);
    }
    if (seen.has(name)) throw new TarFormatError(`${where}: member ${name} appears twice`);
    seen.add(name);
    const size = readOctal(block, 124, 12, "size", where);
    const start = at + TAR_BLOCK;
    if (start + size > bytes.length) {
      throw new TarFormatError(`member ${name} needs ${size} bytes but the archive ends first (truncated)`);
    }
    members.push({ name, bytes: bytes.subarray(start, start + size) });
    at = start + size + tarPadding(size).length;
  }
}
