import assert from "node:assert/strict";
import { join } from "node:path";
import { LineFileWriter } from "../../src/export/line_file_writer.ts";

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
  for (let i = 0; i < 3000; i++) lines.push(`{"i":${i},"text":"${"héllo ✓ 𝄞 ".repeat(i % 17)}"}`);
  lines.splice(1500, 0, "x".repeat(200_000), "é".repeat(70_000), "");
  assert.equal(await roundTrip(lines, 700), lines.join("\n") + "\n");
  assert.equal(await roundTrip(lines, 1), lines.join("\n") + "\n");
  assert.equal(await roundTrip(lines, 700, true), lines.join("\n") + "\n");
  assert.equal(await roundTrip(lines, 1, true), lines.join("\n") + "\n");
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
