/**
 * LiveCodeBench code generation as AIPerf 0.13 sends it (lighteval's `lcb:codegeneration` prompt):
 * `livecodebench/code_generation_lite` at the release AIPerf pins (`v4_v5`; `AIPERF_ACCURACY_LCB_RELEASE_TAG` picks
 * another), whose files are chosen as its loading script chooses them (`release_vN`: test.jsonl … testN.jsonl;
 * `vN`: testN.jsonl; `vA_vB`: testA … testB). Zero-shot, no tasks, no chain of thought (each is refused, as AIPerf
 * does). The prompt gives the problem, then its starter code or the stdin/stdout instructions; 32768 tokens. The
 * gold is the test cases as compact JSON (`starter_code`, `public_test_cases`, `private_test_cases`, `metadata`),
 * which the code-execution grader runs.
 */
import type { AccuracyBenchmark, BenchmarkProblem } from "../accuracy_benchmark.ts";
import { DatasetError } from "../../dataset_error.ts";
import type { HfRow } from "../../hf_rows.ts";
import { optionalText } from "../row_column.ts";
import { LCB_CODEGENERATION_BENCHMARK_DECLARATION } from "../accuracy_declarations.ts";

const REPO = "livecodebench/code_generation_lite";
const DEFAULT_RELEASE = "v4_v5";

/** The files of a release tag, as the dataset's loading script reads them; undefined for a tag it does not know. */
export function lcbReleaseFiles(tag: string): string[] | undefined {
  const file = (n: number) => (n === 1 ? "test.jsonl" : `test${n}.jsonl`);
  const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => file(a + i));
  if (tag === "release_latest") return range(1, 6);
  let m = /^release_v(\d+)$/.exec(tag);
  if (m !== null) return Number(m[1]) >= 1 ? range(1, Number(m[1])) : undefined;
  m = /^v(\d+)$/.exec(tag);
  if (m !== null) return Number(m[1]) >= 1 ? [file(Number(m[1]))] : undefined;
  m = /^v(\d+)_v(\d+)$/.exec(tag);
  if (m !== null && Number(m[1]) >= 1 && Number(m[1]) <= Number(m[2])) return range(Number(m[1]), Number(m[2]));
  return undefined;
}

function prompt(row: HfRow): string {
  const starter = optionalText(row, "starter_code");
  let query = "You will be given a question (problem specification) and will generate a correct Python program " +
    "that matches the specification and passes all tests.\n\n";
  query += `Question: ${row.question_content ?? ""}\n\n`;
  if (starter !== "") {
    query += "You will use the following starter code to write the solution to the problem and enclose your code " +
      "within delimiters.\n";
    query += "```python\n" + starter + "\n```\n\n";
  } else {
    query += "Read the inputs from stdin solve the problem and write the answer to stdout (do not directly test on " +
      "the sample inputs). Enclose your code within delimiters as follows. Ensure that when the python program " +
      "runs, it reads the inputs, runs the algorithm and writes output to STDOUT.\n";
    query += "```python\n# YOUR CODE HERE\n```\n\n";
  }
  return query;
}

function field(row: HfRow, name: string): unknown {
  return name in row ? row[name] : "";
}

export const LCB_CODEGENERATION_BENCHMARK: AccuracyBenchmark = {
  ...LCB_CODEGENERATION_BENCHMARK_DECLARATION,
  defaultGrader: "code_execution",
  defaultNShots: 0,
  defaultEnableCot: false,
  repositories: [REPO],
  async load(ctx) {
    const refuse = (option: string, why: string) => new DatasetError(option, undefined, why);
    if (ctx.tasks !== undefined) {
      throw refuse("--accuracy-tasks", "is not supported by lcb_codegeneration: it evaluates the whole test split");
    }
    if (ctx.nShots !== 0) {
      throw refuse("--accuracy-n-shots", "other than 0 is not supported by lcb_codegeneration: it is zero-shot");
    }
    if (ctx.enableCot) {
      throw refuse("--accuracy-enable-cot", "is not supported by lcb_codegeneration: its prompt has no CoT trigger");
    }
    const tag = ctx.env("AIPERF_ACCURACY_LCB_RELEASE_TAG") || DEFAULT_RELEASE;
    const files = lcbReleaseFiles(tag);
    if (files === undefined) {
      throw refuse(
        "AIPERF_ACCURACY_LCB_RELEASE_TAG",
        `'${tag}' is not a LiveCodeBench release (release_v1 … release_v6, release_latest, v1 … v6, vA_vB)`,
      );
    }
    return (await ctx.source.fileRows(REPO, files)).map((row): BenchmarkProblem => ({
      prompt: prompt(row),
      groundTruth: JSON.stringify({
        starter_code: field(row, "starter_code"),
        public_test_cases: field(row, "public_test_cases"),
        private_test_cases: field(row, "private_test_cases"),
        metadata: field(row, "metadata"),
      }),
      task: "lcb_codegeneration",
      generationSize: 32768,
    }));
  },
};
