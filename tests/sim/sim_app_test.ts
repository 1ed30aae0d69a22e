import assert from "node:assert/strict";
import { oracleTokenizer } from "./oracle_tokenizer.ts";
import {
  CHAT,
  chat,
  COMPLETIONS,
  firstChoice,
  json,
  type JsonObject,
  makeApp,
  post,
  PROMPT,
  sseChunks,
  streamTexts,
  type Usage,
} from "./sim_test_helpers.ts";

Deno.test("sim stream with include_usage ends with a choices-less usage chunk before [DONE]", async () => {
  const { app } = makeApp();
  const tok = oracleTokenizer();
  for (
    const [path, body] of [
      [CHAT, chat(PROMPT, { max_tokens: 12 })],
      [COMPLETIONS, { model: "m", prompt: PROMPT, max_tokens: 12 }],
    ] as const
  ) {
    const res = await post(app, path, { ...body, stream: true, stream_options: { include_usage: true } });
    const { chunks, done } = sseChunks(await res.text());
    assert.ok(done);
    const last = chunks.at(-1)!;
    assert.deepEqual(last.choices, []);
    assert.deepEqual(last.usage, {
      prompt_tokens: tok.count(PROMPT),
      completion_tokens: 12,
      total_tokens: 12 + tok.count(PROMPT),
    });
    const tokenChunks = chunks.slice(0, -1);
    assert.equal(tok.count(streamTexts(tokenChunks).content), 12);
    for (const c of tokenChunks) assert.equal(c.usage, undefined);
    if (path === COMPLETIONS) {
      assert.equal(tokenChunks.length, 12);
      assert.equal(tokenChunks[0].object, "text_completion");
      assert.equal(firstChoice(tokenChunks[11]).finish_reason, "length");
    }
  }
});

Deno.test("sim stream groups tokens per chunk with tokens-per-chunk", async () => {
  const { app } = makeApp({ tokensPerChunk: 4 });
  const tok = oracleTokenizer();
  const res = await post(app, COMPLETIONS, { prompt: PROMPT, max_tokens: 10, stream: true });
  const { chunks } = sseChunks(await res.text());
  assert.deepEqual(chunks.map((c) => tok.count(firstChoice(c).text as string)), [4, 4, 2]);
});

Deno.test("sim max_completion_tokens wins over max_tokens in chat; completions read max_tokens", async () => {
  const { app } = makeApp();
  const a = await json(await post(app, CHAT, chat(PROMPT, { max_completion_tokens: 5, max_tokens: 50 })));
  assert.equal((a.usage as Usage).completion_tokens, 5);
  const b = await json(await post(app, CHAT, chat(PROMPT, { max_tokens: 7 })));
  assert.equal((b.usage as Usage).completion_tokens, 7);
  const c = await json(await post(app, COMPLETIONS, { prompt: PROMPT, max_tokens: 8, max_completion_tokens: 2 }));
  assert.equal((c.usage as Usage).completion_tokens, 8);
});

Deno.test("sim without a max the length is 0.8-1.2x the prompt, at least 16, at most max-default-tokens", async () => {
  const { app } = makeApp({ maxDefaultTokens: 300 });
  const tok = oracleTokenizer();
  const short = await json(await post(app, CHAT, chat("hi")));
  assert.equal((short.usage as Usage).completion_tokens, 16);
  assert.equal(firstChoice(short).finish_reason, "stop");
  for (let i = 0; i < 20; i++) {
    const prompt = `${"word ".repeat(100 + i * 3)}end`;
    const p = tok.count(prompt);
    const body = await json(await post(app, CHAT, chat(prompt)));
    const n = (body.usage as Usage).completion_tokens;
    assert.ok(n >= Math.round(0.8 * p) && n <= Math.round(1.2 * p), `${n} for prompt ${p}`);
    assert.equal(tok.count((firstChoice(body).message as JsonObject).content as string), n);
  }
  const long = await json(await post(app, COMPLETIONS, { prompt: "word ".repeat(2000) }));
  assert.equal((long.usage as Usage).completion_tokens, 300);
  const atLeast = await json(await post(app, CHAT, chat("hi", { min_tokens: 40 })));
  assert.equal((atLeast.usage as Usage).completion_tokens, 40);
});

Deno.test("sim eos-rate stops early after min_tokens; ignore_eos (also in nvext) gives exactly max", async () => {
  const { app } = makeApp({ eosRate: 0.05 });
  const lengths: number[] = [];
  for (let i = 0; i < 60; i++) {
    const body = await json(await post(app, CHAT, chat(`${PROMPT} #${i}`, { max_tokens: 100, min_tokens: 10 })));
    const n = (body.usage as Usage).completion_tokens;
    assert.ok(n >= 10 && n <= 100);
    assert.equal(firstChoice(body).finish_reason, n < 100 ? "stop" : "length");
    lengths.push(n);
  }
  const mean = lengths.reduce((a, b) => a + b, 0) / lengths.length;
  // 10 + Geometric(0.05) failures (mean 19) truncated at 100: mean ~29; generous bounds.
  assert.ok(mean > 18 && mean < 45, `mean ${mean}`);
  for (const extra of [{ ignore_eos: true }, { nvext: { ignore_eos: true } }, { extra_body: { ignore_eos: true } }]) {
    const body = await json(await post(app, CHAT, chat(PROMPT, { max_tokens: 100, ...extra })));
    assert.equal((body.usage as Usage).completion_tokens, 100);
    assert.equal(firstChoice(body).finish_reason, "length");
  }
  const nested = await json(await post(app, CHAT, chat(PROMPT, { max_tokens: 100, nvext: { min_tokens: 100 } })));
  assert.equal((nested.usage as Usage).completion_tokens, 100);
});

Deno.test("sim error-rate answers 500s for a seeded, order-independent subset of requests", async () => {
  const bodies = Array.from({ length: 200 }, (_, i) => chat(`${PROMPT} ${i}`, { max_tokens: 2 }));
  const failing = async (order: readonly JsonObject[], seed: number) => {
    const { app, stats } = makeApp({ errorRate: 30, seed });
    const statuses = await Promise.all(order.map((b) =>
      post(app, CHAT, b).then(async (r) => {
        const text = await r.text();
        if (r.status === 500) {
          const err = (JSON.parse(text) as { error: JsonObject }).error;
          assert.equal(err.code, 500);
          assert.equal(err.type, "server_error");
        }
        return [JSON.stringify(b), r.status] as const;
      })
    ));
    assert.equal(stats.requests(CHAT, 500) + stats.requests(CHAT, 200), order.length);
    return new Set(statuses.filter(([, s]) => s === 500).map(([b]) => b));
  };
  const a = await failing(bodies, 5);
  const b = await failing([...bodies].reverse(), 5);
  assert.ok(a.size > 35 && a.size < 85, `${a.size} errors of 200 at 30 %`);
  assert.deepEqual(b, a);
  const c = await failing(bodies, 6);
  assert.notDeepEqual(c, a);

  // Identical bodies still fail at about the rate asked (repeats are counted, not all-or-nothing).
  const { app } = makeApp({ errorRate: 30, seed: 5 });
  let errors = 0;
  for (let i = 0; i < 200; i++) if ((await post(app, CHAT, bodies[0])).status === 500) errors++;
  assert.ok(errors > 35 && errors < 85, `${errors} errors of 200 repeats`);
});

Deno.test("sim seed makes outputs deterministic; another seed changes them", async () => {
  const text = async (seed: number) => {
    const { app } = makeApp({ seed, ttftJitter: 0.5 });
    const body = await json(await post(app, CHAT, chat(PROMPT, { max_tokens: 30 })));
    return (firstChoice(body).message as JsonObject).content as string;
  };
  assert.equal(await text(42), await text(42));
  assert.notEqual(await text(42), await text(43));
});

Deno.test("sim rejects malformed requests with OpenAI-style 400 errors", async () => {
  const { app, stats } = makeApp();
  const cases: [string, unknown][] = [
    [CHAT, "{not json"],
    [CHAT, "[1, 2]"],
    [CHAT, { model: "m" }],
    [CHAT, { model: "m", messages: [] }],
    [CHAT, { model: "m", messages: [{ content: "no role" }] }],
    [CHAT, { model: "m", messages: [{ role: "user", content: 5 }] }],
    [CHAT, chat("x", { max_tokens: 0 })],
    [CHAT, chat("x", { max_tokens: "5" })],
    [CHAT, chat("x", { max_completion_tokens: 1.5 })],
    [CHAT, chat("x", { max_tokens: 5, min_tokens: 6 })],
    [CHAT, chat("x", { stream: "yes" })],
    [CHAT, chat("x", { stream_options: { include_usage: 1 } })],
    [COMPLETIONS, { model: "m" }],
    [COMPLETIONS, { prompt: [] }],
    [COMPLETIONS, { prompt: [1, "a"] }],
  ];
  for (const [path, body] of cases) {
    const res = await post(app, path, body);
    assert.equal(res.status, 400, JSON.stringify(body));
    const error = (await json(res)).error as JsonObject;
    assert.equal(error.type, "invalid_request_error");
    assert.equal(error.code, 400);
    assert.equal(typeof error.message, "string");
  }
  assert.equal(stats.requests(CHAT, 400), 12);
  assert.equal(stats.requests(COMPLETIONS, 400), 3);
  assert.equal(stats.inFlight, 0);
});

Deno.test("sim api key guards /v1 routes with 401 and leaves health and metrics open", async () => {
  const { app } = makeApp({ apiKey: "sekret" });
  const denied = await post(app, CHAT, chat("x", { max_tokens: 1 }));
  assert.equal(denied.status, 401);
  assert.equal(((await json(denied)).error as JsonObject).type, "authentication_error");
  assert.equal((await post(app, CHAT, chat("x", { max_tokens: 1 }), { authorization: "Bearer nope" })).status, 401);
  const ok = await post(app, CHAT, chat("x", { max_tokens: 1 }), { authorization: "Bearer sekret" });
  assert.equal(ok.status, 200);
  await ok.body?.cancel();
  assert.equal((await app.request("/v1/models")).status, 401);
  assert.equal((await app.request("/v1/models", { headers: { authorization: "Bearer sekret" } })).status, 200);
  for (const path of ["/health", "/v1/health/live", "/v1/health/ready", "/metrics"]) {
    const res = await app.request(path);
    assert.equal(res.status, 200, path);
    await res.body?.cancel();
  }
});

Deno.test("sim models lists the configured names, accepts any name unless strict", async () => {
  const { app } = makeApp({ models: ["alpha", "beta"] });
  const list = await json(await app.request("/v1/models"));
  assert.equal(list.object, "list");
  assert.deepEqual((list.data as JsonObject[]).map((m) => [m.id, m.object]), [["alpha", "model"], ["beta", "model"]]);
  const other = await json(
    await post(app, CHAT, { model: "gamma", messages: [{ role: "user", content: "x" }], max_tokens: 1 }),
  );
  assert.equal(other.model, "gamma");
  const unnamed = await json(await post(app, COMPLETIONS, { prompt: "x", max_tokens: 1 }));
  assert.equal(unnamed.model, "alpha");

  const { app: strict } = makeApp({ models: ["alpha"], strictModel: true });
  const res = await post(strict, CHAT, { model: "gamma", messages: [{ role: "user", content: "x" }] });
  assert.equal(res.status, 404);
  const error = (await json(res)).error as JsonObject;
  assert.equal(error.type, "not_found_error");
  assert.equal(error.param, "model");
  assert.equal((await post(strict, CHAT, { model: "alpha", messages: [{ role: "user", content: "x" }] })).status, 200);
});

Deno.test("sim health routes answer 200 JSON and unknown routes 404 JSON", async () => {
  const { app } = makeApp();
  assert.deepEqual(await json(await app.request("/health")), { status: "ok" });
  assert.equal((await json(await app.request("/v1/health/live"))).object, "health.response");
  assert.equal((await json(await app.request("/v1/health/ready"))).message, "Service is ready.");
  const missing = await app.request("/v2/whatever");
  assert.equal(missing.status, 404);
  assert.equal(((await json(missing)).error as JsonObject).code, 404);
  const wrongMethod = await app.request(CHAT);
  assert.equal(wrongMethod.status, 404);
  await wrongMethod.body?.cancel();
});

Deno.test("sim metrics exposes request counters, in-flight gauges and token totals as Prometheus text", async () => {
  const { app } = makeApp({ errorRate: 0 });
  const tok = oracleTokenizer();
  await (await post(app, CHAT, chat(PROMPT, { max_tokens: 10 }))).text();
  await (await post(app, CHAT, chat(PROMPT, { max_tokens: 5, stream: true }))).text();
  await (await post(app, COMPLETIONS, { prompt: PROMPT, max_tokens: 7 })).text();
  await (await post(app, COMPLETIONS, "nope")).text();
  const res = await app.request("/metrics");
  assert.match(res.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  assert.match(text, /^# TYPE sim_requests_total counter$/m);
  assert.match(text, /^sim_requests_total\{endpoint="\/v1\/chat\/completions",status="200"\} 2$/m);
  assert.match(text, /^sim_requests_total\{endpoint="\/v1\/completions",status="200"\} 1$/m);
  assert.match(text, /^sim_requests_total\{endpoint="\/v1\/completions",status="400"\} 1$/m);
  assert.match(text, /^# TYPE sim_requests_in_flight gauge$/m);
  assert.match(text, /^sim_requests_in_flight 0$/m);
  assert.match(text, /^sim_requests_max_in_flight 1$/m);
  assert.match(text, /^sim_output_tokens_total 22$/m);
  assert.match(text, new RegExp(`^sim_prompt_tokens_total ${3 * tok.count(PROMPT)}$`, "m"));
  assert.ok(text.endsWith("\n"));
});

Deno.test("sim emit-send-times stamps every streamed chunk with the epoch send time", async () => {
  const { app } = makeApp({ emitSendTimes: true });
  const before = performance.timeOrigin + performance.now();
  const res = await post(
    app,
    CHAT,
    chat(PROMPT, { max_tokens: 6, stream: true, stream_options: { include_usage: true } }),
  );
  const { chunks } = sseChunks(await res.text());
  const after = performance.timeOrigin + performance.now();
  assert.equal(chunks.length, 8);
  let last = 0;
  for (const c of chunks) {
    const t = c.sim_sent_at_ms as number;
    assert.equal(typeof t, "number");
    assert.ok(t >= before && t <= after && t >= last);
    last = t;
  }
  const { app: plain } = makeApp();
  const plainChunks = sseChunks(await (await post(plain, CHAT, chat(PROMPT, { max_tokens: 2, stream: true }))).text());
  assert.equal(plainChunks.chunks[1].sim_sent_at_ms, undefined);
});

Deno.test("sim non-streaming response waits ttft plus itl for each further token", async () => {
  const { app, stats } = makeApp({ ttftMs: 40, itlMs: 3 });
  const start = performance.now();
  const pending = post(app, CHAT, chat(PROMPT, { max_tokens: 11 }));
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(stats.inFlight, 1);
  const body = await json(await pending);
  const elapsed = performance.now() - start;
  assert.equal((body.usage as Usage).completion_tokens, 11);
  assert.ok(elapsed >= 68, `answered after ${elapsed} ms, expected >= 70`);
  assert.ok(elapsed < 1000, `answered after ${elapsed} ms`);
  assert.equal(stats.inFlight, 0);
});

Deno.test("sim disconnect-rate drops the connection after half the first chunk, never a whole answer", async () => {
  for (const stream of [false, true]) {
    for (const fast of [true, false]) {
      const { app, stats } = makeApp({ disconnectRate: 100, seed: 1, ...(fast ? { ttftMs: 0, itlMs: 0 } : {}) });
      const res = await post(app, CHAT, chat(PROMPT, { max_tokens: 8, stream }));
      assert.equal(res.status, 200);
      const reader = res.body!.getReader();
      let got = "";
      await assert.rejects(async () => {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          got += new TextDecoder().decode(value);
        }
      }, /simulated disconnect \(--disconnect-rate\)/);
      assert.doesNotMatch(got, /\[DONE\]|"finish_reason":"length"/);
      assert.equal(stats.faults("disconnect"), 1);
    }
  }
});

Deno.test("sim stall-rate holds the answer for stall-ms; a request gets at most one fault", async () => {
  const { app, stats } = makeApp({ stallRate: 100, stallMs: 80, disconnectRate: 100, ttftMs: 0, itlMs: 0 });
  const started = performance.now();
  const res = await post(app, CHAT, chat(PROMPT, { max_tokens: 3 }));
  const body = await json(res);
  assert.ok(performance.now() - started >= 75, "the answer waited for the stall");
  assert.equal((body.usage as Usage).completion_tokens, 3);
  assert.equal(stats.faults("stall"), 1);
  assert.equal(stats.faults("disconnect"), 0);
  assert.match(stats.toPrometheus(), /sim_faults_total\{kind="stall"\} 1/);
});

Deno.test("sim usage-details reports OpenAI's details: cached prefix tokens, reasoning, predicted outputs", async () => {
  const { app } = makeApp({ usageDetails: true, reasoningTokens: 3 });
  const tok = oracleTokenizer();
  const first = "Describe the harbour at dawn.";
  const reply = "Boats and gulls.";
  const usageOf = async (body: JsonObject) => (await json(await post(app, CHAT, body))).usage as JsonObject;
  const u1 = await usageOf(chat(first, { max_tokens: 6 }));
  assert.deepEqual(u1.prompt_tokens_details, { cached_tokens: 0, audio_tokens: 0 }, "a new prompt is not cached");
  assert.deepEqual(u1.completion_tokens_details, {
    reasoning_tokens: 3,
    audio_tokens: 0,
    accepted_prediction_tokens: 0,
    rejected_prediction_tokens: 0,
  });
  // The next turn starts with the first turn's prompt: those tokens come from the cache.
  const messages = [
    { role: "user", content: first },
    { role: "assistant", content: reply },
    { role: "user", content: "And at night?" },
  ];
  const u2 = await usageOf({ model: "m", messages, max_tokens: 6 });
  assert.equal((u2.prompt_tokens_details as JsonObject).cached_tokens, tok.count(first));
  // A prediction of 5 tokens: accepted up to the 3 content tokens, the rest rejected.
  const prediction = { type: "content", content: "one two three four five" };
  const u3 = await usageOf({ ...chat("Count.", { max_tokens: 6 }), prediction });
  const d = u3.completion_tokens_details as JsonObject;
  assert.equal(tok.count(prediction.content), 5);
  assert.deepEqual([d.accepted_prediction_tokens, d.rejected_prediction_tokens], [3, 2]);
});

Deno.test("sim without usage-details keeps the plain usage object", async () => {
  const { app } = makeApp();
  const usage = (await json(await post(app, CHAT, chat(PROMPT, { max_tokens: 4 })))).usage as JsonObject;
  assert.deepEqual(Object.keys(usage), ["prompt_tokens", "completion_tokens", "total_tokens"]);
});

Deno.test("serve-sim accepts image, audio and video parts and counts them by kind", async () => {
  const { app, stats } = makeApp({ ttftMs: 0, itlMs: 0 });
  const content = [
    { type: "text", text: PROMPT },
    { type: "video_url", video_url: { url: "data:video/webm;base64,GkXfow==" } },
    { type: "video_url", video_url: { url: "data:video/mp4;base64,AAAAHGZ0eXA=" } },
    { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw==" } },
    { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
  ];
  const res = await post(app, CHAT, { model: "m", max_tokens: 3, messages: [{ role: "user", content }] });
  assert.equal(res.status, 200);
  await res.body?.cancel();
  assert.deepEqual([stats.media("video"), stats.media("image"), stats.media("audio")], [2, 1, 1]);
  assert.match(stats.toPrometheus(), /^sim_media_inputs_total\{kind="video"\} 2$/m);
  const bad = await post(app, CHAT, {
    model: "m",
    messages: [{ role: "user", content: [{ type: "video_url", video_url: "data:video/webm;base64,AA" }] }],
  });
  assert.equal(bad.status, 400);
  assert.match(JSON.stringify(await json(bad)), /video_url must be an object with a string 'url'/);
});
