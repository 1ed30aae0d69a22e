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

/** Values of every form in runs: constants long and short, whole numbers, floats, −0, NaN. */
function mixedValues(count: number, seed: number): number[] {
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const out: number[] = [];
  while (out.length < count) {
    const kind = random(), run = 1 + Math.floor(random() * 300);
    const constant = Math.floor(random() * 5);
    for (let i = 0; i < run && out.length < count; i++) {
      out.push(
        kind < 0.3
          ? constant
          : kind < 0.6
          ? Math.floor(random() * 1e6) - 5e5
          : kind < 0.9
          ? random() * 1000
          : kind < 0.95
          ? -0
          : kind < 0.97
          ? 2 ** 40 + i
          : NaN,
      );
    }
  }
  return out;
}

Deno.test("a column with a store gives back every value, in every form and reader, as one without", () => {
  for (const [seed, float32, spillAt] of [[1, false, 64], [2, true, 100], [3, false, 1], [4, false, 5000]] as const) {
    const values = mixedValues(20_000, seed);
    const expected = float32 ? values.map(Math.fround) : values;
    const put: number[] = [];
    const store = {
      put: (data: Float64Array | Float32Array | Int32Array) => (put.push(data.length), { read: () => data }),
    };
    const c = new Float64Column(4, float32, store, spillAt);
    const plain = new Float64Column(4, float32);
    for (const v of values) {
      c.push(v);
      plain.push(v);
    }
    const label = `seed ${seed}, float32 ${float32}, spillAt ${spillAt}`;
    // (With spillAt 1 every run of one value closes as a segment of its own, and nothing is ever buffered.)
    assert.ok(c.segments > 0 && (spillAt === 1 || put.length > 0), `${label}: nothing was stored`);
    assert.ok(put.every((n) => n >= spillAt), `${label}: a segment below spillAt`);
    assert.ok(c.bytes <= Math.max(spillAt, 1024) * 8 * 1.5 + 256, `${label}: ${c.bytes} bytes in memory`);
    assert.equal(c.length, values.length);
    assert.ok(Object.is(c.sum, plain.sum), label);
    const same = (got: ArrayLike<number>, what: string) => {
      assert.equal(got.length, expected.length, `${label}: ${what} length`);
      for (let i = 0; i < got.length; i++) assert.ok(Object.is(got[i], expected[i]), `${label}: ${what} ${i}`);
    };
    same(c.view(), "view");
    const chunks: number[] = [];
    c.forEachChunk((chunk) => chunks.push(...chunk));
    same(chunks, "chunks");
    const reader = c.reader(2);
    same(Array.from({ length: values.length }, (_, i) => reader.at(i)), "reader in order");
    // Out of order: jumps back and forth, as the time-weighted metrics' merge reads requests.
    let s = seed;
    for (let k = 0; k < 5000; k++) {
      const i = (s = (s * 1103515245 + 12345) % 2147483648) % values.length;
      assert.ok(Object.is(reader.at(i), expected[i]), `${label}: reader at ${i}`);
    }
    assert.throws(() => reader.at(values.length), RangeError);
    for (const n of [1, spillAt + 3, 2 * spillAt + 7]) {
      const tail = c.tail(n), want = expected.slice(-n);
      assert.equal(tail.length, want.length, `${label}: tail ${n}`);
      for (let i = 0; i < want.length; i++) assert.ok(Object.is(tail[i], want[i]), `${label}: tail ${n} at ${i}`);
    }
  }
});

Deno.test("a stored column's whole-number and one-value parts are handed out in reused arrays, values exact", () => {
  const store = { put: (data: Int32Array | Float64Array | Float32Array) => ({ read: () => data }) };
  const column = new Float64Column(16, false, store, 100);
  const want: number[] = [];
  // segments of whole numbers, of one repeated value, of floats (none whole), and whole numbers again in memory
  for (let i = 0; i < 4000; i++) {
    const v = i < 1500 ? i * 7 - 500 : i < 2000 ? 42 : i < 2500 ? i / 3 + 0.5 : i;
    column.push(v);
    want.push(v);
  }
  const got: number[] = [];
  const arrays = new Set<ArrayBufferLike>();
  let converted = 0;
  column.forEachChunk((chunk) => {
    if (chunk.length > 0 && chunk[0] % 1 === 0) {
      converted++;
      arrays.add(chunk.buffer);
    }
    for (const v of chunk) got.push(v);
  });
  assert.deepEqual(got, want);
  assert.ok(converted >= 30, `${converted} parts not stored as floats`);
  // a new array only when a part is longer than any before: the first segment, the run of 42s
  assert.ok(arrays.size <= 3, `${arrays.size} arrays for ${converted} parts`);
});
