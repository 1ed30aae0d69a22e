import assert from "node:assert/strict";
import { plural } from "../../src/timing/describe_load.ts";

Deno.test("plural groups whole counts by thousands as en-US does and adds s unless one", () => {
  assert.equal(plural(1, "session"), "1 session");
  assert.equal(plural(0, "request"), "0 requests");
  assert.equal(plural(999, "request"), "999 requests");
  assert.equal(plural(1000, "request"), "1,000 requests");
  assert.equal(plural(1_234_567, "request"), "1,234,567 requests");
  assert.equal(plural(-12_000, "token"), "-12,000 tokens");
  for (const n of [7, 12_345, 100_000, 98_765_432_101]) assert.equal(plural(n, "x"), `${n.toLocaleString("en-US")} xs`);
  assert.equal(plural(1.5, "second"), "1.5 seconds");
});
