import assert from "node:assert/strict";
import { readTarArchive, TAR_BLOCK, tarEnd, tarHeader, tarPadding } from "../../src/base/tar_archive.ts";

const text = (s: string) => new TextEncoder().encode(s);

function archive(members: { name: string; bytes: Uint8Array }[]): Uint8Array {
  const parts = members.flatMap((
    m,
  ) => [tarHeader(m.name, m.bytes.length, 1_700_000_000), m.bytes, tarPadding(m.bytes.length)]);
  parts.push(tarEnd());
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

Deno.test("tar archive reads back the members it was written with, sizes on and off block boundaries", () => {
  const members = [
    { name: "a.json", bytes: text("{}") },
    { name: "empty.txt", bytes: new Uint8Array(0) },
    { name: "block.bin", bytes: new Uint8Array(TAR_BLOCK).fill(7) },
  ];
  const read = readTarArchive(archive(members));
  assert.deepEqual(read.map((m) => m.name), ["a.json", "empty.txt", "block.bin"]);
  assert.deepEqual(read.map((m) => [...m.bytes]), members.map((m) => [...m.bytes]));
});

Deno.test("tar header follows ustar: octal size, magic, and the checksum GNU tar computes", () => {
  const h = tarHeader("run.json", 2417, 0);
  assert.equal(new TextDecoder().decode(h.subarray(124, 135)), "00000004561"); // 2417 in octal
  assert.equal(new TextDecoder().decode(h.subarray(257, 265)), "ustar\x0000");
  let sum = 0;
  for (let i = 0; i < TAR_BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i];
  assert.equal(parseInt(new TextDecoder().decode(h.subarray(148, 154)), 8), sum);
});

Deno.test("tar archive refuses a damaged header, a truncated member and a missing end", () => {
  const good = archive([{ name: "a.json", bytes: text("x".repeat(700)) }]);
  const damaged = good.slice();
  damaged[3] ^= 1;
  assert.throws(() => readTarArchive(damaged), /checksum does not match/);
  assert.throws(() => readTarArchive(good.subarray(0, 600)), /needs 700 bytes but the archive ends first/);
  assert.throws(() => readTarArchive(good.subarray(0, good.length - TAR_BLOCK * 2)), /before its end blocks/);
});

Deno.test("tar archive refuses names with directories, links and duplicates", () => {
  assert.throws(() => tarHeader("../x", 1, 0), /not a flat file name/);
  const dir = archive([{ name: "a.json", bytes: text("1") }]);
  dir.set(text("../etc/passwd\0"), 0);
  // Recompute the checksum so only the name is wrong.
  let sum = 0;
  for (let i = 0; i < TAR_BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : dir[i];
  dir.set(text(sum.toString(8).padStart(6, "0") + "\0 "), 148);
  assert.throws(() => readTarArchive(dir), /not a flat file name/);
  const link = archive([{ name: "a.json", bytes: text("1") }]);
  link[156] = 0x32; // symbolic link
  sum = 0;
  for (let i = 0; i < TAR_BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : link[i];
  link.set(text(sum.toString(8).padStart(6, "0") + "\0 "), 148);
  assert.throws(() => readTarArchive(link), /not a regular file/);
  const twice = archive([{ name: "a.json", bytes: text("1") }, { name: "a.json", bytes: text("2") }]);
  assert.throws(() => readTarArchive(twice), /appears twice/);
});
