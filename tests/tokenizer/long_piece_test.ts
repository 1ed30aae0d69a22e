/** The part lists of long_piece.ts. */
import assert from "node:assert/strict";
import { PartList } from "../../src/tokenizer/long_piece.ts";

Deno.test("part list room grows at least twofold, so reserving window by window copies each part a few times", () => {
  const list = new PartList();
  let copies = 0;
  for (let w = 0; w < 4096; w++) {
    const before = list.syms;
    list.reserve(list.length + 300);
    if (list.syms !== before) copies += list.length;
    for (let i = 0; i < 300; i++) list.push(w, i);
  }
  assert.equal(list.length, 4096 * 300);
  assert.equal(list.syms[4095 * 300], 4095);
  assert.equal(list.ends[list.length - 1], 299);
  // Growing to the exact size copied every part held at each of the 4,096 windows (~1.8 G copies).
  assert.ok(copies < 2 * list.length, `${copies} parts copied`);
});
