/**
 * `multiple_choice` (AIPerf 0.13, MMLU's grader): the answer's first line when it is exactly A–D; else the
 * "answer is (X)" form (parsed), else a fallback (unparsed): "Answer: X", a letter standing alone on the first line,
 * the last letter standing alone anywhere, else the first line itself. Correct when it equals the stripped gold.
 */
import { type AccuracyGrader, pyStrip, verdict } from "./accuracy_grader.ts";
import { extractChoiceLetter, WORD } from "./choice_letter.ts";
import { pyBool } from "./exact_match.ts";
import { MULTIPLE_CHOICE_GRADER_DECLARATION } from "../accuracy_declarations.ts";

const VALID = new Set(["A", "B", "C", "D"]);
const LETTER = new RegExp(`(?<!${WORD})([A-D])(?!${WORD})`, "u");

/** The letter the grader reads from `response`, and whether a fallback found it. */
export function multipleChoiceAnswer(response: string): { answer: string; unparsed: boolean } {
  const firstLine = pyStrip(response.split("\n", 1)[0] ?? "");
  if (VALID.has(firstLine)) return { answer: firstLine, unparsed: false };
  const { letter, tier } = extractChoiceLetter(response, "ABCD");
  if (letter !== "" && tier === 1) return { answer: letter, unparsed: false };
  if (letter !== "" && tier === 2) return { answer: letter, unparsed: true };
  const m = LETTER.exec(firstLine);
  if (m !== null) return { answer: m[1], unparsed: true };
  if (letter !== "") return { answer: letter, unparsed: true };
  return { answer: firstLine, unparsed: true };
}

export const MULTIPLE_CHOICE_GRADER: AccuracyGrader = {
  ...MULTIPLE_CHOICE_GRADER_DECLARATION,
  grade(response, groundTruth) {
    const { answer, unparsed } = multipleChoiceAnswer(response);
    const gold = pyStrip(groundTruth);
    const correct = answer === gold && answer !== "";
    return verdict(
      correct,
      unparsed,
      `first-line-of-response extracted to '${answer}'` + (unparsed ? " (regex fallback)" : "") +
        `; ground_truth stripped to '${gold}'; match=${pyBool(correct)}`,
      answer,
      gold,
    );
  },
};
