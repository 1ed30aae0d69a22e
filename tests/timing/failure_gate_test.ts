import assert from "node:assert/strict";
import { FailureGate } from "../../src/timing/failure_gate.ts";

Deno.test("FailureGate judges only after enough requests, then closes once above the threshold", () => {
  const gate = new FailureGate({ threshold: 0.5, judgeAfter: 4 });
  assert.equal(gate.observe(true), undefined);
  assert.equal(gate.observe(true), undefined);
  assert.equal(gate.observe(true), undefined, "3 of 3 failed, but not judged before 4");
  const reason = gate.observe(false);
  assert.equal(reason, "3 of 4 requests failed (75.0%), above --failed-request-threshold 0.5; the run was stopped.");
  assert.equal(gate.tripped, reason);
  assert.equal(gate.observe(true), undefined, "reported once");
});

Deno.test("FailureGate stays open at exactly the threshold", () => {
  const gate = new FailureGate({ threshold: 0.5, judgeAfter: 2 });
  for (let i = 0; i < 10; i++) assert.equal(gate.observe(i % 2 === 1), undefined);
  assert.equal(gate.tripped, undefined);
});
