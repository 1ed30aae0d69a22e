import assert from "node:assert/strict";
import { planSpecDecode, specDecodeMetricsField } from "../../src/sim/spec_decode_plan.ts";
import { SeededRandom } from "../../src/base/seeded_random.ts";
import { adaptVllmSpecDecode, type SpecDecodeAcceptance } from "../../src/endpoints/spec_decode.ts";

const stats = (field: string) => JSON.parse(`{${field.slice(1)}}`).metrics.speculative_decoding;

Deno.test("serve-sim's speculative decoding: every draft accepted, none, and the last step cut to the answer", () => {
  // p = 1, k = 3, 8 tokens: steps accept 3 (4 tokens) and 3 (4 tokens).
  assert.deepEqual(planSpecDecode(8, 3, 1, new SeededRandom(1))?.perStepAccepted, [3, 3]);
  // 6 tokens: 3 (4 tokens), then only 1 of the 2 left can be a draft (the other is the bonus token).
  assert.deepEqual(planSpecDecode(6, 3, 1, new SeededRandom(1))?.perStepAccepted, [3, 1]);
  // p = 0: one token per step.
  assert.deepEqual(planSpecDecode(4, 3, 0, new SeededRandom(1))?.perStepAccepted, [0, 0, 0, 0]);
  assert.equal(planSpecDecode(0, 3, 0.5, new SeededRandom(1)), undefined);
});

Deno.test("serve-sim's speculative decoding is seeded and its report is vLLM's consistent payload", () => {
  const a = planSpecDecode(200, 4, 0.6, new SeededRandom(7))!;
  assert.deepEqual(planSpecDecode(200, 4, 0.6, new SeededRandom(7)), a);
  const accepted = a.perStepAccepted.reduce((x, y) => x + y, 0);
  assert.equal(accepted + a.perStepAccepted.length, 200, "accepted drafts plus bonus tokens are the answer");
  const payload = stats(specDecodeMetricsField(a));
  assert.equal(payload.num_spec_steps, a.perStepAccepted.length);
  assert.equal(payload.num_draft_tokens, 4 * a.perStepAccepted.length);
  assert.equal(payload.acceptance_histogram.length, 5);
  const record = adaptVllmSpecDecode(payload, 200) as SpecDecodeAcceptance;
  assert.equal(record.numAcceptedDraftTokens, accepted);
  assert.equal(record.meanAcceptanceLength, 200 / a.perStepAccepted.length);
  // With p = 0.6 a step accepts all 4 drafts with probability 0.6^4 ≈ 0.13 and none with 0.4: both happen in ~60 steps.
  assert.ok(record.acceptanceHistogram["0"] > 0 && record.acceptanceHistogram["4"] > 0);
  assert.equal(specDecodeMetricsField(undefined), "");
});
