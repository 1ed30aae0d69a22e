/**
 * The accuracy benchmarks and graders as declared: the names and `--help` lines of `--accuracy-benchmark` and
 * `--accuracy-grader`. Each benchmark and grader (`benchmarks/`, `graders/`) starts from its declaration here and is
 * imported only by an accuracy run (`accuracy_benchmarks.ts`, `accuracy_graders.ts`).
 */
import type { RegistryEntry } from "../../base/registry.ts";

export const MMLU_BENCHMARK_DECLARATION: RegistryEntry = {
  name: "mmlu",
  description: "MMLU, 57 subjects of multiple-choice questions (lighteval/mmlu), 5 balanced few-shot examples.",
};

export const MMLU_PRO_BENCHMARK_DECLARATION: RegistryEntry = {
  name: "mmlu_pro",
  description: "MMLU-Pro, 14 categories, up to 10 options (TIGER-Lab/MMLU-Pro), 5 chain-of-thought examples.",
};

export const AIME_BENCHMARK_DECLARATION: RegistryEntry = {
  name: "aime",
  description: "AIME 2024 (Maxwell-Jia/AIME_2024), 8 worked examples with chain of thought (legacy; prefer aime24).",
};

export const HELLASWAG_BENCHMARK_DECLARATION: RegistryEntry = {
  name: "hellaswag",
  description: "HellaSwag sentence completion (Rowan/hellaswag validation), 10-shot, DeepEval's prompt.",
};

export const BIGBENCH_BENCHMARK_DECLARATION: RegistryEntry = {
  name: "bigbench",
  description: "BigBench-Hard, 27 subtasks (lukaemon/bbh), 3-shot chain of thought, DeepEval's prompt files.",
};

export const AIME24_BENCHMARK_DECLARATION: RegistryEntry = {
  name: "aime24",
  description: "AIME 2024 (HuggingFaceH4/aime_2024), zero-shot, lighteval's expression grading.",
};

export const AIME25_BENCHMARK_DECLARATION: RegistryEntry = {
  name: "aime25",
  description: "AIME 2025 (yentinglin/aime_2025), zero-shot, lighteval's expression grading.",
};

export const MATH_500_BENCHMARK_DECLARATION: RegistryEntry = {
  name: "math_500",
  description: "MATH-500 competition math (HuggingFaceH4/MATH-500 test), per subject, lighteval's LaTeX grading.",
};

export const GSM8K_BENCHMARK_DECLARATION: RegistryEntry = {
  name: "gsm8k",
  description: "GSM8K grade-school math word problems (openai/gsm8k main test), zero-shot, lighteval's prompt.",
};

export const GPQA_DIAMOND_BENCHMARK_DECLARATION: RegistryEntry = {
  name: "gpqa_diamond",
  description: "GPQA Diamond graduate-level science questions (Idavidrein/gpqa), four choices in a fixed shuffle.",
};

export const LCB_CODEGENERATION_BENCHMARK_DECLARATION: RegistryEntry = {
  name: "lcb_codegeneration",
  description: "LiveCodeBench code generation (livecodebench/code_generation_lite v4_v5), graded by running tests.",
};

export const EXACT_MATCH_GRADER_DECLARATION: RegistryEntry = {
  name: "exact_match",
  description: "Strict equality of the stripped answer and gold (DeepEval's exact match), case-sensitive.",
};

export const MATH_GRADER_DECLARATION: RegistryEntry = {
  name: "math",
  description: "A math answer (last \\boxed{}, else the answer phrase or last number) against the gold, by value.",
};

export const MULTIPLE_CHOICE_GRADER_DECLARATION: RegistryEntry = {
  name: "multiple_choice",
  description: "The chosen letter A-D (first line, 'answer is (X)', 'Answer: X' or a lone letter) against the gold.",
};

export const CODE_EXECUTION_GRADER_DECLARATION: RegistryEntry = {
  name: "code_execution",
  description: "Runs the answer's code block against LiveCodeBench's tests in a sandbox (lighteval pass@1).",
};

export const LIGHTEVAL_EXPR_GRADER_DECLARATION: RegistryEntry = {
  name: "lighteval_expr",
  description: "lighteval's expr_gold_metric (AIME 2024/2025): an expression or boxed LaTeX answer against the gold.",
};

export const LIGHTEVAL_LATEX_GRADER_DECLARATION: RegistryEntry = {
  name: "lighteval_latex",
  description: "lighteval's latex_gold_metric (MATH-500): the answer against the LaTeX answer of the gold solution.",
};

export const LIGHTEVAL_GPQA_GRADER_DECLARATION: RegistryEntry = {
  name: "lighteval_gpqa",
  description: "lighteval's gpqa_metric (GPQA Diamond): the chosen letter A-D against the gold letter.",
};

export const GSM8K_GRADER_DECLARATION: RegistryEntry = {
  name: "lighteval_gsm8k",
  description: "GSM8K's number after '####' (else the last number) against the gold's, numerically (lighteval).",
};

export const MMLU_PRO_GRADER_DECLARATION: RegistryEntry = {
  name: "mmlu_pro",
  description: "The final letter A-J of a chain of thought ('answer is (X)', 'Answer: X', last lone letter).",
};
