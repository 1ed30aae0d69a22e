import assert from "node:assert/strict";
import { TurnStamp } from "../../src/timing/turn_stamp.ts";

function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) { /* spin */ }
}

Deno.test("TurnStamp gives reads posted before a turn its first stamp, however long the turn's work", () => {
  const turns = new TurnStamp();
  const a = turns.mark();
  const b = turns.mark();
  const first = turns.stamp(a);
  busy(3);
  assert.equal(turns.stamp(b), first);
});

Deno.test("TurnStamp lets a read posted during the turn stamp its own time", () => {
  const turns = new TurnStamp();
  const first = turns.stamp(turns.mark());
  const postedDuring = turns.mark();
  busy(2);
  const own = turns.stamp(postedDuring);
  assert.ok(own >= first + 2, `a read posted inside the turn borrowed its stamp (${own - first} ms later)`);
});

Deno.test("TurnStamp opens a new turn after the microtask checkpoint", async () => {
  const turns = new TurnStamp();
  const mark = turns.mark();
  const first = turns.stamp(mark);
  await new Promise((r) => setTimeout(r, 2));
  const next = turns.stamp(mark);
  assert.ok(next >= first + 2, `the next turn reused the old stamp (${next - first} ms later)`);
  // The old mark now predates the new turn too, so it shares the new turn's stamp.
  busy(1);
  assert.equal(turns.stamp(mark), next);
});
