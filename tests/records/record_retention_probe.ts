/**
 * Run by record_processor_test.ts with `--v8-flags=--expose-gc`: pushes batches of records through a
 * RecordProcessor, then collects garbage and prints how many of the handed-on records are still reachable.
 */
import { RecordProcessor } from "../../src/records/record_processor.ts";
import { makeRecord } from "../metrics/record_fixture.ts";

const gc = (globalThis as unknown as { gc: () => void }).gc;
const refs: WeakRef<object>[] = [];
const p = new RecordProcessor({
  counter: { count: (texts) => Promise.resolve(texts.map(() => 1)), close: () => {} },
  useServerTokenCount: false,
  batchSize: 10,
  onProcessed: (r) => refs.push(new WeakRef(r)),
});
for (let i = 0; i < 2000; i++) p.push(makeRecord({ requestIndex: i, content: `answer ${i}`.repeat(20) }));
await p.drain();
// The processor itself stays alive (a run keeps it until the end): only records may go.
for (let i = 0; i < 5; i++) {
  gc();
  await new Promise((resolve) => setTimeout(resolve, 0));
}
console.log(JSON.stringify({ handedOn: refs.length, alive: refs.filter((r) => r.deref() !== undefined).length }));
if (p === undefined) console.log("unreachable");
