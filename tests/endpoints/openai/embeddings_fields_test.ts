import assert from "node:assert/strict";
import { embeddingsBodyForParse, readEmbeddings } from "../../../src/endpoints/openai/embeddings_fields.ts";

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
