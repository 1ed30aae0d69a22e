import assert from "node:assert/strict";
import { scanTokenizerJson } from "../../src/tokenizer/hf_bpe_scan.ts";
import { type HfBpeMerges, mergesFromList, vocabFromObject } from "../../src/tokenizer/hf_bpe_model_data.ts";
import {
  buildVocabTable,
  MergeChainer,
  resolveMerges,
  SymbolResolver,
  UNRESOLVED,
} from "../../src/tokenizer/hf_bpe_resolved_merges.ts";
import { readHfBpeSpec } from "../../src/tokenizer/hf_bpe_spec.ts";
import { buildHfBpeTables } from "../../src/tokenizer/hf_bpe_tables.ts";

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
  const stored = scanned.merges as HfBpeMerges; // no resolver given: stored as bytes
  assert.equal(stored.count, merges.count);
  assert.deepEqual([...stored.bounds.subarray(0, 3 * merges.count)], [...merges.bounds]);
  assert.deepEqual([...stored.flags.subarray(0, merges.count)], [...merges.flags]);
  assert.deepEqual([...stored.bytes], [...merges.bytes]);
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

Deno.test("a repeated vocabulary key keeps its later id in the built tables, as JSON.parse does", () => {
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
  assert.deepEqual([...buildHfBpeTables(parsed.spec, /./gu).pairs!], [...tables.pairs!]);
});

const resolving = { onVocab: (v: Parameters<typeof buildVocabTable>[0]) => new SymbolResolver(buildVocabTable(v)) };
const chaining = { onVocab: (v: Parameters<typeof buildVocabTable>[0]) => new MergeChainer(buildVocabTable(v)) };

Deno.test("merges resolved while they are read equal merges read whole and resolved after", () => {
  // Sides and joins outside the vocabulary ("q", "zz", "ab c"), outside the alphabet ("日"), entries that name no
  // pair, a duplicate pair, and both merge forms.
  const vocab = `{"a": 0, "b": 1, "ab": 2, "c": 3, "abc": 4, "Ġ": 5, "t": 6, "Ġt": 7, "z": 8}`;
  for (
    const merges of [
      `["a b", "ab c", "q b", "z z", "zz z", "日 a", "nospace", "Ġ t", "a b", "b c"]`,
      `[["a", "b"], ["ab", "c"], ["q", "b"], ["z", "z"], ["日", "a"], ["Ġ", "t"], ["a", "b"]]`,
    ]
  ) {
    const text = doc(vocab, merges, `"pre_tokenizer": {"type": "ByteLevel"}, "added_tokens": []`);
    const streamed = scanTokenizerJson(encode(text), resolving)!;
    const parsed = JSON.parse(text);
    const whole = resolveMerges(
      mergesFromList(parsed.model.merges),
      buildVocabTable(vocabFromObject(parsed.model.vocab)),
    );
    assert.ok("lefts" in streamed.merges);
    const r = streamed.merges;
    assert.deepEqual([...r.lefts], [...whole.lefts]);
    assert.deepEqual([...r.rights], [...whole.rights]);
    assert.deepEqual([...r.results], [...whole.results]);
    assert.deepEqual([...r.misses.indexes], [...whole.misses.indexes]);
    assert.deepEqual([...r.misses.bytes], [...whole.misses.bytes]);
    assert.ok(r.misses.count > 0 && r.lefts.includes(UNRESOLVED), "the document has strings outside the vocabulary");
    // And the tables built from either are the same, extra symbols included.
    const fromStream = readHfBpeSpec(streamed.json, {}, streamed);
    const fromParse = readHfBpeSpec(parsed);
    assert.ok("spec" in fromStream && "spec" in fromParse);
    const a = buildHfBpeTables(fromStream.spec, /./gu);
    const b = buildHfBpeTables(fromParse.spec, /./gu);
    assert.deepEqual([...a.pairs!], [...b.pairs!]);
    assert.deepEqual([...a.outIds], [...b.outIds]);
    assert.deepEqual([...a.symbols.bytes], [...b.symbols.bytes]);
    assert.deepEqual([...a.symbols.rankStart], [...b.symbols.rankStart]);
  }
});

Deno.test("a merge too long for the scratch buffer sends the file to JSON.parse", () => {
  const long = "a".repeat(70_000);
  const text = doc(`{"a": 0}`, `["a a", "${long} a"]`);
  assert.equal(scanTokenizerJson(encode(text), resolving), undefined);
  assert.ok(scanTokenizerJson(encode(text)) !== undefined, "without resolving, any length is read");
});

Deno.test("chained merges file each merge under the token it joins into, latest first", () => {
  const vocab = `{"a": 0, "b": 1, "ab": 2, "c": 3, "abc": 4, "bc": 5}`;
  const text = doc(vocab, `["a b", "ab c", "b c", "a bc", "a b", "日 a", "nospace"]`);
  const merges = scanTokenizerJson(encode(text), chaining)!.merges;
  assert.ok("complete" in merges && merges.complete);
  const chain = (token: number) => {
    const found: [number, number][] = [];
    for (let m = merges.head[token]; m >= 0; m = merges.next[m]) found.push([m, merges.split[m]]);
    return found;
  };
  assert.deepEqual(chain(2), [[4, 1], [0, 1]]); // "ab": the duplicate first
  assert.deepEqual(chain(4), [[3, 1], [1, 2]]); // "abc": "a"+"bc" (split 1), "ab"+"c" (split 2)
  assert.deepEqual(chain(5), [[2, 1]]);
  assert.deepEqual(chain(0), []);
  assert.equal(merges.count, 7);
});

Deno.test("chained merges are incomplete when a merge joins outside the vocabulary or a byte side is no token", () => {
  const joinsOutside = doc(`{"a": 0, "b": 1}`, `["a b"]`);
  const m1 = scanTokenizerJson(encode(joinsOutside), chaining)!.merges;
  assert.ok("complete" in m1 && !m1.complete);
  const byteOutside = doc(`{"a": 0, "qa": 1}`, `["q a"]`);
  const m2 = scanTokenizerJson(encode(byteOutside), chaining)!.merges;
  assert.ok("complete" in m2 && !m2.complete);
});
