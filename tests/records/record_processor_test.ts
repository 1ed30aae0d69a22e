import { deepStrictEqual } from "node:assert/strict";
import assert from "node:assert/strict";
import { RecordProcessor, type RecordProcessorOptions } from "../../src/records/record_processor.ts";
import type { ProcessedRecord } from "../../src/records/request_record.ts";
import type { TokenCounter } from "../../src/tokenizer/token_counter.ts";
import { makeRecord } from "../metrics/record_fixture.ts";
import { delay } from "../transport/raw_server.ts";
import { IoYield } from "../../src/runtime/io_yield.ts";
import { busy, readyRead } from "../runtime/ready_read.ts";

/** Counts words; remembers each batch it was asked to count. */
class WordCounter implements TokenCounter {
  readonly batches: number[] = [];
  count(texts: readonly string[]): Promise<number[]> {
    this.batches.push(texts.length / 2); // two texts (answer, reasoning) per record
    return Promise.resolve(texts.map((t) => t === "" ? 0 : t.split(" ").length));
  }
  close(): void {}
}

interface Seen {
  readonly id: string;
  readonly outputTokens?: number;
  readonly at: number;
}

function processor(opts: Partial<RecordProcessorOptions>) {
  const seen: Seen[] = [];
  const counter = new WordCounter();
  const p = new RecordProcessor({
    counter,
    useServerTokenCount: false,
    onProcessed: (r: ProcessedRecord) =>
      seen.push({ id: r.xRequestId, outputTokens: r.outputTokens, at: performance.now() }),
    ...opts,
  });
  return { p, seen, counter };
}

const rec = (i: number, content = "a b c") => makeRecord({ xRequestId: `r${i}`, requestIndex: i, content });

async function until(cond: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!cond()) {
    if (performance.now() > end) throw new Error("timed out waiting");
    await delay(1);
  }
}

Deno.test("RecordProcessor hands records on in push order, with counted output tokens, across batches", async () => {
  const { p, seen, counter } = processor({ batchSize: 2 });
  for (let i = 0; i < 5; i++) p.push(rec(i, "w ".repeat(i + 1).trim()));
  await p.drain();
  deepStrictEqual(seen.map((s) => [s.id, s.outputTokens]), [["r0", 1], ["r1", 2], ["r2", 3], ["r3", 4], ["r4", 5]]);
  deepStrictEqual(counter.batches, [2, 2, 1]);
});

Deno.test("RecordProcessor sends a full batch at once, without waiting for a pause", async () => {
  const { p, seen } = processor({ batchSize: 3, quietMs: 60_000, maxDelayMs: 60_000 });
  for (let i = 0; i < 3; i++) p.push(rec(i));
  await until(() => seen.length === 3);
  await p.drain();
});

Deno.test("RecordProcessor sends a batch once no record has come for quietMs", async () => {
  const { p, seen } = processor({ quietMs: 1, maxDelayMs: 60_000 });
  p.push(rec(0));
  await until(() => seen.length === 1);
  await p.drain();
});

Deno.test("RecordProcessor holds a batch while records keep coming, up to maxDelayMs", async () => {
  const { p, seen } = processor({ quietMs: 100, maxDelayMs: 300 });
  const firstAt = performance.now();
  p.push(rec(0));
  // A record every ~5 ms never leaves 100 ms of quiet: only the cap sends the first batch.
  for (let i = 1; seen.length === 0 && performance.now() - firstAt < 1_000; i++) {
    await delay(5);
    p.push(rec(i));
  }
  assert.ok(seen[0].at - firstAt >= 300, `first record handed on after ${seen[0].at - firstAt} ms, before maxDelayMs`);
  await p.drain();
  deepStrictEqual(seen.map((s) => s.id), seen.map((_, i) => `r${i}`));
});

Deno.test("RecordProcessor waits for the pause after the newest record, not a fixed time after the first", async () => {
  const { p, seen } = processor({ quietMs: 200, maxDelayMs: 60_000 });
  p.push(rec(0));
  await delay(20);
  const secondAt = performance.now();
  p.push(rec(1));
  await until(() => seen.length === 2);
  // One batch, sent at least quietMs after the second push (a fixed delay after the first would be ~180 ms early).
  assert.ok(seen[0].at - secondAt >= 200, `first record handed on ${seen[0].at - secondAt} ms after the second push`);
  await p.drain();
});

Deno.test("RecordProcessor.drain sends what is pending at once", async () => {
  const { p, seen } = processor({ quietMs: 60_000, maxDelayMs: 60_000 });
  p.push(rec(0));
  p.push(rec(1));
  await p.drain();
  deepStrictEqual(seen.map((s) => s.id), ["r0", "r1"]);
});

Deno.test("RecordProcessor lets a pending socket read complete between slices of handing on", async () => {
  const io = new IoYield();
  const read = await readyRead();
  let handedBefore = 0;
  const p = new RecordProcessor({
    useServerTokenCount: true,
    sliceMs: 0.5,
    yieldToIo: io.wait,
    onProcessed: () => {
      busy(0.1); // metrics and JSONL work for one record
      if (!read.done()) handedBefore++;
    },
  });
  try {
    for (let i = 0; i < 50; i++) p.push(rec(i));
    await p.drain();
    assert.ok(read.done());
    assert.ok(handedBefore >= 1 && handedBefore < 50, `handed on ${handedBefore} of 50 before the read completed`);
  } finally {
    read.close();
    io.close();
  }
});

/** Counts words, each batch only when the test releases it. */
class HeldCounter implements TokenCounter {
  readonly batches: number[] = [];
  readonly #held: (() => void)[] = [];
  count(texts: readonly string[]): Promise<number[]> {
    this.batches.push(texts.length / 2);
    return new Promise((resolve) =>
      this.#held.push(() => resolve(texts.map((t) => t === "" ? 0 : t.split(" ").length)))
    );
  }
  release(): void {
    this.#held.shift()?.();
  }
  close(): void {}
}

Deno.test("RecordProcessor counts a huge answer in a batch of its own and says how far counting is while drained", async () => {
  const counter = new HeldCounter();
  const notices: string[] = [];
  const seen: (number | undefined)[] = [];
  const p = new RecordProcessor({
    counter,
    useServerTokenCount: false,
    onProcessed: (r) => seen.push(r.outputTokens),
    onNotice: (m) => notices.push(m),
    noticeAfterMs: 30,
    noticeEveryMs: 1000,
  });
  p.push(rec(0));
  p.push(rec(1, "x ".repeat(1024 * 1024))); // 2 Mi characters
  p.push(rec(2));
  const drained = p.drain();
  await delay(80);
  deepStrictEqual(counter.batches, [1, 1, 1], "the big one alone, the small ones around it");
  deepStrictEqual(notices, [
    "Counting output tokens: 0 of 3 records counted (0.0 of 2.0 MiB of text), 0 s so far; Ctrl-C writes the " +
    "results without the rest.",
  ]);
  counter.release();
  counter.release();
  counter.release();
  await drained;
  deepStrictEqual(seen, [3, 1024 * 1024 + 1, 3]);
});

Deno.test("RecordProcessor hands records on without counts when the drain's signal aborts", async () => {
  const counter = new HeldCounter();
  const seen: (number | undefined)[] = [];
  const p = new RecordProcessor({ counter, useServerTokenCount: false, onProcessed: (r) => seen.push(r.outputTokens) });
  p.push(rec(0));
  p.push(rec(1, "y ".repeat(1024 * 1024)));
  const stop = new AbortController();
  const drained = p.drain(stop.signal);
  await delay(20);
  counter.release(); // the small one is counted; the big one never is
  await delay(20);
  stop.abort();
  await drained;
  deepStrictEqual(seen, [3, undefined]);
});

Deno.test("RecordProcessor counts a late-built turn's ISL from the whole prompt it carried, failed requests too", async () => {
  const got: ProcessedRecord[] = [];
  const p = new RecordProcessor({
    counter: new WordCounter(),
    useServerTokenCount: false,
    onProcessed: (r) => got.push(r),
  });
  const prompt = { texts: ["one two", "reply three four", "five"], messages: [] };
  p.push(makeRecord({ requestIndex: 0, content: "x y", inputTokens: 1 }));
  p.push(makeRecord({ requestIndex: 1, content: "x", inputTokens: 1, inputPrompt: prompt }));
  p.push(makeRecord({
    requestIndex: 2,
    content: "",
    inputTokens: 1,
    inputPrompt: prompt,
    error: { type: "HTTPError", code: 500, message: "boom" },
  }));
  await p.drain();
  // Joined by one space (AIPerf's bare-text rule): 2 + 3 + 1 words; the prompt is dropped once counted.
  deepStrictEqual(got.map((r) => [r.isl, r.outputTokens, r.inputPrompt]), [
    [1, 2, undefined],
    [6, 1, undefined],
    [6, undefined, undefined],
  ]);
});

Deno.test("RecordProcessor renders a late-built prompt's messages with the chat template when given one", async () => {
  const got: ProcessedRecord[] = [];
  const p = new RecordProcessor({
    counter: new WordCounter(),
    useServerTokenCount: false,
    renderInput: (messages) => messages.map((m) => `<${m.role}> ${m.content}`).join(" ") + " <assistant>",
    onProcessed: (r) => got.push(r),
  });
  const messages = [{ role: "user", content: "a b" }, { role: "assistant", content: "c" }, {
    role: "user",
    content: "d",
  }];
  p.push(makeRecord({ content: "x", inputPrompt: { texts: ["a b", "c", "d"], messages } }));
  await p.drain();
  assert.equal(got[0].isl, 8); // 4 words + 3 role tags + the generation prompt
});

Deno.test("RecordProcessor keeps no record once it is handed on (a run's memory does not grow with its length)", async () => {
  const probe = new URL("./record_retention_probe.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--v8-flags=--expose-gc", probe],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const { handedOn, alive } = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n")[0]);
  assert.equal(handedOn, 2000);
  assert.ok(alive <= 10, `${alive} of ${handedOn} handed-on records still reachable`);
});

Deno.test("RecordProcessor counts a short text once and takes its count from then on; long texts always go to the counter", async () => {
  const sent: string[] = [];
  const counter: TokenCounter = {
    count(texts) {
      sent.push(...texts);
      return Promise.resolve(texts.map((t) => t === "" ? 0 : t.split(" ").length));
    },
    close() {},
  };
  const seen: [string, number | undefined, number | undefined][] = [];
  const p = new RecordProcessor({
    counter,
    useServerTokenCount: false,
    batchSize: 7,
    onProcessed: (r) => seen.push([r.xRequestId, r.outputTokens, r.reasoningTokens]),
  });
  const long = "w ".repeat(20).trim(); // 39 chars: past what is remembered
  const contents = [" key", " mom", "a b", long, "x y z"];
  // More distinct short texts than the table holds, so it starts over on the way.
  const many = Array.from({ length: 5000 }, (_, i) => `t${i} u`);
  const all = [...Array.from({ length: 700 }, (_, i) => contents[i % contents.length]), ...many, ...many.slice(0, 50)];
  for (let i = 0; i < all.length; i++) {
    p.push(rec(i, all[i]));
    if (i % 7 === 6) await p.drain(); // batch by batch, each counted before the next
  }
  await p.drain();
  deepStrictEqual(seen, all.map((c, i) => [`r${i}`, c.split(" ").length, 0]));
  // The first 700: after the first batch (7 records, 2 texts each), only the long text went to the counter.
  const first = sent.slice(0, sent.indexOf("t0 u"));
  deepStrictEqual(new Set(first.slice(14)), new Set([long]));
  assert.equal(first.filter((t) => t === long).length, 140);
});
