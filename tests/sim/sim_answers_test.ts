import assert from "node:assert/strict";
import { answerPieces, AnswerWords, SimAnswers } from "../../src/sim/sim_answers.ts";
import { answeredPlan, type GenerationPlan } from "../../src/sim/plan_generation.ts";
import { SeededRandom } from "../../src/base/seeded_random.ts";

Deno.test("serve-sim answers cut a known answer into whitespace-led pieces that join back to it", () => {
  assert.deepEqual(answerPieces("The answer is 4.\n#### 4"), ["The", " answer", " is", " 4.", "\n####", " 4"]);
  assert.equal(answerPieces("  a b ").join(""), "  a b ");
  const answers = SimAnswers.parse('{"prompt": " Q?\\n", "answer": "x \\"y\\"\\nz"}\n\n', "a.jsonl");
  assert.equal(answers.size, 1);
  // Matched on the last prompt text, trimmed; pieces escaped for the JSON strings routes write them into.
  assert.deepEqual(answers.piecesFor(["system", "Q?"]), ["x", ' \\"y\\"', "\\nz"]);
  assert.equal(answers.piecesFor(["Q?", "other"]), undefined);
  assert.equal(answers.piecesFor([]), undefined);
});

Deno.test("serve-sim answers files are checked line by line", () => {
  assert.throws(
    () => SimAnswers.parse('{"prompt": "a", "answer": "b"}\nnot json', "f.jsonl"),
    /f\.jsonl:2: not valid JSON/,
  );
  assert.throws(() => SimAnswers.parse('{"prompt": "a"}', "f.jsonl"), /f\.jsonl:1: expected \{"prompt"/);
  assert.throws(
    () => SimAnswers.parse('{"prompt": "a", "answer": "b"}\n{"prompt": "a ", "answer": "c"}', "f.jsonl"),
    /f\.jsonl:2: this prompt is listed before with another answer/,
  );
});

Deno.test("an answered request sends the answer after its reasoning, cut at the max tokens", () => {
  const planned: GenerationPlan = { promptTokens: 9, reasoningTokens: 2, contentTokens: 50, finishReason: "length" };
  assert.deepEqual(answeredPlan(planned, 3, undefined), { ...planned, contentTokens: 3, finishReason: "stop" });
  assert.deepEqual(answeredPlan(planned, 3, 5), { ...planned, contentTokens: 3, finishReason: "stop" });
  assert.deepEqual(answeredPlan(planned, 3, 4), { ...planned, contentTokens: 2, finishReason: "length" });
  assert.deepEqual(answeredPlan(planned, 3, 1), {
    ...planned,
    reasoningTokens: 1,
    contentTokens: 0,
    finishReason: "length",
  });
  const words = new AnswerWords(new SeededRandom(1), 2, ["A", " b", " c"]);
  const reasoning = words.take(2);
  assert.equal(reasoning.trim().split(" ").length, 2);
  assert.equal(words.take(2) + words.take(5), "A b c");
});
