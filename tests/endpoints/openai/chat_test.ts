import assert from "node:assert/strict";
import { payloadText } from "../../../src/dataset/payload_text.ts";
import { CHAT_ADAPTER } from "../../../src/endpoints/openai/chat.ts";
import type { BuildContext } from "../../../src/endpoints/endpoint_adapter.ts";
import type { Turn } from "../../../src/dataset/conversation.ts";

const CTX: BuildContext = {
  model: "m",
  streaming: true,
  maxTokens: 7,
  useLegacyMaxTokens: false,
  useServerTokenCount: false,
  extraInputs: {},
};
const TURN: Turn = { texts: ["hello"] };
const build = (turn: Turn, ctx: Partial<BuildContext> = {}) => CHAT_ADAPTER.buildRequest(turn, { ...CTX, ...ctx }, []);

Deno.test("chat puts model and stream flag in the body, and stream in extra inputs edits it (AIPerf)", () => {
  assert.equal(build(TURN).model, "m");
  assert.equal(build(TURN).stream, true);
  assert.equal(build(TURN, { streaming: false }).stream, false);
  assert.equal(build({ texts: ["x"] }, { extraInputs: { stream: false } }).stream, false);
  assert.equal(build({ texts: ["x"], model: "other" }).model, "other");
});

Deno.test("chat uses max_completion_tokens unless legacy max tokens is asked, and omits both without a length", () => {
  assert.equal(build(TURN).max_completion_tokens, 7);
  const legacy = build(TURN, { useLegacyMaxTokens: true });
  assert.equal(legacy.max_tokens, 7);
  assert.equal(legacy.max_completion_tokens, undefined);
  const none = build(TURN, { maxTokens: undefined });
  assert.equal("max_tokens" in none || "max_completion_tokens" in none, false);
});

Deno.test("chat always asks for the usage chunk when streaming (AIPerf), never otherwise", () => {
  assert.deepEqual(build(TURN).stream_options, { include_usage: true });
  assert.deepEqual(build(TURN, { useServerTokenCount: true }).stream_options, { include_usage: true });
  assert.equal(build(TURN, { streaming: false }).stream_options, undefined);
});

Deno.test("chat sends one text as a string and several as content parts, after the system message", () => {
  assert.deepEqual(build(TURN).messages, [{ role: "user", content: "hello" }]);
  assert.deepEqual(build({ texts: ["a", "b"], role: "user" }, { systemMessage: "sys" }).messages, [
    { role: "system", content: "sys" },
    { role: "user", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] },
  ]);
});

Deno.test("chat sends earlier turns with the server's real replies before the current turn", () => {
  const body = CHAT_ADAPTER.buildRequest({ texts: ["third"] }, { ...CTX, systemMessage: "sys" }, [
    { turn: { texts: ["first"] }, reply: "one" },
    { turn: { texts: ["second"] }, reply: "two" },
  ]);
  assert.deepEqual(body.messages, [
    { role: "system", content: "sys" },
    { role: "user", content: "first" },
    { role: "assistant", content: "one" },
    { role: "user", content: "second" },
    { role: "assistant", content: "two" },
    { role: "user", content: "third" },
  ]);
});

Deno.test("chat headers: JSON in, SSE or JSON out, the key as a bearer token", () => {
  assert.deepEqual(CHAT_ADAPTER.headers({ streaming: true, apiKey: "k" }), [
    ["Content-Type", "application/json"],
    ["Accept", "text/event-stream"],
    ["Authorization", "Bearer k"],
  ]);
  assert.deepEqual(CHAT_ADAPTER.headers({ streaming: false }), [
    ["Content-Type", "application/json"],
    ["Accept", "application/json"],
  ]);
});

Deno.test("chat reads streamed text, and a usage-only chunk as a response without content", () => {
  assert.equal(CHAT_ADAPTER.parseEvent('{"choices":[{"index":0,"delta":{"content":"Hi"}}]}')?.content, "Hi");
  const d = CHAT_ADAPTER.parseEvent(
    '{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":4,"total_tokens":14,' +
      '"completion_tokens_details":{"reasoning_tokens":2}}}',
  );
  assert.equal(d?.content, undefined);
  assert.deepEqual(d?.usage, { promptTokens: 10, completionTokens: 4, totalTokens: 14, reasoningTokens: 2 });
  assert.equal(CHAT_ADAPTER.parseEvent("[DONE]"), undefined);
});

Deno.test("chat reports an in-stream API error in OpenAI's and vLLM's shapes", () => {
  const d = CHAT_ADAPTER.parseEvent('{"error":{"message":"overloaded","type":"server_error","code":503}}');
  assert.deepEqual(d?.error, { message: "overloaded", type: "server_error", code: 503 });
  const v = CHAT_ADAPTER.parseEvent('{"object":"error","message":"bad","type":"BadRequestError","code":400}');
  assert.equal(v?.error?.message, "bad");
});

Deno.test("chat reads reasoning from reasoning_content and reasoning", () => {
  assert.equal(CHAT_ADAPTER.parseEvent('{"choices":[{"delta":{"reasoning_content":"think"}}]}')?.reasoning, "think");
  assert.equal(CHAT_ADAPTER.parseEvent('{"choices":[{"delta":{"reasoning":"hmm"}}]}')?.reasoning, "hmm");
});

Deno.test("chat counts tool-call names and arguments as output text", () => {
  const d = CHAT_ADAPTER.parseEvent(
    '{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"get_weather","arguments":"{\\"city\\""}}]}}]}',
  );
  assert.equal(d?.toolCalls, 'get_weather{"city"');
  assert.equal(CHAT_ADAPTER.parseEvent('{"choices":[{"delta":{"content":""}}]}')?.content, undefined);
});

Deno.test("chat parses a whole body, and accepts one that arrives as a chunk", () => {
  const d = CHAT_ADAPTER.parseBody({
    object: "chat.completion",
    choices: [{ message: { role: "assistant", content: "Hi there" }, finish_reason: "length" }],
    usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
  });
  assert.equal(d.content, "Hi there");
  assert.equal(d.finishReason, "length");
  assert.equal(d.usage?.completionTokens, 2);
  assert.equal(CHAT_ADAPTER.parseBody({ choices: [{ delta: { content: "x" } }] }).content, "x");
});

Deno.test("chat ISL text is the system message and the turn's texts joined by a space, as AIPerf counts the body", () => {
  assert.equal(CHAT_ADAPTER.inputText({ texts: ["a", "b"] }, {}), "a b");
  assert.equal(CHAT_ADAPTER.inputText({ texts: ["a"] }, { systemMessage: "s" }), "s a");
  // The same text AIPerf's payload walk finds in the body built for that turn.
  const body = CHAT_ADAPTER.buildRequest({ texts: ["a", "b"] }, {
    model: "m",
    streaming: false,
    useLegacyMaxTokens: false,
    useServerTokenCount: false,
    extraInputs: {},
    systemMessage: "s",
  }, []);
  assert.equal(payloadText(body), CHAT_ADAPTER.inputText({ texts: ["a", "b"] }, { systemMessage: "s" }));
});
