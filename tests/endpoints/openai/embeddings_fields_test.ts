import assert from "node:assert/strict";
import {
  embeddingsBodyForParse,
  embeddingsBytesForParse,
  readEmbeddings,
} from "../../../src/endpoints/openai/embeddings_fields.ts";

const body = (vector: string, space = "") =>
  `{"object":"list","data":[{"object":"embedding","embedding":${space}${vector},"index":0},` +
  `{"object":"embedding","embedding":${space}${vector},"index":1}],"model":"m","usage":{"prompt_tokens":3,"total_tokens":3}}`;

Deno.test("embeddings bodies are read the same with their vectors' numbers left out", () => {
  for (
    const vector of [
      "[0.25,-0.5,0.125]",
      "[ 1 , 2e-3 , -0.0 , 0 , 1E+5 , -12.5e10 ]",
      "[]",
      "[\n  0.1,\n  0.2\n]",
    ]
  ) {
    for (const space of ["", " ", "\n"]) {
      const text = body(vector, space);
      const short = embeddingsBodyForParse(text);
      assert.ok(short.length < text.length || vector === "[]", short);
      assert.deepEqual(readEmbeddings(JSON.parse(short)), readEmbeddings(JSON.parse(text)));
    }
  }
  // base64 vectors are strings: left as they are
  const b64 = body('"AAAAPwAAAL8="');
  assert.equal(embeddingsBodyForParse(b64), b64);
});

Deno.test("a malformed vector, or one that is not a list of numbers, leaves the body whole for JSON.parse", () => {
  for (
    const vector of [
      "[0.1,,0.2]",
      "[01]",
      "[1.]",
      "[.5]",
      "[1e]",
      "[0.1 0.2]",
      "[0.1,]",
      '[0.1,"x"]',
      "[[1]]",
      "[NaN]",
      "[0.1",
    ]
  ) {
    const text = body(vector);
    assert.equal(embeddingsBodyForParse(text), text, vector);
    const valid = vector === '[0.1,"x"]' || vector === "[[1]]";
    if (valid) {
      assert.deepEqual(readEmbeddings(JSON.parse(embeddingsBodyForParse(text))), readEmbeddings(JSON.parse(text)));
    } else assert.throws(() => JSON.parse(text), vector);
  }
});

Deno.test("the bytes path gives the text path's result for every vector shape, well formed or not", () => {
  const utf8 = (text: string) => new TextEncoder().encode(text);
  const vectors = [
    "[0.25,-0.5,0.125]",
    "[1,2e-3,-0.0,0,1E+5,-12.5e10,3e7]",
    "[ 1 , 2 ]",
    "[\n  0.1,\n  0.2\n]",
    "[]",
    "[0.1,,0.2]",
    "[01]",
    "[-]",
    "[1.]",
    "[.5]",
    "[1e]",
    "[1e+]",
    "[0.1 0.2]",
    "[0.1,]",
    '[0.1,"x"]',
    "[[1]]",
    "[NaN]",
    "[0.1",
    '"AAAAPwAAAL8="',
  ];
  for (const vector of vectors) {
    for (const space of ["", " ", "\n"]) {
      // Non-ASCII text before and after the vectors: the cuts must not split a character.
      const text = body(vector, space).replace('"model":"m"', '"model":"mod\u00e8le — 模型"');
      assert.equal(
        embeddingsBytesForParse(utf8(text)),
        embeddingsBodyForParse(text),
        `${vector} ${JSON.stringify(space)}`,
      );
    }
  }
  // The key as a value ("object":"embedding"), a key without an array, and no vectors at all.
  for (const text of ['{"object":"embedding","embedding":null}', '{"a":1}', "", '"embedding"', '{"embedding":[1,2]']) {
    assert.equal(embeddingsBytesForParse(utf8(text)), embeddingsBodyForParse(text), text);
  }
});
