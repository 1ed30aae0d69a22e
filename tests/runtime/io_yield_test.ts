import assert from "node:assert/strict";
import { IoYield } from "../../src/runtime/io_yield.ts";
import { busy, readyRead } from "./ready_read.ts";

Deno.test("IoYield: a socket read pending while the thread is busy completes at the next wait, round after round", async () => {
  const io = new IoYield();
  try {
    await io.wait(); // opens the pair
    for (let trial = 0; trial < 5; trial++) {
      const read = await readyRead();
      try {
        let waits = 0;
        while (!read.done() && waits < 50) {
          busy(0.2);
          await io.wait();
          waits++;
        }
        assert.equal(read.done(), true);
        assert.ok(waits <= 2, `trial ${trial}: the read took ${waits} waits`);
      } finally {
        read.close();
      }
    }
  } finally {
    io.close();
  }
});

Deno.test("IoYield: callers waiting at the same time share one round", async () => {
  const io = new IoYield();
  try {
    const a = io.wait();
    const b = io.wait();
    assert.equal(a, b);
    await a;
    const c = io.wait();
    assert.notEqual(c, a);
    await c;
  } finally {
    io.close();
  }
});

Deno.test("IoYield: close releases the pair, also while it is still opening, and later waits still resolve", async () => {
  // The test sanitizers fail this test if a socket or an op were left behind.
  const opening = new IoYield();
  const first = opening.wait();
  opening.close();
  await first;
  await opening.wait();

  const open = new IoYield();
  await open.wait();
  const inFlight = open.wait();
  open.close();
  await inFlight;
  await open.wait();
});
