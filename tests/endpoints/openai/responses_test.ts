import assert from "node:assert/strict";
import { RESPONSES_ADAPTER } from "../../../src/endpoints/openai/responses.ts";
import { ResponseCollector } from "../../../src/engine/response_collector.ts";
import { SseFramer } from "../../../src/transport/sse_framer.ts";

const CTX = { model: "m", streaming: true, useLegacyMaxTokens: false, useServerTokenCount: false, extraInputs: {} };
const FIXTURES = new URL("../../fixtures/responses_streams/", import.meta.url);

/** A recorded stream through the real SSE framer and collector, one event per millisecond. */
function collect(name: string): ResponseCollector {
  const bytes = Deno.readFileSync(new URL(name, FIXTURES));
  const collector = new ResponseCollector(RESPONSES_ADAPTER);
  let t = 0;
  const framer = new SseFramer((data) => collector.onEvent(data, ++t));
  framer.push(bytes, 0, bytes.length, 0);
  collector.flush();
  return collector;
}

Deno.test("responses: input items, instructions, max_output_tokens, extras last; history as message items", () => {
  const body = RESPONSES_ADAPTER.buildRequest(
    { texts: ["now"] },
    { ...CTX, systemMessage: "sys", maxTokens: 200, extraInputs: { temperature: 0.7, top_p: 0.9 } },
    [{ turn: { texts: ["before"] }, reply: "answer" }],
  );
  assert.deepEqual(body, {
    model: "m",
    input: [
      { type: "message", role: "user", content: "before" },
      { type: "message", role: "assistant", content: "answer" },
      { type: "message", role: "user", content: "now" },
    ],
    stream: true,
    instructions: "sys",
    max_output_tokens: 200,
    temperature: 0.7,
    top_p: 0.9,
  });
  assert.equal(RESPONSES_ADAPTER.requestedOutputTokens!(body), 200);
  // Legacy max tokens has no field to switch to: the run refuses it before sending (capability).
  assert.match(RESPONSES_ADAPTER.capabilities.refusesLegacyMaxTokens!, /always uses max_output_tokens/);
});

Deno.test("responses: media as input_image (plain string URL) and input_audio {data, format}", () => {
  const body = RESPONSES_ADAPTER.buildRequest(
    {
      texts: ["look"],
      media: [
        { kind: "audio", dataUrl: "data:audio/wav;base64,UklGRg==" },
        { kind: "image", url: "https://example.com/a.png" },
      ],
    },
    { ...CTX, streaming: false },
    [],
  );
  assert.deepEqual((body.input as { content: unknown }[])[0].content, [
    { type: "input_text", text: "look" },
    { type: "input_image", image_url: "https://example.com/a.png" },
    { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
  ]);
  assert.equal(body.stream_options, undefined);
});

Deno.test("responses: --use-server-token-count asks include_usage when streaming, keeping the user's options", () => {
  const server = { ...CTX, useServerTokenCount: true };
  assert.deepEqual(RESPONSES_ADAPTER.buildRequest({ texts: ["x"] }, server, []).stream_options, {
    include_usage: true,
  });
  const kept = RESPONSES_ADAPTER.buildRequest({ texts: ["x"] }, {
    ...server,
    extraInputs: { stream_options: { include_usage: false, x: 1 } },
  }, []);
  assert.deepEqual(kept.stream_options, { include_usage: false, x: 1 });
});

Deno.test("responses fixture: text deltas count; annotations, item/part events, unknown events are skipped", () => {
  const c = collect("text_with_annotations.sse");
  assert.equal(c.content, "Hi there! How can I assist you today?");
  assert.equal(c.parseError, undefined);
  assert.equal(c.apiError, undefined);
  // Ten deltas, then the done event as a content response without text (AIPerf's last content time).
  assert.equal(c.responseTimes.length, 11);
  assert.equal(c.firstOutputAt, 5);
  assert.deepEqual(c.usage, {
    promptTokens: 37,
    completionTokens: 11,
    totalTokens: 48,
    reasoningTokens: 0,
    promptCacheReadTokens: 0, // input_tokens_details.cached_tokens
  });
  assert.equal(c.finishReason, "stop");
});

Deno.test("responses fixture: reasoning_text deltas are reasoning (TTFT), output text later (TTFO); summaries skipped", () => {
  const c = collect("reasoning.sse");
  assert.equal(c.reasoning, "Let me think");
  assert.equal(c.content, "The answer.");
  assert.equal(c.responseTimes[0], 5); // first reasoning delta: TTFT
  assert.equal(c.firstOutputAt, 11); // first output text delta: TTFO
  assert.equal(c.usage?.reasoningTokens, 3);
  assert.equal(c.usage?.completionTokens, 6);
});

Deno.test("responses fixture: refusal deltas are not output; done-only text is the answer", () => {
  const refusal = collect("refusal.sse");
  assert.equal(refusal.content, "");
  assert.equal(refusal.responseTimes.length, 0);
  assert.equal(refusal.apiError, undefined);
  const doneOnly = collect("done_only.sse");
  assert.equal(doneOnly.content, "Hi there! How can I assist you today?");
  assert.deepEqual(doneOnly.responseTimes, [2]);
});

Deno.test("responses fixture: response.failed, error and a content-filter incomplete fail with the server's message", () => {
  assert.deepEqual(collect("failed.sse").apiError, {
    message: "The model produced invalid content.",
    type: "server_error",
  });
  assert.deepEqual(collect("error_event.sse").apiError, {
    message: "Rate limit reached for requests",
    type: "rate_limit_exceeded",
  });
  assert.match(collect("incomplete_content_filter.sse").apiError!.message, /incomplete: content_filter/);
  const capped = collect("incomplete_max_output_tokens.sse");
  assert.equal(capped.apiError, undefined);
  assert.equal(capped.finishReason, "length");
  assert.equal(capped.content, "Hi");
});

Deno.test("responses fixture: a whole body reads message text, reasoning summary and usage; a failed body errors", () => {
  const read = (name: string) =>
    RESPONSES_ADAPTER.parseBody(JSON.parse(Deno.readTextFileSync(new URL(name, FIXTURES))));
  const ok = read("body_with_reasoning.json");
  assert.equal(ok.content, "Hi there! How can I assist you today?");
  assert.equal(ok.reasoning, "Thought briefly");
  assert.equal(ok.usage?.promptTokens, 37);
  assert.equal(ok.error, undefined);
  assert.deepEqual(read("body_failed.json").error, {
    message: "The model produced invalid content.",
    type: "server_error",
  });
});
