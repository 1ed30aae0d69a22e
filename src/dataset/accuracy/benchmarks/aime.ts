/**
 * AIME (the legacy combined set) as AIPerf 0.13 sends it, after the trt-llm recipe's DeepEval path:
 * `Maxwell-Jia/AIME_2024` split `train`; the first `n` rows (at most 8, default 8) are the worked examples, each
 * `**Problem**: …\n[**Solution**: …\n]**Answer**: …` (the solution only with chain of thought, on by default), after
 * a header naming the competition; then `**Problem**: {problem}\n**Answer**: \n\n` and "Let's think step-by-step."
 * (or, without chain of thought, "No explanation needed. Just return a number."). 32768 tokens; the default system
 * prompt asks for the answer in `\boxed{}`.
 */
import type { AccuracyBenchmark, BenchmarkProblem } from "../accuracy_benchmark.ts";
import { DatasetError } from "../../dataset_error.ts";
import type { HfRow } from "../../hf_rows.ts";
import { optionalText, textColumn } from "../row_column.ts";
import { AIME_BENCHMARK_DECLARATION } from "../accuracy_declarations.ts";

const REPO = "Maxwell-Jia/AIME_2024";
const WHERE = "--accuracy-benchmark aime";
const MAX_N_SHOTS = 8;
const FEW_SHOT_HEADER = "The following are problems from the American Invitational Mathematics Examination (AIME) " +
  "2024. AIME is a prestigious high school mathematics competition known for its challenging mathematical " +
  "problems.\n\n";

interface Example {
  readonly problem: string;
  readonly solution: string;
  readonly answer: string;
}

function example(row: HfRow): Example {
  return {
    problem: textColumn(row, "Problem", WHERE),
    solution: optionalText(row, "Solution"),
    answer: textColumn(row, "Answer", WHERE),
  };
}

function block(ex: Example, cot: boolean): string {
  return `**Problem**: ${ex.problem}\n` + (cot ? `**Solution**: ${ex.solution}\n` : "") + `**Answer**: ${ex.answer}`;
}

export const AIME_BENCHMARK: AccuracyBenchmark = {
  ...AIME_BENCHMARK_DECLARATION,
  defaultGrader: "math",
  defaultNShots: 8,
  defaultEnableCot: true,
  defaultSystemPrompt: "Please reason step by step, and put your final answer within \\boxed{}.",
  repositories: [REPO],
  async load(ctx) {
    if (ctx.nShots > MAX_N_SHOTS) {
      throw new DatasetError(
        "--accuracy-n-shots",
        undefined,
        `AIME takes at most ${MAX_N_SHOTS} few-shot examples (got ${ctx.nShots})`,
      );
    }
    const rows = await ctx.source.rows(REPO, "train");
    const shots = rows.slice(0, Math.max(0, Math.min(ctx.nShots, rows.length))).map(example);
    let header = "";
    if (shots.length > 0) header = FEW_SHOT_HEADER + shots.map((s) => block(s, ctx.enableCot) + "\n\n").join("");
    const suffix = ctx.enableCot ? "Let's think step-by-step." : "No explanation needed. Just return a number.";
    return rows.map((row): BenchmarkProblem => ({
      prompt: `${header}**Problem**: ${textColumn(row, "Problem", WHERE)}\n**Answer**: \n\n${suffix}`,
      groundTruth: textColumn(row, "Answer", WHERE),
      task: "aime",
      generationSize: 32768,
    }));
  },
};
