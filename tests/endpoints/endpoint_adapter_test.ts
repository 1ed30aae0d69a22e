import assert from "node:assert/strict";
import { CHAT_ADAPTER } from "../../src/endpoints/chat_adapter.ts";
import { COMPLETIONS_ADAPTER } from "../../src/endpoints/completions_adapter.ts";
import { ENDPOINT_ADAPTERS, endpointAdapter } from "../../src/endpoints/endpoint_registry.ts";
import type { BuildContext, EndpointType } from "../../src/endpoints/endpoint_adapter.ts";
import type { Turn } from "../../src/dataset/conversation.ts";

const CTX: BuildContext = {
  model: "m",
  streaming: true,
  maxTokens: 7,
  useLegacyMaxTokens: false,
  includeUsage: true,
  extraInputs: {},
};
const TURN: Turn = { texts: ["hello"] };

/** The streamed text chunk of each adapter's wire format. */
const TEXT_CHUNK: Record<EndpointType, string> = {
  chat: '{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"}}]}',
  completions: '{"object":"text_completion","choices":[{"index":0,"text":"Hi"}]}',
};
const FULL_BODY: Record<EndpointType, unknown> = {
  chat: {
    object: "chat.completion",
    choices: [{ message: { role: "assistant", content: "Hi there" }, finish_reason: "length" }],
    usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
  },
  completions: {
    object: "text_completion",
    choices: [{ text: "Hi there", finish_reason: "length" }],
    usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
  },
};

// The shared conformance suite: every adapter must pass it.
for (const [type, adapter] of Object.entries(ENDPOINT_ADAPTERS) as [EndpointType, typeof CHAT_ADAPTER][]) {
  Deno.test(`${type} adapter declares its own type and a default path`, () => {
    assert.deepStrictEqual(adapter.capabilities.type, type);
    assert.ok(adapter.capabilities.path.startsWith("/v1/"));
    assert.deepStrictEqual(endpointAdapter(type), adapter);
  });

  Deno.test(`${type} adapter puts model and stream flag in the body`, () => {
    const body = adapter.buildRequest(TURN, CTX);
    assert.deepStrictEqual(body.model, "m");
    assert.deepStrictEqual(body.stream, true);
    assert.deepStrictEqual(adapter.buildRequest(TURN, { ...CTX, streaming: false }).stream, false);
  });

  Deno.test(`${type} adapter builds the same body for the same inputs`, () => {
    assert.deepStrictEqual(
      JSON.stringify(adapter.buildRequest(TURN, CTX)),
      JSON.stringify(adapter.buildRequest(TURN, CTX)),
    );
  });

  Deno.test(`${type} adapter merges extra inputs after its fields and turn extras last`, () => {
    const body = adapter.buildRequest(
      { texts: ["x"], extra: { temperature: 0.1, top_k: 5 } },
      { ...CTX, extraInputs: { temperature: 0.7, ignore_eos: true, stream: false } },
    );
    assert.deepStrictEqual(body.temperature, 0.1);
    assert.deepStrictEqual(body.ignore_eos, true);
    assert.deepStrictEqual(body.top_k, 5);
    assert.deepStrictEqual(body.stream, false, "stream in extra inputs edits the body (AIPerf)");
  });

  Deno.test(`${type} adapter omits max tokens when no output length is configured`, () => {
    const body = adapter.buildRequest(TURN, { ...CTX, maxTokens: undefined });
    assert.deepStrictEqual("max_tokens" in body || "max_completion_tokens" in body, false);
  });

  Deno.test(`${type} adapter asks for the usage chunk only when streaming with includeUsage`, () => {
    assert.deepStrictEqual(adapter.buildRequest(TURN, CTX).stream_options, { include_usage: true });
    assert.deepStrictEqual(adapter.buildRequest(TURN, { ...CTX, includeUsage: false }).stream_options, undefined);
    assert.deepStrictEqual(adapter.buildRequest(TURN, { ...CTX, streaming: false }).stream_options, undefined);
  });

  Deno.test(`${type} adapter ignores [DONE] and empty payloads`, () => {
    assert.deepStrictEqual(adapter.parseEvent("[DONE]"), undefined);
    assert.deepStrictEqual(adapter.parseEvent(""), undefined);
  });

  Deno.test(`${type} adapter reads streamed text`, () => {
    assert.deepStrictEqual(adapter.parseEvent(TEXT_CHUNK[type])?.content, "Hi");
  });

  Deno.test(`${type} adapter reads a usage-only chunk as a response without content`, () => {
    const d = adapter.parseEvent(
      '{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":4,"total_tokens":14,' +
        '"completion_tokens_details":{"reasoning_tokens":2}}}',
    );
    assert.deepStrictEqual(d?.content, undefined);
    assert.deepStrictEqual(d?.usage, { promptTokens: 10, completionTokens: 4, totalTokens: 14, reasoningTokens: 2 });
  });

  Deno.test(`${type} adapter reports an in-stream API error`, () => {
    const d = adapter.parseEvent('{"error":{"message":"overloaded","type":"server_error","code":503}}');
    assert.deepStrictEqual(d?.error, { message: "overloaded", type: "server_error", code: 503 });
    const v = adapter.parseEvent('{"object":"error","message":"bad","type":"BadRequestError","code":400}');
    assert.deepStrictEqual(v?.error?.message, "bad");
  });

  Deno.test(`${type} adapter rejects a malformed event with a SyntaxError naming it`, () => {
    assert.throws(
      () => adapter.parseEvent("{not json"),
      (e: Error) => e instanceof SyntaxError && e.message.includes("{not json"),
    );
  });

  Deno.test(`${type} adapter parses a whole non-streaming body`, () => {
    const d = adapter.parseBody(FULL_BODY[type]);
    assert.deepStrictEqual(d.content, "Hi there");
    assert.deepStrictEqual(d.finishReason, "length");
    assert.deepStrictEqual(d.usage?.completionTokens, 2);
    assert.deepStrictEqual(adapter.parseBody([1, 2]).error?.type, "ParseError");
  });

  Deno.test(`${type} adapter input text joins the prompt texts`, () => {
    assert.deepStrictEqual(adapter.inputText({ texts: ["a", "b"] }, {}), "a\nb");
  });
}

Deno.test("chat adapter uses max_completion_tokens unless legacy max tokens is asked", () => {
  assert.deepStrictEqual(CHAT_ADAPTER.buildRequest(TURN, CTX).max_completion_tokens, 7);
  const legacy = CHAT_ADAPTER.buildRequest(TURN, { ...CTX, useLegacyMaxTokens: true });
  assert.deepStrictEqual(legacy.max_tokens, 7);
  assert.deepStrictEqual(legacy.max_completion_tokens, undefined);
});

Deno.test("chat adapter sends one text as a string and several as content parts", () => {
  const one = CHAT_ADAPTER.buildRequest(TURN, CTX).messages as { role: string; content: unknown }[];
  assert.deepStrictEqual(one, [{ role: "user", content: "hello" }]);
  const two = CHAT_ADAPTER.buildRequest({ texts: ["a", "b"], role: "user" }, { ...CTX, systemMessage: "sys" })
    .messages as { role: string; content: unknown }[];
  assert.deepStrictEqual(two, [
    { role: "system", content: "sys" },
    { role: "user", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] },
  ]);
});

Deno.test("chat adapter reads reasoning from reasoning_content and reasoning", () => {
  assert.deepStrictEqual(
    CHAT_ADAPTER.parseEvent('{"choices":[{"delta":{"reasoning_content":"think"}}]}')?.reasoning,
    "think",
  );
  assert.deepStrictEqual(CHAT_ADAPTER.parseEvent('{"choices":[{"delta":{"reasoning":"hmm"}}]}')?.reasoning, "hmm");
});

Deno.test("chat adapter counts tool-call names and arguments as output text", () => {
  const d = CHAT_ADAPTER.parseEvent(
    '{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"get_weather","arguments":"{\\"city\\""}}]}}]}',
  );
  assert.deepStrictEqual(d?.toolCalls, 'get_weather{"city"');
  assert.deepStrictEqual(CHAT_ADAPTER.parseEvent('{"choices":[{"delta":{"content":""}}]}')?.content, undefined);
});

Deno.test("chat adapter accepts a non-streaming body that arrives as a chunk", () => {
  assert.deepStrictEqual(CHAT_ADAPTER.parseBody({ choices: [{ delta: { content: "x" } }] }).content, "x");
});

Deno.test("completions adapter sends a single prompt as a bare string and several as a list", () => {
  assert.deepStrictEqual(COMPLETIONS_ADAPTER.buildRequest(TURN, CTX).prompt, "hello");
  assert.deepStrictEqual(COMPLETIONS_ADAPTER.buildRequest({ texts: ["a", "b"] }, CTX).prompt, ["a", "b"]);
  assert.deepStrictEqual(COMPLETIONS_ADAPTER.buildRequest(TURN, CTX).max_tokens, 7);
});

Deno.test("endpoint registry names the valid types for an unknown one", () => {
  assert.throws(
    () => endpointAdapter("embeddings" as EndpointType),
    (e: Error) => e instanceof RangeError && e.message.includes("chat, completions"),
  );
});
