/**
 * `mmlu_pro` (AIPerf 0.13): the final letter A–J — the answer's first line when it is one letter, else the cascade of
 * `choice_letter.ts`, parsed only when "answer is (X)" found it. Correct when it equals the stripped gold.
 */
import { type AccuracyGrader, pyStrip, verdict } from "./accuracy_grader.ts";
import { extractChoiceLetter } from "./choice_letter.ts";
import { pyBool } from "./exact_match.ts";
import { MMLU_PRO_GRADER_DECLARATION } from "../accuracy_declarations.ts";

const LETTERS = "ABCDEFGHIJ";

export function mmluProAnswer(response: string): { answer: string; unparsed: boolean } {
  const firstLine = pyStrip(response.split("\n", 1)[0] ?? "");
  if (firstLine.length === 1 && LETTERS.includes(firstLine)) return { answer: firstLine, unparsed: false };
  const { letter, tier } = extractChoiceLetter(response, LETTERS);
  return { answer: letter, unparsed: tier !== 1 };
}

export const MMLU_PRO_GRADER: AccuracyGrader = {
  ...MMLU_PRO_GRADER_DECLARATION,
  grade(response, groundTruth) {
    const { answer, unparsed } = mmluProAnswer(response);
    const gold = pyStrip(groundTruth);
    const correct = answer === gold && answer !== "";
    return verdict(
      correct,
      unparsed,
      `extracted '${answer}'` + (unparsed ? " (fallback)" : "") + `; ground_truth '${gold}'; match=${pyBool(correct)}`,
      answer,
      gold,
    );
  },
};
