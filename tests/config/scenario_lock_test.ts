import assert from "node:assert/strict";
import { applyScenario } from "../../src/config/scenario_lock.ts";

/** Option values by key; `given` lists those the user set. */
function lock(values: Record<string, unknown>, given: readonly string[] = Object.keys(values)) {
  return applyScenario({
    value: (key) => values[key],
    given: (key) => given.includes(key),
    named: (key) => `--${key}`,
  });
}

const AGENTX = { scenario: "inferencex-agentx-mvp", publicDataset: "semianalysis_cc_traces_weka_062126" };

Deno.test("scenario lock: no --scenario changes nothing", () => {
  assert.deepEqual(lock({ streaming: false }), { fills: {}, problems: [], warnings: [] });
});

Deno.test("scenario lock: an unknown scenario is refused with AIPerf's message", () => {
  assert.deepEqual(lock({ scenario: "agentx" }).problems, [
    "Unknown scenario 'agentx'. Valid scenarios: inferencex-agentx-mvp",
  ]);
});

Deno.test("scenario lock: inferencex-agentx-mvp fills what was left unset", () => {
  const out = lock({ ...AGENTX, extraInputs: { temperature: 0 }, cacheBust: "none" }, ["scenario", "publicDataset"]);
  assert.deepEqual(out.problems, []);
  assert.deepEqual(out.fills, {
    streaming: true,
    extraInputs: { temperature: 0, ignore_eos: true },
    cacheBust: "first_turn_prefix",
    benchmarkDuration: 1800,
    trajectoryStartMinRatio: 0,
    trajectoryStartMaxRatio: 1,
    systemIdleGapCapSeconds: 10,
  });
});

Deno.test("scenario lock: explicit values are kept where allowed and conflicts are all listed", () => {
  const out = lock({
    ...AGENTX,
    streaming: false,
    extraInputs: { ignore_eos: "false" },
    cacheBust: "system_prefix",
    benchmarkDuration: 60,
    trajectoryStartMinRatio: 0.3,
    systemIdleGapCapSeconds: 5,
    ignoreTraceDelays: true,
  });
  assert.equal(out.fills.trajectoryStartMinRatio, undefined, "an explicit ratio is honoured");
  assert.equal(out.problems.length, 1);
  const problem = out.problems[0];
  assert.match(problem, /^Scenario invariants violated \(6 conflicts\):/);
  for (const flag of ["--streaming", "extra_inputs.ignore_eos", "--cache-bust", "--benchmark-duration"]) {
    assert.ok(problem.includes(`  - ${flag}: got`), `${flag} listed`);
  }
  assert.match(problem, /--system-idle-gap-cap-seconds: got 5, required 10/);
  assert.match(problem, /--ignore-trace-delays: got true, required false/);
  assert.match(problem, /Pass --unsafe-override to convert to warnings/);
});

Deno.test("scenario lock: --unsafe-override turns the conflicts into warnings", () => {
  const out = lock({ ...AGENTX, benchmarkDuration: 60, unsafeOverride: true });
  assert.deepEqual(out.problems, []);
  assert.equal(out.warnings.length, 1);
  assert.match(
    out.warnings[0],
    /^Scenario violation \(override active\): --benchmark-duration: got 60, required '>=900'/,
  );
});

Deno.test("scenario lock: a local weka_trace file cannot prove its corpus; another loader is the wrong one", () => {
  const local = lock({ scenario: "inferencex-agentx-mvp", inputFile: "traces/", customDatasetType: "weka_trace" });
  assert.match(local.problems[0], /--custom-dataset-type \/ --input-file: got 'weka_trace \(local, unpinned\)'/);
  const other = lock({ scenario: "inferencex-agentx-mvp", inputFile: "a.jsonl", customDatasetType: "mooncake_trace" });
  assert.match(other.problems[0], /--input-file \(loader\): got 'mooncake_trace'/);
  const hf = lock({ scenario: "inferencex-agentx-mvp", hfWekaDataset: "someone/else" });
  assert.match(
    hf.problems[0],
    /--hf-weka-dataset: got 'someone\/else', required 'semianalysisai\/cc-traces-weka-062126'/,
  );
  const pinned = lock({ scenario: "inferencex-agentx-mvp", hfWekaDataset: "semianalysisai/cc-traces-weka-062126" });
  assert.deepEqual(pinned.problems, []);
});

Deno.test("scenario lock: synthetic data is refused even with --unsafe-override", () => {
  const out = lock({ scenario: "inferencex-agentx-mvp", unsafeOverride: true });
  assert.equal(out.problems.length, 1);
  assert.match(out.problems[0], /got 'synthetic'/);
  assert.match(out.problems[0], /cannot be bypassed with --unsafe-override/);
});
