/**
 * AIPerf 0.13's lighteval graders (`extractive_match.ts` does the work): `lighteval_expr` (AIME 2024/2025: the gold
 * read as an expression; the answer as an expression or LaTeX, `\boxed{}` first), `lighteval_latex` (MATH-500: the
 * gold read as LaTeX from the full solution) and `lighteval_gpqa` (GPQA Diamond: the chosen letter A–D). Precision 5.
 * Correct when the score is 1; unparsed only when grading failed (a GPQA gold that is not a letter A–D).
 */
import { type AccuracyGrader, type GradingResult, pyStrip } from "./accuracy_grader.ts";
import { type Extracted, type ExtractionTarget, extractTargets, sameExtraction } from "./extractive_match.ts";
import {
  LIGHTEVAL_EXPR_GRADER_DECLARATION,
  LIGHTEVAL_GPQA_GRADER_DECLARATION,
  LIGHTEVAL_LATEX_GRADER_DECLARATION,
} from "../accuracy_declarations.ts";

const EXPR: ExtractionTarget = { kind: "expr" };
const PRED_TARGETS: readonly ExtractionTarget[] = [EXPR, { kind: "latex", boxedPriority: 0 }];
const LETTERS: ExtractionTarget = { kind: "indices", choices: 4 };

/** lighteval's `compute` for one answer: 1 when any extraction of the gold matches any of the answer. */
function score(
  response: string,
  gold: string,
  goldTargets: readonly ExtractionTarget[],
  predTargets: readonly ExtractionTarget[],
): number {
  let golds: Extracted[] = extractTargets(gold, goldTargets);
  if (golds.length === 0) golds = [gold];
  const preds = extractTargets(response, predTargets);
  return preds.some((p) => golds.some((g) => sameExtraction(g, p))) ? 1 : 0;
}

function result(className: string, value: number | undefined, response: string, groundTruth: string): GradingResult {
  const shown = value === undefined ? "None" : value.toFixed(1);
  return {
    correct: value !== undefined && value > 0.5,
    unparsed: value === undefined,
    confidence: value ?? 0,
    reasoning: `lighteval ${className}: score=${shown} (threshold 0.5)` +
      (value === undefined ? " (raised exception)" : ""),
    extractedAnswer: pyStrip(response),
    groundTruth: pyStrip(groundTruth),
  };
}

export const LIGHTEVAL_EXPR_GRADER: AccuracyGrader = {
  ...LIGHTEVAL_EXPR_GRADER_DECLARATION,
  grade: (response, gold) => result("LightevalExprGrader", score(response, gold, [EXPR], PRED_TARGETS), response, gold),
};

export const LIGHTEVAL_LATEX_GRADER: AccuracyGrader = {
  ...LIGHTEVAL_LATEX_GRADER_DECLARATION,
  grade: (response, gold) =>
    result(
      "LightevalLatexGrader",
      score(response, gold, [{ kind: "latex", boxedPriority: 55 }], PRED_TARGETS),
      response,
      gold,
    ),
};

export const LIGHTEVAL_GPQA_GRADER: AccuracyGrader = {
  ...LIGHTEVAL_GPQA_GRADER_DECLARATION,
  grade(response, gold) {
    const letter = pyStrip(gold).toUpperCase();
    const value = ["A", "B", "C", "D"].includes(letter) ? score(response, letter, [LETTERS], [LETTERS]) : undefined;
    return result("LightevalGPQAGrader", value, response, gold);
  },
};
