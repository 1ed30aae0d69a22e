import assert from "node:assert/strict";
import { MESSAGES_ADAPTER } from "../../../src/endpoints/anthropic/messages.ts";
import { ResponseCollector } from "../../../src/engine/response_collector.ts";

const CTX = {
  model: "claude",
  streaming: true,
  useLegacyMaxTokens: false,
  useServerTokenCount: false,
  extraInputs: {},
};

Deno.test("messages: system at the top level, max_tokens always set (1024 by default), history as turns", () => {
  const body = MESSAGES_ADAPTER.buildRequest({ texts: ["now"] }, { ...CTX, systemMessage: "sys" }, [
    { turn: { texts: ["before"] }, reply: "answer" },
  ]);
  assert.deepEqual(body, {
    model: "claude",
    messages: [
      { role: "user", content: "before" },
      { role: "assistant", content: "answer" },
      { role: "user", content: "now" },
    ],
    max_tokens: 1024,
    stream: true,
    system: "sys",
  });
  assert.equal(
    MESSAGES_ADAPTER.buildRequest({ texts: ["x"] }, { ...CTX, maxTokens: 9, streaming: false }, []).max_tokens,
    9,
  );
  const headers = new Map(MESSAGES_ADAPTER.headers({ streaming: true, apiKey: "sk" }));
  assert.equal(headers.get("x-api-key"), "sk");
  assert.equal(headers.get("anthropic-version"), "2023-06-01");
  assert.equal(headers.has("Authorization"), false);
});

Deno.test("messages: thinking, text and tool-use deltas are reasoning, content and tool-call text; usage merged", () => {
  const events = [
    '{"type":"message_start","message":{"usage":{"input_tokens":25,"output_tokens":1}}}',
    '{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"let me see"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"abc"}}',
    '{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}',
    '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Checking."}}',
    '{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"t","name":"get_weather","input":{}}}',
    '{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\\"city\\":"}}',
    '{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"\\"Paris\\"}"}}',
    '{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":42}}',
    '{"type":"message_stop"}',
  ];
  const c = new ResponseCollector(MESSAGES_ADAPTER);
  events.forEach((e, i) => c.onEvent(e, i));
  c.flush();
  assert.equal(c.reasoning, "let me see");
  assert.equal(c.content, 'Checking.get_weather{"city":"Paris"}');
  assert.equal(c.usage?.promptTokens, 25, "from message_start");
  assert.equal(c.usage?.completionTokens, 42, "from message_delta");
  assert.equal(c.finishReason, "tool_use");
  assert.deepEqual(c.responseTimes, [2, 5, 6, 7, 8], "content responses: thinking, text, tool name, tool input ×2");
  assert.equal(c.firstOutputAt, 5);
});

Deno.test("messages: a whole message's blocks, and error events and bodies fail the request", () => {
  const d = MESSAGES_ADAPTER.parseBody({
    type: "message",
    content: [
      { type: "thinking", thinking: "hmm", signature: "s" },
      { type: "text", text: "Hi" },
      { type: "tool_use", name: "f", input: { a: 1 } },
    ],
    stop_reason: "end_turn",
    usage: { input_tokens: 3, output_tokens: 9 },
  });
  assert.deepEqual(d, {
    content: "Hi",
    reasoning: "hmm",
    toolCalls: 'f{"a":1}',
    usage: { promptTokens: 3, completionTokens: 9 },
    finishReason: "end_turn",
  });
  const err = MESSAGES_ADAPTER.parseEvent(
    '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
  );
  assert.deepEqual(err?.error, { message: "Overloaded", type: "overloaded_error" });
  assert.equal(MESSAGES_ADAPTER.parseBody({ type: "error", error: { type: "x", message: "m" } }).error?.message, "m");
  assert.equal(MESSAGES_ADAPTER.parseEvent('{"type":"ping"}'), undefined);
});
