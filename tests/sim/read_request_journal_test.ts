import assert from "node:assert/strict";
import { parseRequestJournal } from "../../src/sim/read_request_journal.ts";

const LINE = '{"received_at_ms":1.5,"method":"GET","path":"/health","headers":{"accept":"*/*"},"body":null}';

Deno.test("read request journal parses entries in file order, with or without a final newline", () => {
  const second = LINE.replace("1.5", "2.25").replace('"body":null', '"body":{"a":[1]}');
  for (const text of [`${LINE}\n${second}\n`, `${LINE}\n${second}`]) {
    const entries = parseRequestJournal(text);
    assert.deepEqual(entries.map((e) => [e.received_at_ms, e.body]), [[1.5, null], [2.25, { a: [1] }]]);
    assert.deepEqual(entries[0].headers, { accept: "*/*" });
  }
  assert.deepEqual(parseRequestJournal(""), []);
});

Deno.test("read request journal names the first line that is not a journal entry", () => {
  const cases: [string, RegExp][] = [
    [`${LINE}\n{oops`, /^j\.jsonl:2 is not JSON/],
    [`${LINE}\n[1]`, /^j\.jsonl:2 is not a journal entry/],
    [LINE.replace('"received_at_ms":1.5', '"received_at_ms":"1.5"'), /^j\.jsonl:1 has no numeric received_at_ms/],
    [LINE.replace('"path":"/health"', '"path":"health"'), /^j\.jsonl:1 needs a string method and a path/],
    [LINE.replace('{"accept":"*/*"}', '{"accept":1}'), /^j\.jsonl:1 needs headers as an object of strings/],
    [LINE.replace(',"body":null', ""), /^j\.jsonl:1 has no body field/],
  ];
  for (const [text, pattern] of cases) {
    assert.throws(
      () => parseRequestJournal(text, "j.jsonl"),
      (e: Error) => e instanceof SyntaxError && pattern.test(e.message),
    );
  }
});
