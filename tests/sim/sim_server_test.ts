import assert from "node:assert/strict";
import { startSimServer } from "../../src/sim/sim_server.ts";
import type { SimOptions } from "../../src/sim/sim_options.ts";
import { oracleTokenizer } from "./oracle_tokenizer.ts";
import type { RawClientJob, RawClientResult } from "./raw_stream_client_worker.ts";
import { chat, type JsonObject, sseChunks, streamTexts } from "./sim_test_helpers.ts";

const PROMPT = "Tell me a story about a lighthouse keeper.";

function start(options: Partial<SimOptions>) {
  return startSimServer({ port: 0, seed: 3, tokenizer: oracleTokenizer(), ...options });
}

function postChat(url: string, body: JsonObject, signal?: AbortSignal): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal,
  });
}

function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

function busyWait(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // Deliberately blocks the event loop the server shares with this test.
  }
}

Deno.test("sim server binds 127.0.0.1 on an ephemeral port and serves over a real socket", async () => {
  const server = await start({ ttftMs: 0, itlMs: 0 });
  try {
    assert.equal(server.hostname, "127.0.0.1");
    assert.ok(server.port > 0);
    assert.equal(server.url, `http://127.0.0.1:${server.port}`);
    const res = await postChat(server.url, chat(PROMPT, { max_tokens: 64, stream: true }));
    const { chunks, done } = sseChunks(await res.text());
    assert.ok(done);
    assert.equal(oracleTokenizer().count(streamTexts(chunks).content), 64);
    assert.equal(server.stats.outputTokensTotal, 64);
  } finally {
    await server.close();
  }
});

Deno.test("sim server streams tokens on the absolute ttft + k*itl schedule", async () => {
  const server = await start({ ttftMs: 60, itlMs: 15, emitSendTimes: true });
  try {
    const t0 = epochNow();
    const res = await postChat(server.url, chat(PROMPT, { max_tokens: 12, stream: true }));
    const { chunks, done } = sseChunks(await res.text());
    const t1 = epochNow();
    assert.ok(done);
    const sent = chunks.slice(1).map((c) => (c.sim_sent_at_ms as number) - t0);
    assert.equal(sent.length, 12);
    for (let k = 0; k < sent.length; k++) {
      const due = 60 + 15 * k;
      // Never meaningfully early; late only by timer granularity and scheduling noise (a busy machine stalls a
      // process for 100+ ms, so the late bound only catches a schedule that is plainly wrong).
      assert.ok(sent[k] >= due - 2, `token ${k} sent at ${sent[k].toFixed(1)} ms, due ${due}`);
      assert.ok(sent[k] <= due + 250, `token ${k} sent at ${sent[k].toFixed(1)} ms, due ${due}`);
    }
    assert.ok(t1 - t0 >= 60 + 15 * 11 - 2);
  } finally {
    await server.close();
  }
});

Deno.test("sim server catches up after a stalled event loop instead of drifting", async () => {
  const server = await start({ ttftMs: 20, itlMs: 10, emitSendTimes: true });
  try {
    const t0 = epochNow();
    const res = await postChat(server.url, chat(PROMPT, { max_tokens: 30, stream: true }));
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    let stalled = false;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (!stalled && text.includes('"content":" ')) {
        stalled = true;
        busyWait(400); // every later token (the last is due at 310 ms) falls due meanwhile
      }
    }
    const sent = sseChunks(text).chunks.slice(1).map((c) => (c.sim_sent_at_ms as number) - t0);
    assert.equal(sent.length, 30);
    // Absolute due times: everything overdue after the stall goes out in one wake-up. A drifting (relative) schedule
    // would still space the remaining tokens 10 ms apart, over more than 250 ms. Load slows both alike, so the test
    // compares the shape, not wall-clock lateness.
    const burst = sent.filter((t) => sent[29] - t < 20).length;
    assert.ok(burst >= 20, `burst of ${burst} tokens: ${sent.map((t) => t.toFixed(0)).join(" ")}`);
  } finally {
    await server.close();
  }
});

Deno.test("sim server in-flight gauges track concurrent slow streams", async () => {
  const server = await start({ ttftMs: 250, itlMs: 1 });
  try {
    const pending = Array.from(
      { length: 25 },
      (_, i) => postChat(server.url, chat(`${PROMPT} ${i}`, { max_tokens: 5, stream: true })).then((r) => r.text()),
    );
    await new Promise((r) => setTimeout(r, 120));
    assert.equal(server.stats.inFlight, 25);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    assert.match(metrics, /^sim_requests_in_flight 25$/m);
    const bodies = await Promise.all(pending);
    for (const body of bodies) assert.ok(sseChunks(body).done);
    assert.equal(server.stats.inFlight, 0);
    assert.equal(server.stats.maxInFlight, 25);
    assert.equal(server.stats.outputTokensTotal, 125);
    const after = await (await fetch(`${server.url}/metrics`)).text();
    assert.match(after, /^sim_requests_in_flight 0$/m);
    assert.match(after, /^sim_requests_max_in_flight 25$/m);
  } finally {
    await server.close();
  }
});

Deno.test("sim server handles two thousand concurrent timed streams", async () => {
  const server = await start({ ttftMs: 1500, itlMs: 50 });
  const worker = new Worker(new URL("./raw_stream_client_worker.ts", import.meta.url), { type: "module" });
  try {
    const result = await new Promise<RawClientResult>((resolve, reject) => {
      worker.onmessage = (e: MessageEvent<RawClientResult>) => resolve(e.data);
      worker.onerror = (e) => reject(new Error(e.message));
      const job: RawClientJob = { port: server.port, count: 2000, batch: 250, maxTokens: 5 };
      worker.postMessage(job);
    });
    assert.equal(result.responses.length, 2000);
    for (const r of result.responses) assert.deepEqual(r, { ok: true, events: 6, done: true });
    assert.equal(server.stats.outputTokensTotal, 10000);
    // Streams last 1.7 s and all are opened within ~50 ms on an idle machine (well within the first stream's life
    // on a loaded 2-core box). A cold server may let a few connects overflow Deno's 511-deep accept queue (1 s SYN
    // retry), so concurrency is checked loosely.
    assert.ok(server.stats.maxInFlight >= 1000, `max in flight ${server.stats.maxInFlight}`);
    assert.ok(result.elapsedMs < 8000, `took ${result.elapsedMs.toFixed(0)} ms`);
  } finally {
    worker.terminate();
    await server.close();
  }
});

Deno.test("sim server frees a stream the client abandons", async () => {
  const server = await start({ ttftMs: 5, itlMs: 20 });
  try {
    const controller = new AbortController();
    const res = await postChat(server.url, chat(PROMPT, { max_tokens: 1000, stream: true }), controller.signal);
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await reader.closed.catch(() => {});
    const deadline = performance.now() + 2000;
    while (server.stats.inFlight > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.equal(server.stats.inFlight, 0);
    assert.ok(server.stats.outputTokensTotal < 1000);
  } finally {
    await server.close();
  }
});

Deno.test("sim server close cuts long streams short after the grace period", async () => {
  const server = await start({ ttftMs: 5, itlMs: 50, shutdownGraceMs: 100 });
  const res = await postChat(server.url, chat(PROMPT, { max_tokens: 1000, stream: true }));
  const bodyText = res.text();
  await new Promise((r) => setTimeout(r, 30));
  const t0 = performance.now();
  await server.close();
  const elapsed = performance.now() - t0;
  const text = await bodyText;
  assert.ok(elapsed < 1500, `close took ${elapsed.toFixed(0)} ms`);
  assert.ok(!text.includes("[DONE]"));
  assert.equal(server.stats.inFlight, 0);
  await server.close(); // idempotent
});

Deno.test("sim server close waits for short in-flight responses to finish", async () => {
  const server = await start({ ttftMs: 80, itlMs: 1, shutdownGraceMs: 2000 });
  const pending = postChat(server.url, chat(PROMPT, { max_tokens: 5 })).then((r) => r.json() as Promise<JsonObject>);
  // Close only once the server is answering it (on a busy machine the request may take a while to arrive).
  while (server.stats.inFlight === 0) await new Promise((r) => setTimeout(r, 2));
  await server.close();
  const body = await pending;
  assert.equal((body.usage as { completion_tokens: number }).completion_tokens, 5);
});
