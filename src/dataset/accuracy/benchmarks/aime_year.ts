/**
 * AIME 2024 and 2025 as AIPerf 0.13 sends them (lighteval's recipe): `HuggingFaceH4/aime_2024` and
 * `yentinglin/aime_2025`, split `train`, the problem as the only user message, 32768 tokens; the gold is `answer`.
 * `--accuracy-tasks`, shots and chain of thought do not apply.
 */
import type { AccuracyBenchmark, BenchmarkProblem } from "../accuracy_benchmark.ts";
import type { RegistryEntry } from "../../../base/registry.ts";
import { textColumn } from "../row_column.ts";
import { AIME24_BENCHMARK_DECLARATION, AIME25_BENCHMARK_DECLARATION } from "../accuracy_declarations.ts";

function aimeYear(declaration: RegistryEntry, repo: string): AccuracyBenchmark {
  const name = declaration.name;
  return {
    ...declaration,
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

export const AIME24_BENCHMARK: AccuracyBenchmark = aimeYear(AIME24_BENCHMARK_DECLARATION, "HuggingFaceH4/aime_2024");
export const AIME25_BENCHMARK: AccuracyBenchmark = aimeYear(AIME25_BENCHMARK_DECLARATION, "yentinglin/aime_2025");
