import assert from "node:assert/strict";
import { ColumnSpill } from "../../src/metrics/column_spill.ts";
import { Float64Column } from "../../src/metrics/float64_column.ts";

function values(count: number): number[] {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: count }, (_, i) => (i % 3 === 0 ? Math.floor(random() * 100) : random() * 1e3));
}

Deno.test("a spill file holds the columns' segments on disk and gives them back exactly; closing removes it", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/columns.spill`;
  const spill = ColumnSpill.open(path);
  const wide = new Float64Column(16, false, spill, 1000);
  const narrow = new Float64Column(16, true, spill, 700);
  const input = values(25_000);
  for (const v of input) {
    wide.push(v);
    narrow.push(v);
  }
  await spill.drain();
  assert.equal(spill.failure, undefined);
  // Every full segment went to the file: 8 bytes per wide value, 4 per narrow one.
  assert.ok(wide.segments >= 20 && narrow.segments >= 30, `${wide.segments} and ${narrow.segments} segments`);
  assert.ok(spill.written >= 24_000 * 8 + 24_000 * 4 * 0.9, `${spill.written} bytes written`);
  assert.equal((await Deno.stat(path)).size, spill.written);
  // Read back from the file (the written segments are no longer held in memory), twice, and at random.
  for (let pass = 0; pass < 2; pass++) {
    assert.deepEqual([...wide.view()], input);
    assert.deepEqual([...narrow.view()], input.map(Math.fround));
  }
  const reader = wide.reader(1);
  for (let k = 0; k < 2000; k++) {
    const i = (k * 7919) % input.length;
    assert.equal(reader.at(i), input[i]);
  }
  await spill.close();
  await assert.rejects(Deno.stat(path), Deno.errors.NotFound);
  await Deno.remove(dir);
});

Deno.test({
  name: "a spill file that cannot be written keeps every value in memory and says why",
  ignore: Deno.build.os !== "linux",
}, async () => {
  // /dev/full accepts the open and fails every write (ENOSPC), as a full disk does.
  const spill = ColumnSpill.open("/dev/full");
  const column = new Float64Column(16, false, spill, 500);
  const input = values(6_000);
  for (const v of input.slice(0, 3_000)) column.push(v);
  await spill.drain();
  assert.match(spill.failure ?? "", /\/dev\/full/);
  for (const v of input.slice(3_000)) column.push(v); // after the failure: kept in memory from the start
  await spill.drain();
  assert.equal(spill.written, 0);
  assert.deepEqual([...column.view()], input);
  await spill.close();
  assert.ok((await Deno.lstat("/dev/full")).isCharDevice, "closing must leave a path that is not its own file alone");
});
