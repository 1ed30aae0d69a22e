import assert from "node:assert/strict";
import { LineSplitter } from "../../src/report/line_splitter.ts";
import { ReportError } from "../../src/report/report_error.ts";

function split(pieces: readonly string[], maxLineChars?: number): [string, number][] {
  const out: [string, number][] = [];
  const splitter = new LineSplitter("f.jsonl", maxLineChars);
  const visit = (text: string, n: number) => out.push([text, n]);
  for (const p of pieces) splitter.push(p, visit);
  splitter.end(visit);
  return out;
}

Deno.test("LineSplitter: lines across pieces of any size, CRLF, blank lines and a last line without newline", () => {
  const text = "ab\r\ncd\n\nefg";
  const expected: [string, number][] = [["ab", 1], ["cd", 2], ["", 3], ["efg", 4]];
  assert.deepEqual(split([text]), expected);
  assert.deepEqual(split([...text]), expected, "one character at a time");
  assert.deepEqual(split(["ab\r", "\ncd\n", "", "\nefg"]), expected);
  assert.deepEqual(split(["x\n"]), [["x", 1]], "a final newline ends the last line");
});

Deno.test("LineSplitter: a line over the cap is an error naming the file and line, whatever the pieces", () => {
  for (const pieces of [["12345\n1234567890\n"], [..."12345\n1234567890\n"], ["12345\n1234", "567890"]]) {
    assert.throws(
      () => split(pieces, 8),
      (e: unknown) => e instanceof ReportError && /^f\.jsonl:2: the line is longer than 8 characters/.test(e.message),
    );
  }
  // Lines up to the cap pass however much text there is in all: only one line is ever held.
  const many = Array.from({ length: 1000 }, (_, i) => String(i).padStart(8, "0")).join("\n");
  assert.equal(split([...many], 8).length, 1000);
});
