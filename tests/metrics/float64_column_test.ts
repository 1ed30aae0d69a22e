import assert from "node:assert/strict";
import { Float64Column } from "../../src/metrics/float64_column.ts";

Deno.test("a column gives back every value exactly through its forms: one value, whole numbers, floats", () => {
  const c = new Float64Column(4);
  const pushed: number[] = [];
  const push = (v: number) => {
    c.push(v);
    pushed.push(v);
  };
  for (let i = 0; i < 1000; i++) push(7);
  assert.equal(c.bytes, 0); // one value, whatever the count
  assert.deepEqual([...c.view()], pushed);
  push(-3);
  for (let i = 0; i < 100; i++) push(i * 1000);
  assert.ok(c.bytes <= 4 * 1.5 * pushed.length + 64, `${c.bytes} bytes for ${pushed.length} whole numbers`);
  assert.deepEqual([...c.view()], pushed);
  push(2 ** 31); // beyond int32
  push(0.1 + 0.2);
  push(-0);
  push(NaN);
  const back = [...c.view()];
  assert.equal(back.length, pushed.length);
  for (let i = 0; i < back.length; i++) assert.ok(Object.is(back[i], pushed[i]), `value ${i}`);
  assert.equal(c.length, pushed.length);
  assert.deepEqual([...c.tail(3)], pushed.slice(-3));
});

Deno.test("a column of -0 keeps -0, and one of NaN keeps NaN, without a buffer", () => {
  const zeros = new Float64Column();
  zeros.push(-0);
  zeros.push(-0);
  assert.ok(Object.is(zeros.view()[1], -0));
  zeros.push(0); // differs from -0: not whole-number storage (an Int32Array has no -0)
  assert.ok(Object.is(zeros.view()[0], -0) && Object.is(zeros.view()[2], 0));
  const nan = new Float64Column();
  nan.push(NaN);
  nan.push(NaN);
  assert.equal(nan.bytes, 0);
  assert.ok(Number.isNaN(nan.view()[1]));
});

Deno.test("a column's sum and tail follow its values in every form; a float32 column rounds as before", () => {
  const c = new Float64Column(2);
  for (const v of [5, 5, 5, 6, 7.5]) c.push(v);
  assert.equal(c.sum, 28.5);
  assert.deepEqual([...c.tail(10)], [5, 5, 5, 6, 7.5]);
  const f = new Float64Column(2, true);
  f.pushAll([0.1, 1, 1]);
  assert.equal(f.view()[0], Math.fround(0.1));
  assert.equal(f.view().length, 3);
});
