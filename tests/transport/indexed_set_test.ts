import assert from "node:assert/strict";
import { IndexedSet } from "../../src/transport/indexed_set.ts";

Deno.test("IndexedSet holds what a Set holds through any order of adds and removes", () => {
  const items = Array.from({ length: 40 }, (_, id) => ({ id, setIndex: -1 }));
  const set = new IndexedSet<{ id: number; setIndex: number }>();
  const ref = new Set<number>();
  let seed = 7;
  const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
  for (let step = 0; step < 20_000; step++) {
    const item = items[Math.floor(rand() * items.length)];
    if (rand() < 0.5) {
      set.add(item);
      ref.add(item.id);
    } else {
      set.delete(item);
      ref.delete(item.id);
    }
    assert.equal(set.size, ref.size);
    assert.equal(set.has(item), ref.has(item.id));
  }
  assert.deepEqual(set.members().map((i) => i.id).sort((a, b) => a - b), [...ref].sort((a, b) => a - b));
  for (const item of items) assert.equal(set.has(item), ref.has(item.id));
});

Deno.test("IndexedSet's members are a copy: removing members while going through them skips none", () => {
  const items = Array.from({ length: 5 }, (_, id) => ({ id, setIndex: -1 }));
  const set = new IndexedSet<{ id: number; setIndex: number }>();
  for (const item of items) set.add(item);
  const seen: number[] = [];
  for (const item of set.members()) {
    seen.push(item.id);
    set.delete(item);
  }
  assert.deepEqual(seen, [0, 1, 2, 3, 4]);
  assert.equal(set.size, 0);
});
