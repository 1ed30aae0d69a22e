import assert from "node:assert/strict";
import { type Line, readLines } from "../../src/dataset/read_lines.ts";

async function linesOf(content: string | Uint8Array): Promise<Line[]> {
  const path = await Deno.makeTempFile({ suffix: ".jsonl" });
  try {
    if (typeof content === "string") await Deno.writeTextFile(path, content);
    else await Deno.writeFile(path, content);
    const lines: Line[] = [];
    for await (const line of readLines(path)) lines.push(line);
    return lines;
  } finally {
    await Deno.remove(path);
  }
}

Deno.test("readLines yields numbered lines for LF and CRLF endings", async () => {
  assert.deepEqual(await linesOf("a\nb\r\n\nc"), [
    { number: 1, text: "a" },
    { number: 2, text: "b" },
    { number: 3, text: "" },
    { number: 4, text: "c" },
  ]);
  assert.deepEqual(await linesOf("x\n"), [{ number: 1, text: "x" }]);
  assert.deepEqual(await linesOf(""), []);
});

Deno.test("readLines joins lines split across read chunks, multi-byte characters included", async () => {
  const lines = Array.from({ length: 3000 }, (_, i) => `{"text": "line ${i} ${"é😀".repeat(i % 50)}"}`);
  const got = await linesOf(lines.join("\r\n") + "\r\n");
  assert.equal(got.length, lines.length);
  got.forEach((line, i) => assert.deepEqual(line, { number: i + 1, text: lines[i] }));
});

Deno.test("readLines drops a UTF-8 byte order mark", async () => {
  const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"text":"hi"}\n')]);
  assert.deepEqual(await linesOf(bytes), [{ number: 1, text: '{"text":"hi"}' }]);
});

Deno.test("readLines closes the file when the reader stops early", async () => {
  const path = await Deno.makeTempFile();
  try {
    await Deno.writeTextFile(path, "1\n2\n3\n");
    for await (const line of readLines(path)) {
      assert.equal(line.text, "1");
      break;
    }
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("readLines rejects a missing file with NotFound", async () => {
  await assert.rejects(async () => {
    for await (const _ of readLines("/definitely/not/here.jsonl")) {
      // nothing
    }
  }, Deno.errors.NotFound);
});
