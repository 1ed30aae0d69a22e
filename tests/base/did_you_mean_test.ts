import assert from "node:assert/strict";
import { didYouMean, didYouMeanHint, editDistance } from "../../src/base/did_you_mean.ts";

Deno.test("editDistance counts a swap of neighbours as one edit", () => {
  assert.equal(editDistance("concurrency", "concurrency"), 0);
  assert.equal(editDistance("concurency", "concurrency"), 1);
  assert.equal(editDistance("strema", "stream"), 1);
  assert.equal(editDistance("", "abc"), 3);
});

Deno.test("didYouMean returns only the closest names and nothing for far-off input", () => {
  const names = ["--concurrency", "--request-count", "--request-rate", "--streaming"];
  assert.deepEqual(didYouMean("--concurency", names), ["--concurrency"]);
  assert.deepEqual(didYouMean("--request-rat", names), ["--request-rate"]);
  assert.deepEqual(didYouMean("--banana", names), []);
  assert.deepEqual(didYouMean("--request-c", names), ["--request-count"], "a truncated name matches by prefix");
  assert.equal(didYouMeanHint("--streming", names), " did you mean '--streaming'?");
  assert.equal(didYouMeanHint("--banana", names), "");
});
