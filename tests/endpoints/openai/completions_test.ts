import assert from "node:assert/strict";
import { COMPLETIONS_ADAPTER } from "../../../src/endpoints/openai/completions.ts";
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
const build = (turn: Turn, ctx: Partial<BuildContext> = {}) =>
  COMPLETIONS_ADAPTER.buildRequest(turn, { ...CTX, ...ctx }, []);

Deno.test("completions sends a single prompt as a bare string and several as a list, with max_tokens", () => {
  assert.equal(build(TURN).prompt, "hello");
  assert.deepEqual(build({ texts: ["a", "b"] }).prompt, ["a", "b"]);
  assert.equal(build(TURN).max_tokens, 7);
  assert.equal("max_tokens" in build(TURN, { maxTokens: undefined }), false);
  assert.equal(build(TURN).stream, true);
  assert.equal(build(TURN).model, "m");
});

Deno.test("completions asks for the usage chunk on every stream (vLLM sends per-request statistics there), never without streaming", () => {
  assert.deepEqual(build(TURN).stream_options, { include_usage: true });
  assert.deepEqual(build(TURN, { useServerTokenCount: true }).stream_options, { include_usage: true });
  assert.equal(build(TURN, { streaming: false, useServerTokenCount: true }).stream_options, undefined);
});

Deno.test("completions reads streamed text, usage and a whole body", () => {
  assert.equal(
    COMPLETIONS_ADAPTER.parseEvent('{"object":"text_completion","choices":[{"index":0,"text":"Hi"}]}')?.content,
    "Hi",
  );
  const body = COMPLETIONS_ADAPTER.parseBody({
    object: "text_completion",
    choices: [{ text: "Hi there", finish_reason: "length" }],
    usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
  });
  assert.equal(body.content, "Hi there");
  assert.equal(body.finishReason, "length");
  assert.equal(body.usage?.completionTokens, 2);
});
