import { deepStrictEqual } from "node:assert/strict";
import { type SseMessage, SseStream } from "../../src/transport/sse_stream.ts";

const enc = new TextEncoder();

async function collect(chunks: readonly string[], now: () => number): Promise<SseMessage[]> {
  const source = ReadableStream.from(chunks.map((c) => enc.encode(c)));
  const out: SseMessage[] = [];
  for await (const message of source.pipeThrough(new SseStream({ now }))) out.push(message);
  return out;
}

Deno.test("SseStream yields events with the arrival time of the chunk holding their first byte", async () => {
  let clock = 0;
  const messages = await collect(
    [": hi\n\nda", "ta: one\r", "\n\r\nevent: done\ndata: two\n\ndata: cut"],
    () => ++clock,
  );
  deepStrictEqual(messages, [{ data: "one", t: 1 }, { data: "two", event: "done", t: 3 }]);
});

Deno.test("SseStream stamps with performance.now() by default", async () => {
  const before = performance.now();
  const messages = await collect(["data: x\n\n"], () => performance.now());
  const defaults: SseMessage[] = [];
  for await (const m of ReadableStream.from([enc.encode("data: y\n\n")]).pipeThrough(new SseStream())) {
    defaults.push(m);
  }
  deepStrictEqual(messages.length, 1);
  deepStrictEqual(defaults.map((m) => m.data), ["y"]);
  deepStrictEqual(defaults[0].t >= before, true);
});
