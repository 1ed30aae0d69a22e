import assert from "node:assert/strict";
import { readRequestJournal } from "../../src/sim/read_request_journal.ts";
import { redactHeaders, RequestJournal, RequestJournalError } from "../../src/sim/request_journal.ts";
import { startSimServer } from "../../src/sim/sim_server.ts";
import { oracleTokenizer } from "./oracle_tokenizer.ts";
import { chat, sseChunks } from "./sim_test_helpers.ts";

function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

Deno.test("request journal records every request over a real socket: bodies, redacted headers, arrival times", async () => {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/requests.jsonl`;
  const server = await startSimServer({
    port: 0,
    seed: 1,
    ttftMs: 2,
    itlMs: 1,
    apiKey: "sekret",
    recordRequests: file,
    tokenizer: oracleTokenizer(),
  });
  const auth = { authorization: "Bearer sekret" };
  const before = epochNow();
  try {
    const whole = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { ...auth, "Content-Type": "application/json", "X-Trace-Token": "t0k", "X-Run-Label": "nightly" },
      body: JSON.stringify(chat("first", { max_tokens: 3 })),
    });
    assert.equal(whole.status, 200);
    await whole.body?.cancel();
    const streamed = await fetch(`${server.url}/v1/completions?trace=1&b=two`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json", cookie: "session=abc" },
      body: JSON.stringify({ prompt: "second", max_tokens: 2, stream: true }),
    });
    assert.ok(sseChunks(await streamed.text()).done);
    const refused = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "x-api-key": "sekret" },
      body: JSON.stringify(chat("third")),
    });
    assert.equal(refused.status, 401);
    await refused.body?.cancel();
    const missing = await fetch(`${server.url}/nowhere`, { method: "POST", body: "plain words, not JSON" });
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
    await (await fetch(`${server.url}/health`)).text();
  } finally {
    await server.close();
  }
  const after = epochNow();

  const entries = await readRequestJournal(file);
  assert.deepEqual(entries.map((e) => `${e.method} ${e.path}`), [
    "POST /v1/chat/completions",
    "POST /v1/completions?trace=1&b=two",
    "POST /v1/chat/completions",
    "POST /nowhere",
    "GET /health",
  ]);
  assert.deepEqual(entries[0].body, chat("first", { max_tokens: 3 }));
  assert.deepEqual(entries[1].body, { prompt: "second", max_tokens: 2, stream: true });
  assert.equal(entries[3].body, "plain words, not JSON");
  assert.equal(entries[4].body, null);

  const h = entries[0].headers;
  assert.equal(h.authorization, "<redacted>");
  assert.equal(h["x-trace-token"], "<redacted>");
  assert.equal(h["x-run-label"], "nightly");
  assert.equal(h["content-type"], "application/json");
  assert.ok(Object.keys(h).every((name) => name === name.toLowerCase()));
  assert.equal(entries[1].headers.cookie, "<redacted>");
  assert.equal(entries[2].headers["x-api-key"], "<redacted>");
  const text = await Deno.readTextFile(file);
  assert.ok(!text.includes("sekret") && !text.includes("t0k") && !text.includes("session=abc"), text);

  let last = before;
  for (const e of entries) {
    assert.ok(e.received_at_ms >= last, `${e.received_at_ms} before ${last}`);
    last = e.received_at_ms;
  }
  assert.ok(last <= after, `${last} after the test's end ${after}`);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("request journal holds every request of a burst once flushed, and again after close", async () => {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/burst.jsonl`;
  const server = await startSimServer({
    port: 0,
    seed: 2,
    ttftMs: 0,
    itlMs: 0,
    recordRequests: file,
    tokenizer: oracleTokenizer(),
  });
  try {
    const ask = (i: number) =>
      fetch(`${server.url}/v1/completions`, {
        method: "POST",
        body: JSON.stringify({ prompt: `request ${i}`, max_tokens: 1 }),
      }).then((r) => r.text());
    await Promise.all(Array.from({ length: 150 }, (_, i) => ask(i)));
    await server.flushJournal();
    const flushed = await readRequestJournal(file);
    assert.equal(flushed.length, 150);
    await Promise.all(Array.from({ length: 50 }, (_, i) => ask(150 + i)));
  } finally {
    await server.close();
  }
  const entries = await readRequestJournal(file);
  assert.equal(entries.length, 200);
  const prompts = new Set(entries.map((e) => (e.body as { prompt: string }).prompt));
  assert.equal(prompts.size, 200);
  for (let i = 1; i < entries.length; i++) assert.ok(entries[i].received_at_ms >= entries[i - 1].received_at_ms);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("request journal keeps arrival order when a later request's body is read first", async () => {
  const dir = await Deno.makeTempDir();
  const journal = await RequestJournal.open(`${dir}/order.jsonl`);
  const slow = Promise.withResolvers<string>();
  journal.record(1000.5, new Request("http://sim/slow", { method: "POST" }), slow.promise);
  journal.record(1001.25, new Request("http://sim/fast?q=1", { method: "POST" }), Promise.resolve('{"a":1}'));
  await journal.flush();
  assert.equal(await Deno.readTextFile(`${dir}/order.jsonl`), "", "nothing is written ahead of an unread body");
  slow.resolve("");
  await journal.close();
  const entries = await readRequestJournal(`${dir}/order.jsonl`);
  assert.deepEqual(entries.map((e) => [e.received_at_ms, e.path, e.body]), [
    [1000.5, "/slow", null],
    [1001.25, "/fast?q=1", { a: 1 }],
  ]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("request journal redacts credentials and every header named like a token, secret or key", () => {
  assert.deepEqual(
    redactHeaders([
      ["Authorization", "Bearer a"],
      ["proxy-authorization", "Basic b"],
      ["x-api-key", "c"],
      ["api-key", "d"],
      ["cookie", "e=1"],
      ["set-cookie", "f=2"],
      ["X-Session-Token", "g"],
      ["x-client-secret", "h"],
      ["x-keyring", "i"],
      ["Content-Type", "application/json"],
      ["user-agent", "infermeter"],
      ["accept", "text/event-stream"],
    ]),
    {
      authorization: "<redacted>",
      "proxy-authorization": "<redacted>",
      "x-api-key": "<redacted>",
      "api-key": "<redacted>",
      cookie: "<redacted>",
      "set-cookie": "<redacted>",
      "x-session-token": "<redacted>",
      "x-client-secret": "<redacted>",
      "x-keyring": "<redacted>",
      "content-type": "application/json",
      "user-agent": "infermeter",
      accept: "text/event-stream",
    },
  );
});

Deno.test("request journal that cannot be opened says which file", async () => {
  await assert.rejects(
    () => RequestJournal.open("/nonexistent-dir-for-journal/requests.jsonl"),
    (e: Error) => e instanceof RequestJournalError && e.message.includes("/nonexistent-dir-for-journal/requests.jsonl"),
  );
});
