/** `exact_match` (AIPerf 0.13, DeepEval's `Scorer.exact_match_score`): the stripped answer equals the stripped gold,
 * case-sensitive; an empty answer to a non-empty gold is unparsed. Used by HellaSwag and BigBench-Hard. */
import { type AccuracyGrader, pyStrip, verdict } from "./accuracy_grader.ts";
import { EXACT_MATCH_GRADER_DECLARATION } from "../accuracy_declarations.ts";

export const EXACT_MATCH_GRADER: AccuracyGrader = {
  ...EXACT_MATCH_GRADER_DECLARATION,
  grade(response, groundTruth) {
    const pred = response ? pyStrip(response) : "";
    const gold = groundTruth ? pyStrip(groundTruth) : "";
    const unparsed = pred === "" && gold !== "";
    const correct = pred !== "" && pred === gold;
    return verdict(
      correct,
      unparsed,
      `strict equality: stripped pred '${pred}' vs gold '${gold}'; match=${pyBool(correct)}` +
        (unparsed ? " (empty response)" : ""),
      pred,
      gold,
    );
  },
};

/** Python's `str(bool)`. */
export function pyBool(b: boolean): string {
  return b ? "True" : "False";
}
