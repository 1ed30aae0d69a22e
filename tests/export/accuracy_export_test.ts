import assert from "node:assert/strict";
import {
  accuracyJsonlLine,
  type AccuracyRecord,
  accuracyResultsCsv,
  accuracyTable,
  summarizeAccuracy,
} from "../../src/export/accuracy_export.ts";

function rec(task: string | undefined, passed: boolean, unparsed: boolean, extra: Partial<AccuracyRecord> = {}) {
  return {
    sessionNum: 0,
    conversationId: "session_000000",
    xRequestId: "id",
    workerId: "worker_0",
    timestampNs: "1700000000000000001",
    task,
    graderName: "multiple_choice",
    passed,
    unparsed,
    confidence: passed ? 1 : 0,
    expected: "A",
    actual: "A",
    explanation: "why",
    modelOutput: "A",
    modelThinking: undefined,
    ...extra,
  } satisfies AccuracyRecord;
}

Deno.test("accuracy is counted per task and overall; answers without a task count overall only", () => {
  const s = summarizeAccuracy([
    rec("b_task", true, false),
    rec("a_task", false, true),
    rec("b_task", true, true),
    rec(undefined, false, false),
  ]);
  assert.deepEqual([s.total, s.passed, s.unparsed, s.graderName], [4, 2, 2, "multiple_choice"]);
  assert.deepEqual([...s.perTask.keys()], ["a_task", "b_task"]);
  assert.equal(
    accuracyResultsCsv(s),
    "task,correct,total,unparsed,accuracy\r\nOVERALL,2,4,2,0.5000\r\na_task,0,1,1,0.0000\r\nb_task,2,2,1,1.0000\r\n",
  );
  assert.equal(accuracyResultsCsv(summarizeAccuracy([])), "");
  assert.equal(accuracyTable(summarizeAccuracy([]), 120), undefined);
});

Deno.test("an accuracy JSONL line has AIPerf's keys in order, floats as Python writes them", () => {
  const line = accuracyJsonlLine(rec("t", true, false, { confidence: 1, modelThinking: "hmm" }));
  assert.equal(
    line,
    '{"session_num":0,"conversation_id":"session_000000","x_request_id":"id","worker_id":"worker_0",' +
      '"benchmark_phase":"profiling","timestamp_ns":1700000000000000001,"task":"t","grader_name":"multiple_choice",' +
      '"passed":true,"unparsed":false,"confidence":1.0,"expected":"A","actual":"A","explanation":"why",' +
      '"model_output":"A","model_thinking":"hmm"}',
  );
  assert.match(
    accuracyJsonlLine(rec(undefined, false, false, { confidence: 0.25 })),
    /"task":null,.*"confidence":0\.25,/,
  );
  assert.doesNotMatch(accuracyJsonlLine(rec("t", true, false)), /model_thinking/);
});

Deno.test("the accuracy table lists tasks then OVERALL, and warns when every answer was unparsed", () => {
  const table = accuracyTable(summarizeAccuracy([rec("t", true, false), rec("t", false, false)]), 120)!;
  const lines = table.split("\n");
  assert.equal(lines[0].trim(), "Accuracy Benchmark Results");
  assert.match(lines[4], /^│ t +│ +1 │ +2 │ +0 │ +50\.00% │$/);
  assert.match(lines[5], /^├─+┼/);
  assert.match(lines[6], /^│ OVERALL +│/);
  assert.doesNotMatch(table, /Warning/);
  const allUnparsed = accuracyTable(summarizeAccuracy([rec("t", false, true)]), 120)!;
  assert.match(allUnparsed, /Warning: every accuracy response was unparsed \(accuracy=0\)/);
});
