/**
 * MMLU as AIPerf 0.13 sends it (lighteval's `mmlu` prompt): `lighteval/mmlu`, one subset per subject (`--accuracy-tasks`
 * picks subjects; all 57 by default), split `test`. Few-shot examples (default 5) come from the subject's `dev` split
 * (else `validation`), picked by lighteval's balanced sampler with Python's `random.Random(0)`: labels by how often
 * they are the gold choice, shuffled within each count, then one example per label in turn. Chat requests carry each
 * example as a user turn and its answer (` A`) as an assistant turn, the instruction before the first; completions
 * carry everything in one text. Without chain of thought the answer is 5 tokens and stops at a line break; with it
 * the prompt asks for "The answer is (X)" and allows 4000 tokens. The gold is ` A`…` D`.
 */
import type { AccuracyBenchmark, AccuracyMessage, BenchmarkProblem } from "../accuracy_benchmark.ts";
import { PythonRandom } from "../../../base/python_random.ts";
import { DatasetError } from "../../dataset_error.ts";
import type { HfRow } from "../../hf_rows.ts";
import { column, textColumn, textList } from "../row_column.ts";
import { MMLU_BENCHMARK_DECLARATION } from "../accuracy_declarations.ts";

const REPO = "lighteval/mmlu";
const WHERE = "--accuracy-benchmark mmlu";
const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const CHOICES = [" A", " B", " C", " D"];

/** The 57 subjects, in the order problems are sent. */
export const MMLU_SUBJECTS: readonly string[] = [
  "abstract_algebra",
  "anatomy",
  "astronomy",
  "business_ethics",
  "clinical_knowledge",
  "college_biology",
  "college_chemistry",
  "college_computer_science",
  "college_mathematics",
  "college_medicine",
  "college_physics",
  "computer_security",
  "conceptual_physics",
  "econometrics",
  "electrical_engineering",
  "elementary_mathematics",
  "formal_logic",
  "global_facts",
  "high_school_biology",
  "high_school_chemistry",
  "high_school_computer_science",
  "high_school_european_history",
  "high_school_geography",
  "high_school_government_and_politics",
  "high_school_macroeconomics",
  "high_school_mathematics",
  "high_school_microeconomics",
  "high_school_physics",
  "high_school_psychology",
  "high_school_statistics",
  "high_school_us_history",
  "high_school_world_history",
  "human_aging",
  "human_sexuality",
  "international_law",
  "jurisprudence",
  "logical_fallacies",
  "machine_learning",
  "management",
  "marketing",
  "medical_genetics",
  "miscellaneous",
  "moral_disputes",
  "moral_scenarios",
  "nutrition",
  "philosophy",
  "prehistory",
  "professional_accounting",
  "professional_law",
  "professional_medicine",
  "professional_psychology",
  "public_relations",
  "security_studies",
  "sociology",
  "us_foreign_policy",
  "virology",
  "world_religions",
];

interface Example {
  readonly question: string;
  /** `\nA. …\nB. …` */
  readonly choices: string;
  /** ` A` */
  readonly answer: string;
}

function goldIndex(row: HfRow): number {
  const answer = column(row, "answer", WHERE);
  const index = typeof answer === "string" ? LETTERS.indexOf(answer) : Number(answer);
  if (!Number.isInteger(index) || index < 0) {
    throw new DatasetError(WHERE, undefined, `has a row whose answer ${JSON.stringify(answer)} is not a choice`);
  }
  return index;
}

function choiceLines(row: HfRow): string {
  return textList(row, "choices", WHERE).map((choice, i) => `\n${LETTERS[i]}. ${choice}`).join("");
}

function example(row: HfRow): Example {
  return { question: textColumn(row, "question", WHERE), choices: choiceLines(row), answer: gold(row) };
}

function gold(row: HfRow): string {
  const answer = CHOICES[goldIndex(row)];
  if (answer === undefined) throw new DatasetError(WHERE, undefined, "has a row whose answer is not A, B, C or D");
  return answer;
}

/** Code-point order, as Python sorts strings. */
function byCodePoint(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** lighteval's balanced few-shot sampler: the indices of `n` examples of `rows`. */
export function balancedShotIndices(rows: readonly HfRow[], n: number): number[] {
  const byLabel = new Map<string, number[]>();
  rows.forEach((row, i) => {
    const label = textList(row, "choices", WHERE)[goldIndex(row)];
    const list = byLabel.get(label) ?? [];
    list.push(i);
    byLabel.set(label, list);
  });
  const labelsByCount = new Map<number, string[]>();
  for (const label of [...byLabel.keys()].sort(byCodePoint)) {
    const count = byLabel.get(label)!.length;
    labelsByCount.set(count, [...(labelsByCount.get(count) ?? []), label]);
  }
  const rng = new PythonRandom(0);
  const order: string[] = [];
  for (const count of [...labelsByCount.keys()].sort((a, b) => b - a)) {
    const labels = labelsByCount.get(count)!;
    rng.shuffle(labels);
    order.push(...labels);
  }
  const picked: number[] = [];
  let remaining = Math.min(rows.length, n + 1);
  for (let k = 0; remaining > 0 && order.length > 0; k++) {
    const pool = byLabel.get(order[k % order.length])!;
    if (pool.length === 0) continue;
    picked.push(pool.splice(rng.randrange(pool.length), 1)[0]);
    remaining--;
  }
  return picked.slice(0, n);
}

function instruction(subject: string, cot: boolean): string {
  return `The following are multiple choice questions (with answers) about ${subject.replaceAll("_", " ")}.` +
    (cot ? ' Think step by step and then output the answer in the format of "The answer is (X)" at the end.' : "") +
    "\n\n";
}

function question(row: HfRow, cot: boolean): string {
  return `Question: ${textColumn(row, "question", WHERE)}${choiceLines(row)}\n` +
    (cot ? "Let's think step by step.\nAnswer:" : "Answer:");
}

export const MMLU_BENCHMARK: AccuracyBenchmark = {
  ...MMLU_BENCHMARK_DECLARATION,
  defaultGrader: "multiple_choice",
  defaultNShots: 5,
  defaultEnableCot: false,
  repositories: [REPO],
  async load(ctx) {
    let subjects = MMLU_SUBJECTS;
    if (ctx.tasks !== undefined && ctx.tasks.length > 0 && !ctx.tasks.includes("all")) {
      for (const t of ctx.tasks) {
        if (!MMLU_SUBJECTS.includes(t)) {
          throw new DatasetError(
            "--accuracy-tasks",
            undefined,
            `'${t}' is not an MMLU subject; the ${MMLU_SUBJECTS.length} subjects are: ${MMLU_SUBJECTS.join(", ")}`,
          );
        }
      }
      subjects = ctx.tasks;
    }
    const problems: BenchmarkProblem[] = [];
    for (const subject of subjects) {
      const test = await ctx.source.rows(REPO, "test", subject);
      let shots: Example[] = [];
      if (ctx.nShots > 0) {
        const pool = await ctx.source.optionalRows(REPO, "dev", subject) ??
          await ctx.source.optionalRows(REPO, "validation", subject);
        if (pool !== undefined) shots = balancedShotIndices(pool, ctx.nShots).map((i) => example(pool[i]));
      }
      const intro = instruction(subject, ctx.enableCot);
      const shotText = shots.map((s) => `Question: ${s.question}${s.choices}\nAnswer:${s.answer}`).join("\n\n");
      for (const row of test) {
        const main = question(row, ctx.enableCot);
        const messages: AccuracyMessage[] = [];
        shots.forEach((s, i) => {
          const q = `Question: ${s.question}${s.choices}\nAnswer:`;
          messages.push({ role: "user", content: i === 0 ? intro + q : q });
          messages.push({ role: "assistant", content: s.answer });
        });
        messages.push({ role: "user", content: shots.length === 0 ? intro + main : main });
        problems.push({
          prompt: intro + (shotText === "" ? "" : shotText + "\n\n") + main,
          groundTruth: gold(row),
          task: subject,
          messages,
          generationSize: ctx.enableCot ? 4000 : 5,
          stop: ctx.enableCot ? [] : ["\n"],
        });
      }
    }
    return problems;
  },
};
