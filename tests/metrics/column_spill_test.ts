import assert from "node:assert/strict";
import { ColumnSpill, scratchFiles } from "../../src/metrics/column_spill.ts";
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

Deno.test("scratch files: several open at once each keep their own blocks, and closing removes each", () => {
  const dir = Deno.makeTempDirSync();
  const failures: string[] = [];
  const factory = scratchFiles(dir, (why) => failures.push(why));
  // Three statistics set their ranges aside in the same read: their blocks interleave.
  const scratches = [factory()!, factory()!, factory()!];
  const offsets: number[][] = [[], [], []];
  for (let block = 0; block < 50; block++) {
    scratches.forEach((s, k) => {
      const at = s.append(new Uint8Array(new Float64Array(1024).fill(k * 1000 + block).buffer));
      assert.notEqual(at, undefined);
      offsets[k].push(at!);
    });
  }
  assert.equal(factory.opened(), 3);
  assert.equal(new Set(Deno.readDirSync(dir).map((e) => e.name)).size, 3, "each scratch needs a file of its own");
  const back = new Float64Array(1024);
  scratches.forEach((s, k) => {
    for (let block = 0; block < 50; block += 7) {
      s.read(offsets[k][block], new Uint8Array(back.buffer));
      assert.ok(back.every((v) => v === k * 1000 + block), `scratch ${k} block ${block}`);
    }
  });
  for (const s of scratches) s.close();
  assert.deepEqual([...Deno.readDirSync(dir)], []);
  assert.deepEqual(failures, []);
  Deno.removeSync(dir);
});
