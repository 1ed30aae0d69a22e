/**
 * GSM8K as AIPerf 0.13 sends it (lighteval's `gsm8k_leaderboard`): `openai/gsm8k`, subset `main`, split `test`, one
 * zero-shot user message `Question: {question}\nAnswer:`, 256 tokens; the gold is the whole `answer` (its number
 * after `####` is taken when graded).
 */
import type { AccuracyBenchmark, BenchmarkProblem } from "../accuracy_benchmark.ts";
import { textColumn } from "../row_column.ts";
import { GSM8K_BENCHMARK_DECLARATION } from "../accuracy_declarations.ts";

const REPO = "openai/gsm8k";

export const GSM8K_BENCHMARK: AccuracyBenchmark = {
  ...GSM8K_BENCHMARK_DECLARATION,
  defaultGrader: "lighteval_gsm8k",
  defaultNShots: 0,
  defaultEnableCot: false,
  repositories: [REPO],
  async load(ctx) {
    const where = "--accuracy-benchmark gsm8k";
    const problems: BenchmarkProblem[] = [];
    for (const row of await ctx.source.rows(REPO, "test", "main")) {
      const prompt = `Question: ${textColumn(row, "question", where)}\nAnswer:`;
      problems.push({ prompt, groundTruth: textColumn(row, "answer", where), task: "gsm8k", generationSize: 256 });
    }
    return problems;
  },
};
