/**
 * The contract of an accuracy grader (`--accuracy-grader`, else the benchmark's own): one model answer and the gold
 * in, a verdict out, with AIPerf 0.13's fields — correct, unparsed (the answer was not in the expected form and a
 * fallback extracted it, or nothing could), confidence, the grader's reasoning, the answer it extracted and the gold
 * as it compared it.
 */
import type { RegistryEntry } from "../../../base/registry.ts";

export interface GradingResult {
  readonly correct: boolean;
  readonly unparsed: boolean;
  /** 0–1. */
  readonly confidence: number;
  /** Why it decided so (AIPerf's `explanation` in the accuracy JSONL). */
  readonly reasoning: string;
  readonly extractedAnswer: string;
  readonly groundTruth: string;
}

export interface AccuracyGrader extends RegistryEntry {
  /**
   * Why this grader cannot run on this machine (code execution without a sandbox), said before anything is sent;
   * undefined when it can.
   */
  unavailable?(): Promise<string | undefined>;
  grade(response: string, groundTruth: string): GradingResult | Promise<GradingResult>;
}

/** A verdict with confidence 1 when correct, else 0 (every grader but the lighteval and code ones). */
export function verdict(
  correct: boolean,
  unparsed: boolean,
  reasoning: string,
  extractedAnswer: string,
  groundTruth: string,
): GradingResult {
  return { correct, unparsed, confidence: correct ? 1 : 0, reasoning, extractedAnswer, groundTruth };
}

/** Python's `str.strip()`: whitespace off both ends (Python also strips the separators U+001C–U+001F and U+0085). */
const PY_SPACE = new RegExp(String.raw`^[\s\u001c-\u001f\u0085]+|[\s\u001c-\u001f\u0085]+$`, "gu");

export function pyStrip(text: string): string {
  return text.replace(PY_SPACE, "");
}

/** Python's `repr()` of a string, as AIPerf's reasoning texts quote answers with `{x!r}`. */
export function pyRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (ch === "\\") out += "\\\\";
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return out + quote;
}
