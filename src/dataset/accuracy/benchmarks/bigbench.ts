/**
 * BigBench-Hard as AIPerf 0.13 sends it (DeepEval's `BigBenchHard` prompt, the trt-llm recipe): `lukaemon/bbh`, one
 * subset per subtask (`--accuracy-tasks`, all 27 by default), split `test`. The prompt is "Task description: ", the
 * first `n + 1` blank-line-separated sections (the task description and `n` worked examples; default 3, at most 3) of
 * the subtask's prompt file, then `\n\nQ: {input}\nA: ` and the subtask's instruction on the answer's form. The
 * prompt files are DeepEval's: the BBH repository's chain-of-thought prompts (`cot_prompts/`, chain of thought is on
 * by default) and their answer-only versions (`shot_prompts/`). They are read from
 * `$INFERMETER_DATASET_DIR/deepeval/big_bench_hard/` (copy DeepEval's `deepeval/benchmarks/big_bench_hard/cot_prompts`
 * and `shot_prompts` there). 1024 tokens; the gold is `target`.
 */
import type { AccuracyBenchmark, BenchmarkProblem } from "../accuracy_benchmark.ts";
import { DatasetError } from "../../dataset_error.ts";
import { textColumn } from "../row_column.ts";
import { BIGBENCH_BENCHMARK_DECLARATION } from "../accuracy_declarations.ts";

const REPO = "lukaemon/bbh";
const WHERE = "--accuracy-benchmark bigbench";
const MAX_N_SHOTS = 3;

/** Each subtask, in order, and the instruction on its answer's form that ends its prompts (DeepEval's). */
export const BBH_CONFINEMENT: Readonly<Record<string, string>> = {
  "boolean_expressions": "\n\nOutput 'True' or 'False'. Full answer not needed.",
  "causal_judgement": "\n\nOutput 'Yes' or 'No'. Full answer not needed.",
  "date_understanding": "\n\nOutput '(A)', '(B)', '(C)', '(D)', '(E)', or '(F)'. Full answer not needed.",
  "disambiguation_qa": "\n\nOutput '(A)', '(B)', or '(C)'. Full answer not needed.",
  "dyck_languages":
    "\n\nOutput only the sequence of parentheses characters separated by white space. Full answer not needed.",
  "formal_fallacies": "\n\nOutput 'invalid' or 'valid'. Full answer not needed.",
  "geometric_shapes":
    "\n\nOutput '(A)', '(B)', '(C)', '(D)', '(E)', '(F)', '(G)', '(H)', '(I)', '(J)', or '(K)'. Full answer not needed.",
  "hyperbaton": "\n\nOutput '(A)' or'(B)'. Full answer not needed.",
  "logical_deduction_five_objects": "\n\nOutput '(A)', '(B)', '(C)', '(D)', or '(E)'. Full answer not needed.",
  "logical_deduction_seven_objects":
    "\n\nOutput '(A)', '(B)', '(C)', '(D)', '(E)', '(F)', or '(G)'. Full answer not needed.",
  "logical_deduction_three_objects": "\n\nOutput '(A)', '(B)', or '(C)'. Full answer not needed.",
  "movie_recommendation": "\n\nOutput '(A)', '(B)', '(C)', '(D)', or '(E)'. Full answer not needed.",
  "multistep_arithmetic_two": "\n\nOutput the numerical answer. Full answer not needed.",
  "navigate": "\n\nOutput 'Yes' or 'No'. Full answer not needed.",
  "object_counting": "\n\nOutput the numerical answer. Full answer not needed.",
  "penguins_in_a_table": "\n\nOutput '(A)', '(B)', '(C)', '(D)', or '(E)'. Full answer not needed.",
  "reasoning_about_colored_objects":
    "\n\nOutput '(A)', '(B)', '(C)', '(D)', '(E)', '(F)', '(G)', '(H)', '(I)', '(J)', '(K)', '(L)', '(M)', '(N)', '(O)', '(P)', '(Q)', or '(R)'. Full answer not needed.",
  "ruin_names": "\n\nOutput '(A)', '(B)', '(C)', or '(D)'. Full answer not needed.",
  "salient_translation_error_detection":
    "\n\nOutput '(A)', '(B)', '(C)', '(D)', '(E)', or '(F)'. Full answer not needed.",
  "snarks": "\n\nOutput '(A)' or'(B)'. Full answer not needed.",
  "sports_understanding": "\n\nOutput 'yes' or 'no'. Full answer not needed.",
  "temporal_sequences": "\n\nOutput '(A)', '(B)', '(C)', or '(D)'. Full answer not needed.",
  "tracking_shuffled_objects_five_objects": "\n\nOutput '(A)', '(B)', '(C)', '(D)', or '(E)'. Full answer not needed.",
  "tracking_shuffled_objects_seven_objects":
    "\n\nOutput '(A)', '(B)', '(C)', '(D)', '(E)', '(F)', or '(G)'. Full answer not needed.",
  "tracking_shuffled_objects_three_objects": "\n\nOutput '(A)', '(B)', or '(C)'. Full answer not needed.",
  "web_of_lies": "\n\nOutput 'Yes' or 'No'. Full answer not needed.",
  "word_sorting": "\n\nOutput only the sequence of words separated by white space. Full answer not needed.",
};

/** The 27 subtasks, in the order problems are sent. */
export const BBH_TASKS: readonly string[] = Object.keys(BBH_CONFINEMENT);

/** The subtasks `--accuracy-tasks` names (values or upper-case enum names); all when none. */
export function bigbenchTasks(tasks: readonly string[] | undefined): readonly string[] {
  if (tasks === undefined || tasks.length === 0) return BBH_TASKS;
  const lowered = tasks.map((t) => t.toLowerCase());
  if (lowered.includes("all")) {
    if (lowered.length === 1) return BBH_TASKS;
    throw new DatasetError("--accuracy-tasks", undefined, "'all' cannot be mixed with other task names");
  }
  const unknown = tasks.filter((t) => !BBH_TASKS.includes(t) && !BBH_TASKS.includes(t.toLowerCase()));
  if (unknown.length > 0) {
    throw new DatasetError(
      "--accuracy-tasks",
      undefined,
      `${unknown.map((u) => `'${u}'`).join(", ")}: not a BBH subtask; the subtasks are ${
        [...BBH_TASKS].sort().join(", ")
      }`,
    );
  }
  return tasks.map((t) => BBH_TASKS.includes(t) ? t : t.toLowerCase());
}

export const BIGBENCH_BENCHMARK: AccuracyBenchmark = {
  ...BIGBENCH_BENCHMARK_DECLARATION,
  defaultGrader: "exact_match",
  defaultNShots: 3,
  defaultEnableCot: true,
  repositories: [REPO],
  async load(ctx) {
    if (ctx.nShots > MAX_N_SHOTS) {
      throw new DatasetError(
        "--accuracy-n-shots",
        undefined,
        `BBH takes at most ${MAX_N_SHOTS} few-shot examples (got ${ctx.nShots}): its prompt files hold 3 worked examples`,
      );
    }
    const folder = ctx.enableCot ? "cot_prompts" : "shot_prompts";
    const problems: BenchmarkProblem[] = [];
    for (const task of bigbenchTasks(ctx.tasks)) {
      const file = await ctx.source.textFile(
        `deepeval/big_bench_hard/${folder}/${task}.txt`,
        `DeepEval's BBH prompt file (the ${folder} folder of deepeval/benchmarks/big_bench_hard in the deepeval package)`,
      );
      const head = "Task description: " + file.split("\n\n").slice(0, ctx.nShots + 1).join("\n\n");
      for (const row of await ctx.source.rows(REPO, "test", task)) {
        problems.push({
          prompt: `${head}\n\nQ: ${textColumn(row, "input", WHERE)}\nA: ${BBH_CONFINEMENT[task]}`,
          groundTruth: textColumn(row, "target", WHERE),
          task,
          generationSize: 1024,
        });
      }
    }
    return problems;
  },
};
