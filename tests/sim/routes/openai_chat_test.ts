import assert from "node:assert/strict";
import { oracleTokenizer } from "../oracle_tokenizer.ts";
import {
  CHAT,
  chat,
  firstChoice,
  json,
  type JsonObject,
  makeApp,
  post,
  PROMPT,
  sseChunks,
  streamTexts,
  type Usage,
} from "../sim_test_helpers.ts";

Deno.test("sim chat completion reports exact usage and the max token count", async () => {
  const { app } = makeApp();
  const tok = oracleTokenizer();
  const res = await post(app, CHAT, chat(PROMPT, { max_completion_tokens: 37 }));
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  const body = await json(res);
  assert.equal(body.object, "chat.completion");
  assert.equal(body.model, "sim-model");
  assert.match(body.id as string, /^chatcmpl-[0-9a-f]{16}$/);
  const choice = firstChoice(body);
  const message = choice.message as JsonObject;
  assert.equal(message.role, "assistant");
  assert.equal(choice.finish_reason, "length");
  const usage = body.usage as Usage;
  assert.equal(usage.prompt_tokens, tok.count(PROMPT));
  assert.equal(usage.completion_tokens, 37);
  assert.equal(tok.count(message.content as string), 37);
  assert.equal(usage.total_tokens, usage.prompt_tokens + 37);
  assert.equal(usage.completion_tokens_details, undefined);
});

Deno.test("sim chat prompt tokens sum every message's text, text parts joined by newlines", async () => {
  const { app } = makeApp();
  const tok = oracleTokenizer();
  const messages = [
    { role: "system", content: "You are terse." },
    {
      role: "user",
      content: [
        { type: "text", text: "First part." },
        { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
        { type: "text", text: "Second part, with 12 numbers." },
      ],
    },
    { role: "assistant", content: null, tool_calls: [] },
    { role: "user", content: "Go on." },
  ];
  const body = await json(await post(app, CHAT, { model: "m", messages, max_tokens: 3 }));
  const expected = tok.count("You are terse.") + tok.count("First part.\nSecond part, with 12 numbers.") +
    tok.count("Go on.");
  assert.equal((body.usage as Usage).prompt_tokens, expected);
});

Deno.test("sim chat stream sends a role chunk, one token per chunk, finish on the last, then [DONE]", async () => {
  const { app } = makeApp();
  const tok = oracleTokenizer();
  const res = await post(app, CHAT, chat(PROMPT, { max_completion_tokens: 20, stream: true }));
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
  const { chunks, done } = sseChunks(await res.text());
  assert.ok(done);
  assert.equal(chunks.length, 21); // role + 20 tokens, no usage chunk
  const ids = new Set(chunks.map((c) => c.id));
  assert.equal(ids.size, 1);
  for (const c of chunks) assert.equal(c.object, "chat.completion.chunk");
  assert.deepEqual(firstChoice(chunks[0]).delta, { role: "assistant", content: "" });
  for (const c of chunks.slice(1)) {
    assert.equal(tok.count((firstChoice(c).delta as JsonObject).content as string), 1);
  }
  assert.deepEqual(chunks.slice(0, -1).map((c) => firstChoice(c).finish_reason), Array(20).fill(null));
  assert.equal(firstChoice(chunks[20]).finish_reason, "length");
  assert.equal(tok.count(streamTexts(chunks).content), 20);
});

Deno.test("sim stream with continuous_usage_stats carries the running usage on every token chunk", async () => {
  const { app } = makeApp();
  const res = await post(
    app,
    CHAT,
    chat("hi", { max_tokens: 4, stream: true, stream_options: { include_usage: true, continuous_usage_stats: true } }),
  );
  const { chunks } = sseChunks(await res.text());
  const running = chunks.slice(1, 5).map((c) => (c.usage as Usage).completion_tokens);
  assert.deepEqual(running, [1, 2, 3, 4]);
});

Deno.test("sim reasoning tokens come first, count within max and are reported in usage", async () => {
  const { app } = makeApp({ reasoningTokens: 5 });
  const tok = oracleTokenizer();
  const body = await json(await post(app, CHAT, chat(PROMPT, { max_tokens: 8 })));
  const message = firstChoice(body).message as JsonObject;
  assert.equal(tok.count(message.reasoning_content as string), 5);
  assert.equal(tok.count(message.content as string), 3);
  assert.deepEqual((body.usage as Usage).completion_tokens_details, { reasoning_tokens: 5 });
  assert.equal((body.usage as Usage).completion_tokens, 8);

  const res = await post(
    app,
    CHAT,
    chat(PROMPT, { max_tokens: 8, stream: true, stream_options: { include_usage: true } }),
  );
  const { chunks } = sseChunks(await res.text());
  const kinds = chunks.slice(1, -1).map((c) => Object.keys(firstChoice(c).delta as JsonObject)[0]);
  assert.deepEqual(kinds, [...Array(5).fill("reasoning_content"), ...Array(3).fill("content")]);
  const texts = streamTexts(chunks);
  assert.equal(tok.count(texts.reasoning), 5);
  assert.equal(tok.count(texts.content), 3);
  assert.deepEqual((chunks.at(-1)!.usage as Usage).completion_tokens_details, { reasoning_tokens: 5 });

  const cut = await json(await post(app, CHAT, chat(PROMPT, { max_tokens: 3 })));
  assert.deepEqual((cut.usage as Usage).completion_tokens_details, { reasoning_tokens: 3 });
  assert.equal((firstChoice(cut).message as JsonObject).content, "");
});

Deno.test("sim reasoning mode maps reasoning_effort to 100/250/500 tokens and honours enable_thinking false", async () => {
  const { app } = makeApp({ reasoning: true });
  const reasoningOf = async (extra: JsonObject) => {
    const body = await json(await post(app, CHAT, chat(PROMPT, { max_tokens: 1000, ...extra })));
    return (body.usage as Usage).completion_tokens_details?.reasoning_tokens ?? 0;
  };
  assert.equal(await reasoningOf({ reasoning_effort: "low" }), 100);
  assert.equal(await reasoningOf({ reasoning_effort: "medium" }), 250);
  assert.equal(await reasoningOf({ reasoning_effort: "high" }), 500);
  assert.equal(await reasoningOf({}), 250);
  assert.equal(await reasoningOf({ reasoning_effort: "high", chat_template_kwargs: { enable_thinking: false } }), 0);
  const { app: plain } = makeApp();
  const body = await json(await post(plain, CHAT, chat(PROMPT, { max_tokens: 10, reasoning_effort: "high" })));
  assert.equal((body.usage as Usage).completion_tokens_details, undefined);
});
