/**
 * infermeter's accuracy prompts and grades against what AIPerf 0.13's own Python produced from the same fixtures
 * (`scripts/parity/accuracy/capture_aiperf_accuracy.py` wrote `tests/fixtures/accuracy/aiperf_*.json`).
 */
import assert from "node:assert/strict";
import { loadAccuracyDataset } from "../../../src/dataset/accuracy/load_accuracy_dataset.ts";
import { ACCURACY_GRADERS } from "../../../src/dataset/accuracy/accuracy_graders.ts";

const FIXTURES = new URL("../../fixtures/accuracy/", import.meta.url);
const DATASETS = new URL("datasets", FIXTURES).pathname;
const env = (name: string) => (name === "INFERMETER_DATASET_DIR" ? DATASETS : undefined);

interface CapturedSession {
  messages: { role: string; content: string }[];
  prompt: string;
  max_tokens: number;
  extra_body: { stop: string[] } | null;
  ground_truth: string;
  task: string;
}
interface Scenario {
  options: {
    benchmark: string;
    tasks?: string[];
    n_shots?: number;
    enable_cot?: boolean;
    system_prompt?: string;
  };
  sessions: CapturedSession[];
}

const prompts: Record<string, Scenario> = JSON.parse(
  await Deno.readTextFile(new URL("aiperf_prompts.json", FIXTURES)),
);

for (const [name, scenario] of Object.entries(prompts)) {
  Deno.test(`accuracy dataset ${name} sends AIPerf's prompts, max tokens and stops, with AIPerf's golds and tasks`, async () => {
    const o = scenario.options;
    const dataset = await loadAccuracyDataset({
      benchmark: o.benchmark,
      tasks: o.tasks,
      nShots: o.n_shots,
      enableCot: o.enable_cot,
      systemPrompt: o.system_prompt,
      verbose: false,
    }, { env });
    assert.equal(dataset.conversations.length, scenario.sessions.length);
    dataset.conversations.forEach((conversation, i) => {
      const want = scenario.sessions[i];
      const turn = conversation.turns[0];
      assert.deepEqual(turn.messages, want.messages, `session ${i} messages`);
      assert.equal(turn.texts[0], want.prompt, `session ${i} prompt`);
      assert.equal(turn.maxTokens, want.max_tokens, `session ${i} max tokens`);
      assert.deepEqual(turn.extra ?? null, want.extra_body, `session ${i} extra body`);
      const gold = dataset.accuracy.problems.get(conversation.id);
      assert.deepEqual(gold, { groundTruth: want.ground_truth, task: want.task }, `session ${i} gold`);
    });
  });
}

interface GradeCase {
  grader: string;
  response: string;
  gold: string;
  aiperf: {
    correct: boolean;
    unparsed: boolean;
    confidence: number;
    reasoning: string;
    extracted_answer: string;
    ground_truth: string;
  };
}

const grades: GradeCase[] = JSON.parse(await Deno.readTextFile(new URL("aiperf_grades.json", FIXTURES)));

for (const [i, c] of grades.entries()) {
  Deno.test(`accuracy grader ${c.grader} grades case ${i} (${JSON.stringify(c.response.slice(0, 30))}) as AIPerf does`, async () => {
    const got = await (await ACCURACY_GRADERS.get(c.grader).grader()).grade(c.response, c.gold);
    assert.deepEqual(
      {
        correct: got.correct,
        unparsed: got.unparsed,
        confidence: got.confidence,
        extracted_answer: got.extractedAnswer,
        ground_truth: got.groundTruth,
      },
      {
        correct: c.aiperf.correct,
        unparsed: c.aiperf.unparsed,
        confidence: c.aiperf.confidence,
        extracted_answer: c.aiperf.extracted_answer,
        ground_truth: c.aiperf.ground_truth,
      },
    );
    if (c.grader !== "math") assert.equal(got.reasoning, c.aiperf.reasoning);
  });
}
