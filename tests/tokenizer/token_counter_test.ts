import assert from "node:assert/strict";
import {
  createTokenCounter,
  InlineTokenCounter,
  startTokenCounter,
  type TokenCounter,
  WorkerTokenCounter,
} from "../../src/tokenizer/token_counter.ts";
import { loadBuiltinTokenizer } from "../../src/tokenizer/builtin_tokenizer.ts";

const FIXTURE_DIR = new URL("../fixtures/tiny_bpe/", import.meta.url).pathname;
const builtin = await loadBuiltinTokenizer();
const TEXTS = ["Hello, world!", "", "The quick brown fox jumps over the lazy dog.", "日本語 😀 <|endoftext|>"];
const EXPECTED = TEXTS.map((text) => builtin.encode(text).length);

async function withCounter(counter: TokenCounter, body: (counter: TokenCounter) => Promise<void>): Promise<void> {
  try {
    await body(counter);
  } finally {
    counter.close();
  }
}

Deno.test("InlineTokenCounter counts each text with the tokenizer", async () => {
  await withCounter(new InlineTokenCounter(builtin), async (counter) => {
    assert.deepEqual(await counter.count(TEXTS), EXPECTED);
    assert.deepEqual(await counter.count([]), []);
  });
});

Deno.test("InlineTokenCounter rejects after close", async () => {
  const counter = new InlineTokenCounter(builtin);
  counter.close();
  counter.close();
  await assert.rejects(counter.count(["x"]), /token counter is closed/);
});

Deno.test("WorkerTokenCounter counts in a worker with the builtin tokenizer", async () => {
  await withCounter(new WorkerTokenCounter("builtin"), async (counter) => {
    assert.deepEqual(await counter.count(TEXTS), EXPECTED);
  });
});

Deno.test("WorkerTokenCounter answers many calls made in one tick, each with its own counts", async () => {
  await withCounter(new WorkerTokenCounter("builtin"), async (counter) => {
    const calls = Array.from({ length: 200 }, (_, i) => counter.count([TEXTS[i % TEXTS.length], " word".repeat(i)]));
    const results = await Promise.all(calls);
    results.forEach((counts, i) => assert.deepEqual(counts, [EXPECTED[i % TEXTS.length], i], `call ${i}`));
  });
});

Deno.test("WorkerTokenCounter accepts counts before the worker is ready and across ticks", async () => {
  const counter = new WorkerTokenCounter("builtin");
  await withCounter(counter, async () => {
    const early = counter.count(["one two three"]);
    assert.equal(await counter.ready, "builtin");
    assert.deepEqual(await early, [3]);
    assert.deepEqual(await counter.count(["four"]), [1]);
  });
});

Deno.test("WorkerTokenCounter loads a Hugging Face tokenizer from a local directory", async () => {
  const counter = new WorkerTokenCounter(FIXTURE_DIR);
  await withCounter(counter, async () => {
    assert.equal(await counter.ready, FIXTURE_DIR);
    assert.deepEqual(await counter.count(["hello world"]), [2]);
  });
});

Deno.test("WorkerTokenCounter rejects a failing count and keeps serving the next ones", async () => {
  await withCounter(new WorkerTokenCounter("builtin"), async (counter) => {
    const bad = counter.count([null as unknown as string]);
    const good = counter.count(["hello world"]);
    await assert.rejects(bad, /^Error: Token counting failed: /);
    assert.deepEqual(await good, [2]);
  });
});

Deno.test("WorkerTokenCounter reports a tokenizer that cannot load to every caller", async () => {
  const counter = new WorkerTokenCounter("no-such-org/no-such-model");
  await withCounter(counter, async () => {
    const pending = counter.count(["x"]);
    await assert.rejects(counter.ready, /neither a local file or directory nor in the Hugging Face cache/);
    await assert.rejects(pending, /neither a local file or directory nor in the Hugging Face cache/);
    await assert.rejects(counter.count(["y"]), /neither a local file or directory nor in the Hugging Face cache/);
  });
});

Deno.test("WorkerTokenCounter close rejects pending and later counts", async () => {
  const counter = new WorkerTokenCounter("builtin");
  const pending = counter.count(["never answered"]);
  counter.close();
  counter.close();
  await assert.rejects(pending, /token counter is closed/);
  await assert.rejects(counter.count(["x"]), /token counter is closed/);
});

Deno.test("createTokenCounter builds a ready worker counter by default", async () => {
  await withCounter(await createTokenCounter("builtin"), async (counter) => {
    assert.ok(counter instanceof WorkerTokenCounter);
    assert.deepEqual(await counter.count(TEXTS), EXPECTED);
  });
});

Deno.test("createTokenCounter builds an inline counter when asked", async () => {
  await withCounter(await createTokenCounter("builtin", { inWorker: false }), async (counter) => {
    assert.ok(counter instanceof InlineTokenCounter);
    assert.deepEqual(await counter.count(TEXTS), EXPECTED);
  });
});

Deno.test("createTokenCounter rejects with the load error for an unknown tokenizer", async () => {
  await assert.rejects(createTokenCounter("Org/Model"), /Tokenizer "Org\/Model" is neither a local file or directory/);
  await assert.rejects(
    createTokenCounter("Org/Model", { inWorker: false }),
    /Tokenizer "Org\/Model" is neither a local file or directory/,
  );
});

Deno.test("token counter workers never lose their init message when many start at once", async () => {
  // Regression: the worker entry loads its role module with awaits; an init message arriving meanwhile was
  // dropped and `ready` never settled. Each counter must now become ready (and count) every time.
  const counters = Array.from({ length: 8 }, () => new WorkerTokenCounter("builtin"));
  try {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("a token counter worker never became ready")), 30_000);
    });
    await Promise.race([Promise.all(counters.map((c) => c.ready)), timeout]).finally(() => clearTimeout(timer));
    const counts = await Promise.all(counters.map((c) => c.count(["hello world"])));
    for (const c of counts) assert.deepStrictEqual(c, [2]);
  } finally {
    for (const c of counters) c.close();
  }
});

Deno.test("WorkerTokenCounter loading at the first count loads nothing before it, then counts the same", async () => {
  const counter = new WorkerTokenCounter("builtin", undefined, "first-count");
  await withCounter(counter, async () => {
    assert.equal(counter.loading, false);
    const counts = counter.count(TEXTS);
    assert.equal(counter.loading, true);
    assert.deepEqual(await counts, EXPECTED);
    assert.equal(await counter.ready, "builtin");
    assert.deepEqual(await counter.count(["four"]), [1]);
  });
});

Deno.test("WorkerTokenCounter loading at the first count reports a tokenizer that cannot load to that count", async () => {
  const counter = new WorkerTokenCounter("no-such-org/no-such-model", undefined, "first-count");
  await withCounter(counter, async () => {
    assert.equal(counter.loading, false);
    await assert.rejects(counter.count(["x"]), /no-such-org\/no-such-model/);
    await assert.rejects(counter.ready, /no-such-org\/no-such-model/);
  });
});

Deno.test("WorkerTokenCounter loading at the first count closes at once when nothing was counted", async () => {
  const counter = new WorkerTokenCounter("builtin", undefined, "first-count");
  counter.close();
  assert.equal(counter.loading, false);
  await assert.rejects(counter.ready, /token counter is closed/);
  await assert.rejects(counter.count(["x"]), /token counter is closed/);
});

Deno.test("startTokenCounter returns a counter at once that loads on load() and counts like the tokenizer", async () => {
  const started = startTokenCounter("builtin", { load: "first-count", workers: 2 });
  try {
    await started.load();
    const results = await Promise.all(TEXTS.map((t) => started.count([t])));
    assert.deepEqual(results.flat(), EXPECTED);
  } finally {
    started.close();
  }
  await assert.rejects(started.count(["x"]), /token counter is closed/);
});

Deno.test("startTokenCounter's load() rejects with the load error", async () => {
  const started = startTokenCounter("no-such-org/no-such-model", { load: "first-count" });
  try {
    await assert.rejects(started.load(), /no-such-org\/no-such-model/);
  } finally {
    started.close();
  }
});
