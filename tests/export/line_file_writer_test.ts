import assert from "node:assert/strict";
import { join } from "node:path";
import { LINE_CHUNK_BYTES, LineFileWriter } from "../../src/export/line_file_writer.ts";

async function roundTrip(lines: string[], flushEveryLines: number, asBytes = false): Promise<string> {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "out.jsonl");
    const writer = await LineFileWriter.open(path, { flushEveryLines });
    const encoder = new TextEncoder();
    for (const [i, line] of lines.entries()) {
      if (asBytes) writer.writeBytes(encoder.encode(line));
      else writer.writeLine(line);
      // let batches complete now and then, so written chunks are filled again
      if (i % 997 === 0) await writer.flush();
    }
    await writer.close();
    assert.equal(writer.linesWritten, lines.length);
    return await Deno.readTextFile(path);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("line writer keeps every byte across chunk boundaries, multibyte text and oversized lines", async () => {
  const lines: string[] = [];
  // Enough lines to fill several chunks, and lines larger than a chunk.
  for (let i = 0; i < 30_000; i++) lines.push(`{"i":${i},"text":"${"héllo ✓ 𝄞 ".repeat(i % 17)}"}`);
  lines.splice(15_000, 0, "x".repeat(LINE_CHUNK_BYTES + 5), "é".repeat(LINE_CHUNK_BYTES / 2 + 3), "");
  assert.ok(lines.reduce((n, l) => n + l.length, 0) > 4 * LINE_CHUNK_BYTES);
  assert.equal(await roundTrip(lines, 700), lines.join("\n") + "\n");
  // A write per line: a stretch around the large lines.
  const some = lines.slice(14_000, 16_000);
  assert.equal(await roundTrip(some, 1), some.join("\n") + "\n");
  assert.equal(await roundTrip(lines, 700, true), lines.join("\n") + "\n");
  assert.equal(await roundTrip(some, 1, true), some.join("\n") + "\n");
});

Deno.test("line writer with nothing written leaves an empty file", async () => {
  assert.equal(await roundTrip([], 10), "");
});

Deno.test("line writer refuses lines after close", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const writer = await LineFileWriter.open(join(dir, "x.jsonl"));
    writer.writeLine("a");
    await writer.close();
    assert.throws(() => writer.writeLine("b"), /closed/);
    assert.equal(await Deno.readTextFile(join(dir, "x.jsonl")), "a\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("LineFileWriter on a full disk reports the failure once, drops later lines and rejects close", async () => {
  if (Deno.build.os !== "linux") return;
  const failures: unknown[] = [];
  const writer = await LineFileWriter.open("/dev/full", { flushEveryLines: 2, onFailure: (e) => failures.push(e) });
  for (let i = 0; i < 5; i++) writer.writeLine(`line ${i}`);
  await assert.rejects(() => writer.flush(), /No space left on device/);
  for (let i = 0; i < 3; i++) writer.writeLine(`late ${i}`);
  await assert.rejects(() => writer.close(), /No space left on device/);
  assert.equal(failures.length, 1);
  assert.equal(writer.linesWritten, 0);
  assert.equal(writer.linesDropped, 8);
});

Deno.test("line writer hands a batch of lines to the file in one write per chunk", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "out.jsonl");
    const writer = await LineFileWriter.open(path, { flushEveryLines: 500 });
    // 500 JSONL-sized lines (~1 MB): one write, not one per few dozen lines.
    const line = new TextEncoder().encode("r".repeat(2000));
    for (let i = 0; i < 500; i++) writer.writeBytes(line);
    await writer.flush();
    assert.equal(writer.fileWrites, 1);
    // More than a chunk's worth in one batch: a write per chunk.
    const big = await LineFileWriter.open(join(dir, "big.jsonl"), { flushEveryLines: 10_000 });
    const lines = Math.ceil((2.5 * LINE_CHUNK_BYTES) / 2001);
    for (let i = 0; i < lines; i++) big.writeBytes(line);
    await big.close();
    assert.equal(big.fileWrites, 3);
    assert.equal((await Deno.stat(join(dir, "big.jsonl"))).size, lines * 2001);
    await writer.close();
    assert.equal((await Deno.stat(path)).size, 500 * 2001);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
