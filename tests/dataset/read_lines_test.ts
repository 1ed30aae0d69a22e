import assert from "node:assert/strict";
import { type Line, readLines } from "../../src/dataset/read_lines.ts";
import { DatasetError } from "../../src/dataset/dataset_error.ts";
import { InterruptedError } from "../../src/base/interrupted_error.ts";

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

Deno.test("readLines joins a line of many chunks once, and keeps a CR split from its LF out of the text", async () => {
  const long = "x".repeat(1_000_000);
  assert.deepEqual(
    (await linesOf(`${long}\r\nnext\r`)).map((l) => [l.number, l.text.length]),
    [[1, 1_000_000], [2, 4]],
  );
});

Deno.test("readLines stops at a line longer than the cap with file:line, without reading the rest", async () => {
  const path = await Deno.makeTempFile({ suffix: ".jsonl" });
  try {
    await Deno.writeTextFile(path, '{"text": "ok"}\n' + "y".repeat(300_000) + "\nmore\n");
    const seen: number[] = [];
    await assert.rejects(
      async () => {
        for await (const line of readLines(path, { maxLineChars: 100_000 })) seen.push(line.number);
      },
      (e: Error) =>
        e instanceof DatasetError && e.line === 2 &&
        e.message.startsWith(`${path}:2: the line is longer than 100000 characters without a line break`),
    );
    assert.deepEqual(seen, [1]);
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("readLines refuses a device or a FIFO: they may never end", async () => {
  await assert.rejects(async () => {
    for await (const _ of readLines("/dev/zero")) { /* never */ }
  }, (e: Error) => e instanceof DatasetError && /\/dev\/zero: is not a regular file/.test(e.message));
});

Deno.test("readLines stops with InterruptedError once its signal aborts", async () => {
  const path = await Deno.makeTempFile({ suffix: ".jsonl" });
  try {
    await Deno.writeTextFile(path, "line\n".repeat(100_000));
    const stop = new AbortController();
    let read = 0;
    await assert.rejects(async () => {
      for await (const _ of readLines(path, { signal: stop.signal })) if (++read === 10) stop.abort();
    }, InterruptedError);
    assert.ok(read < 100_000, `stopped after ${read} lines`);
  } finally {
    await Deno.remove(path);
  }
});
