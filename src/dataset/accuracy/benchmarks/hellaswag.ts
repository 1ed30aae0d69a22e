/**
 * HellaSwag as AIPerf 0.13 sends it (DeepEval's `HellaSwag` prompt, the trt-llm recipe): `Rowan/hellaswag`; for each
 * task (activity label, `hellaswag_tasks.ts`) in order, the `validation` rows of that label that have a gold label.
 * The prompt names the activity, then `n` (default 10, at most 15) worked examples — the first `train` row of each
 * activity label in train order, whatever the task — each `{ctx}\nA. …\nD. …\nAnswer: X\n\n`, then the question in
 * the same form without its answer, and asks for a bare letter. 5 tokens; the gold is the letter.
 */
import type { AccuracyBenchmark, BenchmarkProblem } from "../accuracy_benchmark.ts";
import { DatasetError } from "../../dataset_error.ts";
import type { HfRow } from "../../hf_rows.ts";
import { HELLASWAG_TASKS, hellaswagTaskName } from "../hellaswag_tasks.ts";
import { textColumn, textList } from "../row_column.ts";
import { HELLASWAG_BENCHMARK_DECLARATION } from "../accuracy_declarations.ts";

const REPO = "Rowan/hellaswag";
const WHERE = "--accuracy-benchmark hellaswag";
const MAX_N_SHOTS = 15;
const LETTERS = ["A", "B", "C", "D"];
const CONFINEMENT = "Output 'A', 'B', 'C', or 'D'. Full answer not needed.";

function formatQuestion(row: HfRow, withAnswer: boolean): string {
  const endings = textList(row, "endings", WHERE);
  let text = textColumn(row, "ctx", WHERE);
  for (let j = 0; j < LETTERS.length; j++) text += `\n${LETTERS[j]}. ${endings[j]}`;
  text += "\nAnswer:";
  if (withAnswer) text += ` ${LETTERS[Number.parseInt(textColumn(row, "label", WHERE), 10)]}\n\n`;
  return text;
}

/** The tasks `--accuracy-tasks` names (labels in any case, or enum names), in the order given; all when none. */
export function hellaswagTasks(tasks: readonly string[] | undefined): readonly string[] {
  if (tasks === undefined || tasks.length === 0) return HELLASWAG_TASKS;
  const lowered = tasks.map((t) => t.toLowerCase());
  if (lowered.includes("all")) {
    if (lowered.length === 1) return HELLASWAG_TASKS;
    throw new DatasetError("--accuracy-tasks", undefined, "'all' cannot be mixed with other task names");
  }
  const unknown: string[] = [];
  const out: string[] = [];
  for (const t of tasks) {
    const found = HELLASWAG_TASKS.find((label) => label.toLowerCase() === t.toLowerCase()) ??
      HELLASWAG_TASKS.find((label) => hellaswagTaskName(label) === t.toUpperCase());
    if (found === undefined) unknown.push(t);
    else out.push(found);
  }
  if (unknown.length > 0) {
    throw new DatasetError(
      "--accuracy-tasks",
      undefined,
      `${unknown.map((u) => `'${u}'`).join(", ")} ${
        unknown.length === 1 ? "is not a HellaSwag task" : "are not HellaSwag tasks"
      }; ` +
        `name activity labels ('Applying sunscreen') or their enum names (APPLYING_SUNSCREEN); the ` +
        `${HELLASWAG_TASKS.length} labels begin ${HELLASWAG_TASKS.slice(0, 5).join(", ")}`,
    );
  }
  return out;
}

export const HELLASWAG_BENCHMARK: AccuracyBenchmark = {
  ...HELLASWAG_BENCHMARK_DECLARATION,
  defaultGrader: "exact_match",
  defaultNShots: 10,
  defaultEnableCot: false,
  repositories: [REPO],
  async load(ctx) {
    if (ctx.enableCot) {
      ctx.info("--accuracy-enable-cot is ignored for HellaSwag (DeepEval's HellaSwag has no CoT variant).");
    }
    if (ctx.nShots > MAX_N_SHOTS) {
      throw new DatasetError(
        "--accuracy-n-shots",
        undefined,
        `HellaSwag takes at most ${MAX_N_SHOTS} few-shot examples (got ${ctx.nShots})`,
      );
    }
    const tasks = hellaswagTasks(ctx.tasks);
    const shots: HfRow[] = [];
    const seen = new Set<string>();
    for (const row of await ctx.source.rows(REPO, "train")) {
      const label = textColumn(row, "activity_label", WHERE);
      if (seen.has(label)) continue;
      seen.add(label);
      shots.push(row);
    }
    if (shots.length < ctx.nShots) {
      throw new DatasetError(
        WHERE,
        undefined,
        `needs ${ctx.nShots} worked examples (one per activity label of the train split), but the train split has ` +
          `${shots.length} activity labels; lower --accuracy-n-shots`,
      );
    }
    const examples = shots.slice(0, ctx.nShots).map((row) => formatQuestion(row, true)).join("");
    const byLabel = new Map<string, HfRow[]>();
    for (const row of await ctx.source.rows(REPO, "validation")) {
      const label = String(row.activity_label ?? "None");
      byLabel.set(label, [...(byLabel.get(label) ?? []), row]);
    }
    const problems: BenchmarkProblem[] = [];
    for (const task of tasks) {
      for (const row of byLabel.get(task) ?? []) {
        const label = row.label;
        if (label === "" || label === null || label === undefined) continue;
        const prompt = "The following are multiple choice questions (with answers) are sentence completion " +
          `problems about ${task}.\n\n${examples}${formatQuestion(row, false)}\n\n${CONFINEMENT}`;
        problems.push({
          prompt,
          groundTruth: LETTERS[Number.parseInt(String(label), 10)],
          task,
          generationSize: 5,
        });
      }
    }
    return problems;
  },
};
