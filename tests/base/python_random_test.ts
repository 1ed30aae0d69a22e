import assert from "node:assert/strict";
import { PythonRandom } from "../../src/base/python_random.ts";

// Values printed by CPython 3.11 (`random.Random(seed)`).
Deno.test("PythonRandom draws CPython's numbers for the same seed", () => {
  const r = new PythonRandom(0);
  assert.deepEqual([r.nextUint32(), r.nextUint32(), r.nextUint32()], [3626764237, 1654615998, 3255389356]);
  assert.equal(new PythonRandom(2n ** 40n + 5n).nextUint32(), 2166296868);
});

Deno.test("PythonRandom shuffles and draws randrange as CPython does", () => {
  const r = new PythonRandom(0);
  const items = [...Array(10).keys()];
  r.shuffle(items);
  assert.deepEqual(items, [7, 8, 1, 5, 3, 4, 2, 0, 9, 6]);
  assert.deepEqual([r.randrange(7), r.randrange(1000)], [2, 597]);
  const four = [0, 1, 2, 3];
  new PythonRandom(3735928559).shuffle(four);
  assert.deepEqual(four, [3, 2, 1, 0]);
  assert.throws(() => r.randrange(0), RangeError);
});
