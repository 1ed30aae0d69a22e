/** Every accuracy grader (`--accuracy-grader`), as AIPerf 0.13 names them: each declared, and imported on use. */
import { Registry, type RegistryEntry } from "../../base/registry.ts";
import type { AccuracyGrader } from "./graders/accuracy_grader.ts";
import {
  CODE_EXECUTION_GRADER_DECLARATION,
  EXACT_MATCH_GRADER_DECLARATION,
  GSM8K_GRADER_DECLARATION,
  LIGHTEVAL_EXPR_GRADER_DECLARATION,
  LIGHTEVAL_GPQA_GRADER_DECLARATION,
  LIGHTEVAL_LATEX_GRADER_DECLARATION,
  MATH_GRADER_DECLARATION,
  MMLU_PRO_GRADER_DECLARATION,
  MULTIPLE_CHOICE_GRADER_DECLARATION,
} from "./accuracy_declarations.ts";

/** A registered grader: its declaration, and the grader itself imported on use. */
export interface RegisteredAccuracyGrader extends RegistryEntry {
  /** The grader (the same object on every call). */
  grader(): Promise<AccuracyGrader>;
}

export const ACCURACY_GRADERS: Registry<RegisteredAccuracyGrader> = new Registry<RegisteredAccuracyGrader>(
  "accuracy grader",
  [
    {
      ...EXACT_MATCH_GRADER_DECLARATION,
      grader: async () => (await import("./graders/exact_match.ts")).EXACT_MATCH_GRADER,
    },
    {
      ...MATH_GRADER_DECLARATION,
      grader: async () => (await import("./graders/math_grader.ts")).MATH_GRADER,
    },
    {
      ...MULTIPLE_CHOICE_GRADER_DECLARATION,
      grader: async () => (await import("./graders/multiple_choice.ts")).MULTIPLE_CHOICE_GRADER,
    },
    {
      ...CODE_EXECUTION_GRADER_DECLARATION,
      grader: async () => (await import("./graders/code_execution.ts")).CODE_EXECUTION_GRADER,
    },
    {
      ...LIGHTEVAL_EXPR_GRADER_DECLARATION,
      grader: async () => (await import("./graders/lighteval_graders.ts")).LIGHTEVAL_EXPR_GRADER,
    },
    {
      ...LIGHTEVAL_LATEX_GRADER_DECLARATION,
      grader: async () => (await import("./graders/lighteval_graders.ts")).LIGHTEVAL_LATEX_GRADER,
    },
    {
      ...LIGHTEVAL_GPQA_GRADER_DECLARATION,
      grader: async () => (await import("./graders/lighteval_graders.ts")).LIGHTEVAL_GPQA_GRADER,
    },
    {
      ...GSM8K_GRADER_DECLARATION,
      grader: async () => (await import("./graders/gsm8k_grader.ts")).GSM8K_GRADER,
    },
    {
      ...MMLU_PRO_GRADER_DECLARATION,
      grader: async () => (await import("./graders/mmlu_pro_grader.ts")).MMLU_PRO_GRADER,
    },
  ],
);
