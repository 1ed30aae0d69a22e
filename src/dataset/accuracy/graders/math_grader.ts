/**
 * `math` (AIPerf 0.13's grader for the legacy AIME set, after the Qwen2.5-Math / DeepSeek-Math recipe).
 *
 * Extraction: the last `\boxed{…}` (parsed); else the last "final answer / the answer is / answer:" phrase (its boxed
 * part, its LaTeX as written, or its last number), else the last number, else the whole answer (all unparsed).
 * Both sides are normalized (`math_strip.ts`) and compared by the recipe's `math_equal` cascade: equal ignoring case;
 * a choice letter; a `(A)`-style prefix removed; comma lists element by element; numbers (the gold also read as a
 * percentage, within 1e-4); brackets ignored; one-sided `x = …`; then the same value (`math_value.ts`, within 1e-4),
 * which stands for AIPerf's sympy step — infermeter compares values and expressions by evaluation, not symbolically.
 */
import { type AccuracyGrader, verdict } from "./accuracy_grader.ts";
import { pyBool } from "./exact_match.ts";
import { stripMathAnswer } from "./math_strip.ts";
import { parseMath, sameValue } from "./math_value.ts";
import { isClose, pyFloat } from "./py_float.ts";
import { MATH_GRADER_DECLARATION } from "../accuracy_declarations.ts";

const ANSWER_PHRASE =
  /(?:final\s+answer|the\s+answer\s+is|answer\s*[:=]|answer\s+is)\s*[:=]?\s*(.+?)(?:(?<!\d)\.(?!\d)|\n|$)/gi;
const NUMBER = /-?\d+(?:\.\d+)?(?:\/\d+)?/g;
const LATEX_HINT = /[\\{}]/;
const BOXED = "\\boxed{";
const ABS_TOL = 1e-4;
const MAX_DEPTH = 5;
/** The recipe's choice prefixes, form by form: `(A)`…`(E)`, `A.`…, `A)`…, `**A**`…, `A:`…. */
const CHOICE_PREFIXES: readonly RegExp[] = [
  (l: string) => `^\\(${l}\\)`,
  (l: string) => `^${l}\\.`,
  (l: string) => `^${l}\\)`,
  (l: string) => `^\\*\\*${l}\\*\\*`,
  (l: string) => `^${l}:`,
].flatMap((form) => ["A", "B", "C", "D", "E"].map((l) => new RegExp(form(l))));

/** The content of the last `\boxed{…}`, or undefined. */
export function lastBoxed(text: string): string | undefined {
  const at = text.lastIndexOf(BOXED);
  if (at < 0) return undefined;
  const start = at + BOXED.length;
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}") {
      if (depth === 0) return text.slice(start, i);
      depth--;
    }
  }
  return undefined;
}

function lastNumber(text: string): string | undefined {
  const all = text.match(NUMBER);
  return all === null ? undefined : all[all.length - 1];
}

function tidyBoxed(content: string): string {
  let pred = content.replace(/\n\s*/g, "");
  if (pred.startsWith(":")) pred = pred.slice(1);
  if (pred.endsWith(".")) pred = pred.slice(0, -1);
  if (pred.endsWith("/")) pred = pred.slice(0, -1);
  return pred;
}

/** The answer the grader reads from `response`, and whether a fallback found it. */
export function mathAnswer(response: string): { answer: string; unparsed: boolean } {
  if (!response) return { answer: "", unparsed: true };
  const boxed = lastBoxed(response);
  if (boxed !== undefined) return { answer: tidyBoxed(boxed), unparsed: false };
  const phrases = [...response.matchAll(ANSWER_PHRASE)];
  if (phrases.length > 0) {
    const tail = phrases[phrases.length - 1][1].trim();
    const tailBoxed = lastBoxed(tail);
    if (tailBoxed !== undefined) return { answer: tidyBoxed(tailBoxed), unparsed: true };
    if (LATEX_HINT.test(tail)) return { answer: tail, unparsed: true };
    return { answer: lastNumber(tail) ?? tail, unparsed: true };
  }
  return { answer: lastNumber(response) ?? response.trim(), unparsed: true };
}

function digits(text: string): number | undefined {
  const s = text.replaceAll(",", "");
  const value = pyFloat(s);
  if (value !== undefined) return value;
  if (s.endsWith("%")) {
    let inner = s.slice(0, -1);
    if (inner.endsWith("\\")) inner = inner.slice(0, -1);
    const v = pyFloat(inner);
    if (v !== undefined) return v / 100;
  }
  return undefined;
}

function symbolicEqual(a: string, b: string): boolean {
  const parse = (s: string) => parseMath(s.replaceAll("\\\\", "\\")) ?? parseMath(s);
  const x = parse(a);
  const y = parse(b);
  if (x === undefined || y === undefined) return x === undefined && y === undefined && a === b;
  return sameValue(x, y, { absTol: ABS_TOL });
}

function braceParenEqual(prediction: string, reference: string): boolean {
  let p = prediction.trim();
  let r = reference.trim();
  if (
    (p.startsWith("[") && p.endsWith("]") && !r.startsWith("(")) ||
    (p.startsWith("(") && p.endsWith(")") && !r.startsWith("["))
  ) {
    p = p.replace(/^[[\]()]+|[[\]()]+$/g, "");
    r = r.replace(/^[[\]()]+|[[\]()]+$/g, "");
  }
  for (const c of ["{", "}", "(", ")"]) {
    r = r.replaceAll(c, "");
    p = p.replaceAll(c, "");
  }
  return p.toLowerCase() === r.toLowerCase();
}

function count(text: string, c: string): number {
  return text.split(c).length - 1;
}

function equationRewrites(prediction: string, reference: string, depth: number): boolean {
  if (count(prediction, "=") === 1 && count(reference, "=") === 1) {
    const [pl, pr] = prediction.split("=").map((s) => s.trim());
    const [rl, rr] = reference.split("=").map((s) => s.trim());
    return symbolicEqual(`${pl} - (${pr})`, `${rl} - (${rr})`);
  }
  if (count(prediction, "=") === 1 && prediction.split("=")[0].trim().length <= 2 && !reference.includes("=")) {
    return mathEqual(prediction.split("=")[1], reference, depth + 1);
  }
  if (count(reference, "=") === 1 && reference.split("=")[0].trim().length <= 2 && !prediction.includes("=")) {
    return mathEqual(prediction, reference.split("=")[1], depth + 1);
  }
  return false;
}

/** The recipe's `math_equal` cascade on normalized answers. */
export function mathEqual(prediction: string, reference: string, depth = 0): boolean {
  if (depth > MAX_DEPTH) return false;
  if (prediction.trim().toLowerCase() === reference.trim().toLowerCase()) return true;
  if (["A", "B", "C", "D", "E"].includes(reference)) {
    const cleaned = prediction.replace(/^\n+|\n+$/g, "").replace(/\.+$/, "").replace(/\/+$/, "").replace(/^ +| +$/g, "")
      .replace(/^:+/, "");
    const letters = cleaned.toUpperCase().match(/(?<![\p{L}\p{N}_])(A|B|C|D|E)(?![\p{L}\p{N}_])/gu);
    if (letters !== null && letters[letters.length - 1] === reference) return true;
  }
  for (const prefix of CHOICE_PREFIXES) {
    if (prefix.test(prediction) && mathEqual(prediction.replace(prefix, "").trim(), reference, depth + 1)) return true;
  }
  if (prediction.includes(",") && reference.includes(",")) {
    const p = prediction.split(",").map((s) => s.trim()).sort();
    const r = reference.split(",").map((s) => s.trim()).sort();
    if (p.length === r.length && p.every((x, i) => mathEqual(x, r[i], depth + 1))) return true;
  }
  const pn = digits(prediction);
  const rn = digits(reference);
  if (pn !== undefined && rn !== undefined) {
    return [rn / 100, rn, rn * 100].some((c) => isClose(pn, c, 1e-9, ABS_TOL));
  }
  if (!prediction) return false;
  if (braceParenEqual(prediction, reference)) return true;
  if (equationRewrites(prediction, reference, depth)) return true;
  return symbolicEqual(prediction, reference);
}

export const MATH_GRADER: AccuracyGrader = {
  ...MATH_GRADER_DECLARATION,
  grade(response, groundTruth) {
    const { answer, unparsed } = mathAnswer(response);
    const pred = stripMathAnswer(answer);
    const gold = stripMathAnswer(groundTruth);
    const correct = mathEqual(pred, gold);
    return verdict(
      correct,
      unparsed,
      `extracted '${answer}' (stripped '${pred}'); ground_truth '${groundTruth}' (stripped '${gold}'); compared via ` +
        `math_equal; match=${pyBool(correct)}` + (unparsed ? " (regex fallback)" : ""),
      answer,
      groundTruth.trim(),
    );
  },
};
