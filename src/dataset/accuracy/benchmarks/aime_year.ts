/**
 * AIME 2024 and 2025 as AIPerf 0.13 sends them (lighteval's recipe): `HuggingFaceH4/aime_2024` and
 * `yentinglin/aime_2025`, split `train`, the problem as the only user message, 32768 tokens; the gold is `answer`.
 * `--accuracy-tasks`, shots and chain of thought do not apply.
 */
import type { AccuracyBenchmark, BenchmarkProblem } from "../accuracy_benchmark.ts";
import { textColumn } from "../row_column.ts";

function aimeYear(name: string, repo: string, year: number): AccuracyBenchmark {
  return {
    name,
    description: `AIME ${year} (${repo}), zero-shot, lighteval's expression grading.`,
    defaultGrader: "lighteval_expr",
    defaultNShots: 0,
    defaultEnableCot: false,
    repositories: [repo],
    async load(ctx) {
      const where = `--accuracy-benchmark ${name}`;
      const problems: BenchmarkProblem[] = [];
      for (const row of await ctx.source.rows(repo, "train")) {
        problems.push({
          prompt: textColumn(row, "problem", where),
          groundTruth: textColumn(row, "answer", where),
          task: name,
          generationSize: 32768,
        });
      }
      return problems;
    },
  };
}

export const AIME24_BENCHMARK: AccuracyBenchmark = aimeYear("aime24", "HuggingFaceH4/aime_2024", 2024);
export const AIME25_BENCHMARK: AccuracyBenchmark = aimeYear("aime25", "yentinglin/aime_2025", 2025);
