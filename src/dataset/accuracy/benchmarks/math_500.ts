/**
 * MATH-500 as AIPerf 0.13 sends it (lighteval's recipe): `HuggingFaceH4/MATH-500` split `test`, the problem as the
 * only user message, 32768 tokens; the gold is the full `solution` (its boxed answer is taken when graded); the task
 * is the row's `subject`. `--accuracy-tasks`, shots and chain of thought do not apply.
 */
import type { AccuracyBenchmark, BenchmarkProblem } from "../accuracy_benchmark.ts";
import { optionalText, textColumn } from "../row_column.ts";
import { MATH_500_BENCHMARK_DECLARATION } from "../accuracy_declarations.ts";

const REPO = "HuggingFaceH4/MATH-500";

export const MATH_500_BENCHMARK: AccuracyBenchmark = {
  ...MATH_500_BENCHMARK_DECLARATION,
  defaultGrader: "lighteval_latex",
  defaultNShots: 0,
  defaultEnableCot: false,
  repositories: [REPO],
  async load(ctx) {
    const where = "--accuracy-benchmark math_500";
    const problems: BenchmarkProblem[] = [];
    for (const row of await ctx.source.rows(REPO, "test")) {
      const prompt = textColumn(row, "problem", where);
      problems.push({
        prompt,
        groundTruth: optionalText(row, "solution"),
        task: optionalText(row, "subject") || "math_500",
        generationSize: 32768,
      });
    }
    return problems;
  },
};
