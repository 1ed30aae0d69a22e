/**
 * The choice-letter extraction AIPerf 0.13's multiple-choice graders share (TIGER-AI-Lab's MMLU-Pro cascade):
 * tier 1 the last "answer is (X)"; tier 2 the last "Answer: X" (either case of the A); tier 3 the last letter
 * standing alone as a word. Word boundaries are Python's: letters, digits and `_` of any script are word characters.
 */

/** A word character, as Python's `\w` in a text pattern. */
export const WORD = String.raw`[\p{L}\p{N}_]`;

export interface ChoiceLetter {
  readonly letter: string;
  /** 1–3; 0 when no letter was found. */
  readonly tier: number;
}

export function extractChoiceLetter(text: string, letters = "ABCDEFGHIJ"): ChoiceLetter {
  const cls = `[${letters}]`;
  const tier1 = [...text.matchAll(new RegExp(`answer is \\(?(${cls})\\)?`, "gu"))];
  if (tier1.length > 0) return { letter: tier1[tier1.length - 1][1], tier: 1 };
  const tier2 = new RegExp(`.*[aA]nswer:\\s*(${cls})`, "su").exec(text);
  if (tier2 !== null) return { letter: tier2[1], tier: 2 };
  const alone = [...text.matchAll(new RegExp(`(?<!${WORD})${cls}(?!${WORD})`, "gu"))];
  if (alone.length > 0) return { letter: alone[alone.length - 1][0], tier: 3 };
  return { letter: "", tier: 0 };
}
