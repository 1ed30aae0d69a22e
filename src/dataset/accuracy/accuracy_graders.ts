/** Every accuracy grader (`--accuracy-grader`), as AIPerf 0.13 names them. */
import { Registry } from "../../base/registry.ts";
import type { AccuracyGrader } from "./graders/accuracy_grader.ts";
import { EXACT_MATCH_GRADER } from "./graders/exact_match.ts";
import { MATH_GRADER } from "./graders/math_grader.ts";
import { MULTIPLE_CHOICE_GRADER } from "./graders/multiple_choice.ts";
import { CODE_EXECUTION_GRADER } from "./graders/code_execution.ts";
import { LIGHTEVAL_EXPR_GRADER, LIGHTEVAL_GPQA_GRADER, LIGHTEVAL_LATEX_GRADER } from "./graders/lighteval_graders.ts";
import { GSM8K_GRADER } from "./graders/gsm8k_grader.ts";
import { MMLU_PRO_GRADER } from "./graders/mmlu_pro_grader.ts";

export const ACCURACY_GRADERS: Registry<AccuracyGrader> = new Registry<AccuracyGrader>("accuracy grader", [
  EXACT_MATCH_GRADER,
  MATH_GRADER,
  MULTIPLE_CHOICE_GRADER,
  CODE_EXECUTION_GRADER,
  LIGHTEVAL_EXPR_GRADER,
  LIGHTEVAL_LATEX_GRADER,
  LIGHTEVAL_GPQA_GRADER,
  GSM8K_GRADER,
  MMLU_PRO_GRADER,
]);
