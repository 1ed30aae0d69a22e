import assert from "node:assert/strict";
import {
  adaptVllmSpecDecode,
  readSpecDecodePayload,
  type SpecDecodeAcceptance,
  specDecodeJson,
  specDecodeRecord,
} from "../../src/endpoints/spec_decode.ts";
import { CHAT_ADAPTER } from "../../src/endpoints/openai/chat.ts";
import { COMPLETIONS_ADAPTER } from "../../src/endpoints/openai/completions.ts";
import { ResponseCollector } from "../../src/engine/response_collector.ts";

/** k = 3; steps accepting 0, 2, 3, 3 drafts: 4 steps, 8 accepted of 12 proposed. */
const PAYLOAD = {
  num_spec_tokens: 3,
  num_spec_steps: 4,
  num_draft_tokens: 12,
  num_accepted_draft_tokens: 8,
  mean_acceptance_length: 3,
  draft_acceptance_rate: 8 / 12,
  acceptance_histogram: [1, 0, 1, 2],
  per_step_accepted: [0, 2, 3, 3],
  per_step_drafted: [3, 3, 3, 3],
};

Deno.test("vLLM's spec-decode payload becomes the engine-neutral record with a sparse histogram", () => {
  const record = adaptVllmSpecDecode(PAYLOAD, 12) as SpecDecodeAcceptance;
  assert.deepEqual(record, {
    engine: "vllm",
    meanAcceptanceLength: 3,
    draftAcceptanceRate: 8 / 12,
    acceptanceHistogram: { "0": 1, "2": 1, "3": 2 },
    numAcceptedDraftTokens: 8,
    numDraftTokens: 12,
    numSpecSteps: 4,
    numSpecTokens: 3,
    completionTokens: 12,
    perStepAccepted: [0, 2, 3, 3],
    perStepDrafted: [3, 3, 3, 3],
  });
  // AIPerf's JSONL field names and order; absent optional fields are left out.
  assert.deepEqual(Object.keys(specDecodeJson(record)), [
    "engine",
    "mean_acceptance_length",
    "draft_acceptance_rate",
    "acceptance_histogram",
    "num_accepted_draft_tokens",
    "num_draft_tokens",
    "num_spec_steps",
    "num_spec_tokens",
    "completion_tokens",
    "per_step_accepted",
    "per_step_drafted",
  ]);
  const summary = adaptVllmSpecDecode({ ...PAYLOAD, per_step_accepted: undefined, per_step_drafted: null }, undefined);
  assert.deepEqual(Object.keys(specDecodeJson(summary as SpecDecodeAcceptance)).slice(7), ["num_spec_tokens"]);
});

Deno.test("a spec-decode payload whose counts contradict each other is dropped, never reported", () => {
  const cases: [string, Record<string, unknown>][] = [
    ["steps", { num_spec_steps: 5 }],
    ["accepted", { num_accepted_draft_tokens: 7 }],
    ["buckets", { acceptance_histogram: [1, 0, 1, 2, 0] }],
    ["more accepted than drafted", { num_draft_tokens: 7 }],
    ["per-step length", { per_step_accepted: [2, 3, 3] }],
    ["per-step drafted sum", { per_step_drafted: [3, 3, 3, 2] }],
    ["a step over its draft", { per_step_drafted: [3, 1, 4, 4] }],
    ["histogram type", { acceptance_histogram: "1013" }],
    ["bool count", { acceptance_histogram: [true, 0, 1, 2] }],
    ["mean", { mean_acceptance_length: "3" }],
    ["no signature", { num_spec_steps: undefined }],
  ];
  for (const [what, change] of cases) {
    const payload: Record<string, unknown> = { ...PAYLOAD, ...change };
    for (const [k, v] of Object.entries(change)) if (v === undefined) delete payload[k];
    assert.ok("dropped" in adaptVllmSpecDecode(payload, 12), what);
  }
});

Deno.test("a request's record needs exactly one payload (several sequences' stats cannot be told apart)", () => {
  assert.equal(specDecodeRecord([], 1), undefined);
  assert.equal(specDecodeRecord([PAYLOAD, PAYLOAD], 12), undefined);
  assert.equal(specDecodeRecord([PAYLOAD], 12)?.numSpecSteps, 4);
  assert.equal(readSpecDecodePayload({ metrics: { speculative_decoding: {} } }), undefined);
  assert.equal(readSpecDecodePayload({ metrics: [] }), undefined);
  assert.equal(readSpecDecodePayload({ metrics: { speculative_decoding: null } }), undefined);
});

Deno.test("chat and completions read the payload from the body and from the stream's usage chunk", () => {
  const metrics = JSON.stringify({ speculative_decoding: PAYLOAD });
  const usage = '"usage":{"prompt_tokens":3,"completion_tokens":12,"total_tokens":15}';
  const body = JSON.parse(
    `{"choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],${usage},` +
      `"metrics":${metrics}}`,
  );
  assert.deepEqual(CHAT_ADAPTER.parseBody(body).specDecode, PAYLOAD);
  assert.deepEqual(
    COMPLETIONS_ADAPTER.parseBody({ choices: [{ text: "hi" }], metrics: JSON.parse(metrics) }).specDecode,
    PAYLOAD,
  );
  assert.equal(CHAT_ADAPTER.parseEvent('{"choices":[{"index":0,"delta":{"content":"a"}}]}')?.specDecode, undefined);

  const collector = new ResponseCollector(CHAT_ADAPTER);
  collector.onEvent('{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}', 1);
  collector.onEvent(`{"choices":[],${usage},"metrics":${metrics}}`, 2);
  collector.onEvent("[DONE]", 3);
  collector.flush();
  assert.equal(collector.specDecode?.length, 1);
  assert.equal(specDecodeRecord(collector.specDecode!, collector.usage?.completionTokens)?.completionTokens, 12);
});
