/**
 * `code_execution` (AIPerf 0.13's LiveCodeBench grader, lighteval's `codegen_metrics` pass@1): the code between the
 * answer's last two ``` fences is run against every public and private test case (`lcb_harness.ts`) in the sandbox
 * (`code_sandbox.ts`), 6 s per test, and the whole run at most `min(300, 7 × tests + 35)` s. Correct when every test
 * passes; no code block is unparsed. A machine where the sandbox cannot be made (no unprivileged namespaces, no
 * python3) refuses the grader before the run starts, saying why: generated code is never run unconfined.
 */
import type { AccuracyGrader, GradingResult } from "./accuracy_grader.ts";
import { LCB_HARNESS } from "./lcb_harness.ts";
import type { lcbTests } from "./lcb_tests.ts";
import { runSandboxed, sandboxProblem } from "./code_sandbox.ts";
import { CODE_EXECUTION_GRADER_DECLARATION } from "../accuracy_declarations.ts";

const TEST_TIMEOUT_S = 6;
const MAX_GRADE_S = 300;
const GOLD = "<lcb test cases>";

function failure(response: string, reason: string): GradingResult {
  return {
    correct: false,
    unparsed: true,
    confidence: 0,
    reasoning: `LCB grader failed: ${reason}`,
    extractedAnswer: response.trim().slice(0, 200),
    groundTruth: GOLD,
  };
}

/** The per-test results of running `code`: true, or -1 (no result), -2 (wrong), -3 (time), -4 (error). */
export async function runLcbTests(
  code: string,
  tests: ReturnType<typeof lcbTests>,
): Promise<(boolean | number)[]> {
  const nonce = `@@infermeter-${crypto.randomUUID()}@@`;
  const input = JSON.stringify({
    code,
    inputs: tests.inputs,
    outputs: tests.outputs,
    fn_name: tests.fnName,
    timeout: TEST_TIMEOUT_S,
    nonce,
  });
  const wallS = Math.min(MAX_GRADE_S, 7 * Math.max(tests.inputs.length, 1) + 35);
  const run = await runSandboxed(["-c", LCB_HARNESS], input, {
    wallMs: wallS * 1000,
    cpuSeconds: (TEST_TIMEOUT_S + 1) * tests.inputs.length + 5,
  });
  const at = run.stdout.lastIndexOf(nonce);
  if (at < 0) return tests.inputs.map(() => -1);
  try {
    return JSON.parse(run.stdout.slice(at + nonce.length).split("\n", 1)[0]);
  } catch {
    return tests.inputs.map(() => -1);
  }
}

export const CODE_EXECUTION_GRADER: AccuracyGrader = {
  ...CODE_EXECUTION_GRADER_DECLARATION,
  unavailable: async () => {
    const problem = await sandboxProblem();
    return problem === undefined ? undefined : `generated code is run only in a sandbox, and ${problem}`;
  },
  async grade(response, groundTruth) {
    // Loaded on use: the test cases' decoding needs node:zlib, which every run would otherwise load with the options.
    const { extractCode, lcbTests } = await import("./lcb_tests.ts");
    let tests;
    try {
      tests = lcbTests(groundTruth);
    } catch (err) {
      return failure(response, err instanceof SyntaxError ? "ground_truth not orjson" : `malformed test cases: ${err}`);
    }
    const snippet = extractCode(response);
    const results = await runLcbTests(snippet, tests);
    const pass = results.length > 0 && results.every((r) => r === true || (typeof r === "number" && r > 0)) ? 1 : 0;
    return {
      correct: pass >= 1,
      unparsed: snippet === "",
      confidence: pass,
      reasoning: `lighteval codegen_metrics pass@1=${pass.toFixed(3)} (snippet length=${[...snippet].length})` +
        (snippet === "" ? " (no code block extracted)" : ""),
      extractedAnswer: snippet,
      groundTruth: GOLD,
    };
  },
};
