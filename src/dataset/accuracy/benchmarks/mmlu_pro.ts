/**
 * MMLU-Pro as AIPerf 0.13 sends it (TIGER-AI-Lab's `evaluate_from_api.py`): `TIGER-Lab/MMLU-Pro`, questions of the
 * `test` split whose `category` is asked (`--accuracy-tasks`, all 14 by default), in file order; the first `n`
 * (default 5) `validation` rows of the same category are the worked examples (their `cot_content` with chain of
 * thought, on by default, else their answer letter). Options `N/A` are left out; one user message; 4000 tokens; the
 * gold is the answer letter (A–J).
 */
import type { AccuracyBenchmark, BenchmarkProblem } from "../accuracy_benchmark.ts";
import { DatasetError } from "../../dataset_error.ts";
import type { HfRow } from "../../hf_rows.ts";
import { textColumn, textList } from "../row_column.ts";
import { MMLU_PRO_BENCHMARK_DECLARATION } from "../accuracy_declarations.ts";

const REPO = "TIGER-Lab/MMLU-Pro";
const WHERE = "--accuracy-benchmark mmlu_pro";
const LETTERS = "ABCDEFGHIJ";

/** The 14 categories, in AIPerf's order. */
export const MMLU_PRO_CATEGORIES: readonly string[] = [
  "biology",
  "business",
  "chemistry",
  "computer science",
  "economics",
  "engineering",
  "health",
  "history",
  "law",
  "math",
  "philosophy",
  "physics",
  "psychology",
  "other",
];

function optionLines(row: HfRow): string {
  return textList(row, "options", WHERE).filter((o) => o !== "N/A").map((o, i) => `${LETTERS[i]}. ${o}\n`).join("");
}

function workedExample(row: HfRow, answer: string): string {
  let cot = answer === "" ? "Let's think step by step." : answer;
  if (cot.startsWith("A: ")) cot = cot.slice(3);
  return `Question: ${textColumn(row, "question", WHERE)}\nOptions: ${optionLines(row)}Answer: ${cot}\n\n`;
}

export const MMLU_PRO_BENCHMARK: AccuracyBenchmark = {
  ...MMLU_PRO_BENCHMARK_DECLARATION,
  defaultGrader: "mmlu_pro",
  defaultNShots: 5,
  defaultEnableCot: true,
  repositories: [REPO],
  async load(ctx) {
    let categories = MMLU_PRO_CATEGORIES;
    if (ctx.tasks !== undefined && ctx.tasks.length > 0 && !ctx.tasks.includes("all")) {
      for (const t of ctx.tasks) {
        if (!MMLU_PRO_CATEGORIES.includes(t)) {
          throw new DatasetError(
            "--accuracy-tasks",
            undefined,
            `'${t}' is not an MMLU-Pro category; the categories are: ${MMLU_PRO_CATEGORIES.join(", ")}`,
          );
        }
      }
      categories = ctx.tasks;
    }
    const examples = new Map<string, HfRow[]>();
    for (const row of await ctx.source.rows(REPO, "validation")) {
      const category = textColumn(row, "category", WHERE);
      examples.set(category, [...(examples.get(category) ?? []), row]);
    }
    const wanted = new Set(categories);
    const problems: BenchmarkProblem[] = [];
    for (const row of await ctx.source.rows(REPO, "test")) {
      const category = textColumn(row, "category", WHERE);
      if (!wanted.has(category)) continue;
      let prompt = `The following are multiple choice questions (with answers) about ${category}.` +
        (ctx.enableCot
          ? ' Think step by step and then output the answer in the format of "The answer is (X)" at the end.'
          : "") +
        "\n\n";
      for (const ex of (examples.get(category) ?? []).slice(0, ctx.nShots)) {
        prompt += workedExample(
          ex,
          ctx.enableCot ? textColumn(ex, "cot_content", WHERE) : textColumn(ex, "answer", WHERE),
        );
      }
      prompt += ctx.enableCot
        ? workedExample(row, "")
        : `Question: ${textColumn(row, "question", WHERE)}\nOptions: ${optionLines(row)}Answer: \n\n`;
      problems.push({ prompt, groundTruth: textColumn(row, "answer", WHERE), task: category, generationSize: 4000 });
    }
    return problems;
  },
};
