/**
 * `lighteval_gsm8k` (AIPerf 0.13, lighteval's `quasi_exact_match_gsm8k`): the gold is the number after `#### ` in
 * the dataset's answer; the prediction is the number after `#### ` in the answer (parsed), else the last number in it
 * (unparsed). Commas are dropped; the two match as floats within 1e-6, or as texts when either is not a number.
 */
import { type AccuracyGrader, pyStrip, verdict } from "./accuracy_grader.ts";
import { pyBool } from "./exact_match.ts";
import { isClose, pyFloat } from "./py_float.ts";
import { GSM8K_GRADER_DECLARATION } from "../accuracy_declarations.ts";

const MARKED = /#### (-?[0-9.,]+)/;
const NUMBER = /-?[0-9][0-9,]*(?:\.[0-9]+)?/g;
const INVALID = "[invalid]";

/** The number after `#### `, commas removed; `[invalid]` without one (lighteval's `gsm8k_normalizer`). */
export function gsm8kNormalize(text: string): string {
  const m = MARKED.exec(text);
  return m === null ? INVALID : pyStrip(m[1]).replaceAll(",", "");
}

export function gsm8kPrediction(response: string): { answer: string; fallback: boolean } {
  const marked = gsm8kNormalize(response);
  if (marked !== INVALID) return { answer: marked, fallback: false };
  const numbers = response.match(NUMBER);
  if (numbers !== null) return { answer: numbers[numbers.length - 1].replaceAll(",", ""), fallback: true };
  return { answer: INVALID, fallback: true };
}

function numbersMatch(gold: string, pred: string): boolean {
  const g = pyFloat(gold);
  const p = pyFloat(pred);
  return g === undefined || p === undefined ? gold === pred : isClose(g, p, 0, 1e-6);
}

export const GSM8K_GRADER: AccuracyGrader = {
  ...GSM8K_GRADER_DECLARATION,
  grade(response, groundTruth) {
    const gold = gsm8kNormalize(pyStrip(groundTruth ?? ""));
    const { answer, fallback } = gsm8kPrediction(pyStrip(response ?? ""));
    const parseable = answer !== INVALID;
    const correct = parseable && gold !== INVALID && numbersMatch(gold, answer);
    const note = !parseable
      ? " (no number in response)"
      : fallback
      ? " (no #### marker; used last-number fallback)"
      : "";
    return verdict(
      correct,
      fallback || !parseable,
      `gsm8k quasi-exact-match: gold '${gold}' vs pred '${answer}'; match=${pyBool(correct)}${note}`,
      answer,
      gold,
    );
  },
};
