import assert from "node:assert/strict";
import { scanTokenizerJson } from "../../src/tokenizer/hf_bpe_scan.ts";
import { mergesFromList, vocabFromObject } from "../../src/tokenizer/hf_bpe_model_data.ts";

const encode = (s: string) => new TextEncoder().encode(s);

function doc(vocab: string, merges: string, rest = `"normalizer": {"type": "NFC"}, "added_tokens": []`): string {
  return `{ "version": "1.0", ${rest},\n "model": {"type": "BPE", "vocab": ${vocab}, "merges": ${merges}, "ignore_merges": false} }`;
}

/** The scanner's reading must equal the converters' reading of JSON.parse's result. */
function assertSameAsParsed(text: string): void {
  const scanned = scanTokenizerJson(encode(text));
  assert.ok(scanned !== undefined, "the scanner reads this document");
  const parsed = JSON.parse(text);
  const vocab = vocabFromObject(parsed.model.vocab);
  const merges = mergesFromList(parsed.model.merges);
  // Same tokens (order may differ: Object.keys lists integer-like keys first).
  const tokens = (v: typeof vocab) =>
    Array.from(v.ids, (id, t) => `${id}:${v.bytes.subarray(v.starts[t], v.starts[t + 1]).join(",")}`).sort();
  assert.deepEqual(tokens(scanned.vocab), tokens(vocab));
  assert.equal(scanned.merges.count, merges.count);
  assert.deepEqual([...scanned.merges.bounds.subarray(0, 3 * merges.count)], [...merges.bounds]);
  assert.deepEqual([...scanned.merges.flags.subarray(0, merges.count)], [...merges.flags]);
  assert.deepEqual([...scanned.merges.bytes], [...merges.bytes]);
  const { model: _a, ...restScanned } = scanned.json;
  const { model: _b, ...restParsed } = parsed;
  assert.deepEqual(restScanned, restParsed);
  assert.deepEqual(
    { ...(scanned.json.model as object), vocab: undefined, merges: undefined },
    { ...parsed.model, vocab: undefined, merges: undefined },
  );
}

Deno.test("scanTokenizerJson decodes escapes, the byte-level alphabet and string merges as JSON.parse does", () => {
  assertSameAsParsed(doc(
    String
      .raw`{"a": 0, "b": 1, "ab": 2, "\u0120the": 3, "\"q\\": 4, "\u00e9": 5, "ÄĬ": 6, "日本": 7, "x\ny": 8, "0": 9, "ĠĠ": 10, "\/": 11}`,
    String.raw`["a b", "Ġ t", "\u0120 the", "a b c", "nospace", "日 本", " ab", "a\u0020b", "Ä Ĭ", "é ab"]`,
  ));
});

Deno.test("scanTokenizerJson reads pair merges, whitespace and an empty vocabulary", () => {
  assertSameAsParsed(doc(`{ }`, `[ [ "a" , "b" ], ["Ġ", "t"], ["日", "x"], ["a b", "c"] ]`));
  assertSameAsParsed(doc(`{"a":0}`, `[]`, `"added_tokens": [{"id": 0, "content": "<|x|>", "special": true}]`));
});

Deno.test("scanTokenizerJson leaves files it does not read exactly to JSON.parse", () => {
  assert.equal(scanTokenizerJson(encode(doc(`{"a": -1}`, `[]`))), undefined); // negative id
  assert.equal(scanTokenizerJson(encode(doc(`{"a": 1.0}`, `[]`))), undefined); // not a plain integer
  assert.equal(scanTokenizerJson(encode(doc(`{"a": 0}`, `["a b", ["a", "b"]]`))), undefined); // mixed forms
  assert.equal(scanTokenizerJson(encode(doc(`{"a": 0}`, `[["a", "b", "c"]]`))), undefined); // three sides
  assert.equal(scanTokenizerJson(encode(doc(`{"a": 0}`, `["a b"]`) + " x")), undefined); // trailing text
  assert.equal(scanTokenizerJson(encode(doc(`{"a\tb": 0}`, `[]`))), undefined); // raw control character
  assert.equal(scanTokenizerJson(encode(`{"model": {"type": "WordPiece", "vocab": {"a": 0}}}`)), undefined);
  assert.equal(scanTokenizerJson(encode(`{"model": {"vocab": {"a": 0}, "merges": []`)), undefined); // truncated
});

Deno.test("scanTokenizerJson lists a repeated vocabulary key twice, in file order", () => {
  const scanned = scanTokenizerJson(encode(doc(`{"a": 0, "b": 1, "a": 2}`, `[]`)))!;
  assert.deepEqual([...scanned.vocab.ids], [0, 1, 2]);
});

Deno.test("a repeated vocabulary key keeps its later id in the built tables, as JSON.parse does", async () => {
  const { readHfBpeSpec } = await import("../../src/tokenizer/hf_bpe_spec.ts");
  const { buildHfBpeTables } = await import("../../src/tokenizer/hf_bpe_tables.ts");
  const text = doc(`{"a": 0, "b": 1, "a": 2}`, `["a b"]`, `"pre_tokenizer": {"type": "ByteLevel"}, "added_tokens": []`);
  const scanned = scanTokenizerJson(encode(text))!;
  const read = readHfBpeSpec(scanned.json, {}, scanned);
  assert.ok("spec" in read);
  const tables = buildHfBpeTables(read.spec, /./gu);
  assert.equal(tables.outIds[0], -1);
  assert.equal(tables.outIds[2], 2);
  assert.equal(tables.byteSymbols["a".charCodeAt(0)], 2);
  const parsed = readHfBpeSpec(JSON.parse(text));
  assert.ok("spec" in parsed);
  assert.deepEqual([...buildHfBpeTables(parsed.spec, /./gu).pairs], [...tables.pairs]);
});
