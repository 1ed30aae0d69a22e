import assert from "node:assert/strict";
import { printable } from "../../src/base/printable.ts";
import { DatasetError } from "../../src/dataset/dataset_error.ts";

Deno.test("printable escapes C0 and C1 controls and DEL, and leaves tabs, line breaks and other text alone", () => {
  assert.equal(printable("plain é 😀\ttab\nline"), "plain é 😀\ttab\nline");
  assert.equal(printable("\x1b[31mred\x1b[0m \x07\r\x7f\u009b2J"), "\\x1b[31mred\\x1b[0m \\x07\\x0d\\x7f\\u009b2J");
});

Deno.test("a DatasetError quoting a dataset line carries no raw escape sequence", () => {
  const e = new DatasetError("in\x1b]0;x\x07.jsonl", 2, 'invalid JSON — the line reads: {"text": "\x1b[2J"');
  assert.ok(!e.message.includes("\x1b") && !e.message.includes("\x07"), e.message);
  assert.match(e.message, /^in\\x1b\]0;x\\x07\.jsonl:2: .*\\x1b\[2J/);
});
