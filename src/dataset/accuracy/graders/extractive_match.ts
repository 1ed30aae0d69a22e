/**
 * lighteval's extractive match (`MultilingualExtractiveMatchMetric`, English), which AIPerf 0.13's `lighteval_expr`,
 * `lighteval_latex` and `lighteval_gpqa` graders run: answers are found by lighteval's anchored patterns, tried by
 * priority ("final answer is … I hope", "final answer … is", "answer:", "answer", bare expressions; `\boxed{}` at
 * the priority the grader gives it), the match ending last winning within a priority; each is read as a number, a
 * plain expression, LaTeX (normalized as latex2sympy2_extended 1.0.6 does, `latex_normalize.ts`) or a choice letter.
 * The first matched text is also kept as a fallback string. Gold and prediction agree when any pair of what was
 * extracted from each is the same value (`math_value.ts`, 5 decimals for decimal literals; sets element by element)
 * or the same non-empty text.
 */
import { type MathExpr, parseMath, sameValue } from "./math_value.ts";
import { normalizeLatex } from "./latex_normalize.ts";

/** What one extraction yields: a value, a set of values (LaTeX answers joined by "and", "or" or commas), a text. */
export type Extracted = { readonly value: MathExpr } | { readonly set: readonly MathExpr[] } | string;

/** An extraction target (lighteval's `ExprExtractionConfig`, `LatexExtractionConfig`, `IndicesExtractionConfig`). */
export type ExtractionTarget =
  | { readonly kind: "expr" }
  | { readonly kind: "latex"; readonly boxedPriority: number }
  | { readonly kind: "indices"; readonly choices: number };

interface Pattern {
  readonly re: RegExp;
  readonly priority: number;
  readonly target: ExtractionTarget;
}

const OPS = String.raw`\+\-\*\×\/\^\(\)\÷`;
const CURRENCY = String.raw`\$€£¥₹₽₪₩₫฿₡₢₣₤₥₦₧₨₩₪₫₭₮₯₰₱₲₳₴₵₶₷₸₹₺₻₼₽₾₿`;
const FULL_STOP = String.raw`[\.\.]`;
const COMMA = String.raw`[,\,]`;
const COLON = String.raw`[:\:]`;
const SPACE = String.raw`(?:\s| )`;
const ANSWER = "(?i:answer)";

function exprPatterns(target: ExtractionTarget): Pattern[] {
  const number = String.raw`(?:(?<integer1>-?\d{1,3}(?:[ ,]\d{3})+)(?<decimal1>\.\d+)?|(?<integer2>-?\d+)` +
    String.raw`(?<decimal2>[.,]\d+)|(?<decimal3>\.\d+)|(?<integer3>-?\d+))` +
    String.raw`(?<percent>\s*(?:%|[Pp]ercent|\s*[Pp]ercentage|\s*[Pp]ct))?`;
  const chars = String.raw`[\d\.\s${OPS}]`;
  const expr = String.raw`(?<expr>-?\(?-?\d${chars}*[${OPS}]${chars}+\)?)`;
  const prefix = String.raw`(?:^|${SPACE}|\=)(?:\*\*)?`;
  const suffix = String.raw`(?:\*\*)?(?:${FULL_STOP}|${COMMA}|\s?${COLON}|${SPACE}|\)|\$|$)`;
  const exprAnchored = `(?:${prefix}${expr}${suffix})`;
  const numberAnchored = `(?:${prefix}[${CURRENCY}]?${number})`;
  const either = `(?:${exprAnchored}|${numberAnchored})`;
  const list: [string, number][] = [
    [String.raw`(?i:final answer is)\:?\s*${either}\.?\s?I hope`, 0],
    [String.raw`(?i:final answer.{0,100}?)\s+is\:?${either}`, 50],
    [String.raw`${ANSWER}\s?${COLON}(?:.{0,100}=\s*|.{0,50}?)${either}(?!\s*=)`, 100],
    [String.raw`${ANSWER}(?:.{0,100}=\s*|.{0,50}?)${either}(?!\s*=)`, 200],
    [exprAnchored, 300],
    [numberAnchored, 300],
  ];
  return list.map(([source, priority]) => ({ re: new RegExp(source, "g"), priority, target }));
}

function latexEnv(prefix: string, boxed: boolean): string {
  const percent = String.raw`(?<${prefix}percent>(?:\\?%|[Pp]ercent|[Pp]ercentage|[Pp]ct))`;
  let displayDollar = String.raw`(?:[^$]|\$(?!\$))`;
  let displayBracket = String.raw`(?:[^\\]|\\(?!\]))`;
  let inlineDollar = String.raw`(?:\\[$]|[^\n$])`;
  let inlineParen = String.raw`(?:[^\\\n]|\\(?!\)))`;
  let inlineBracket = String.raw`[^\n\]\[]`;
  const wrap = (c: string) => boxed ? String.raw`${c}*?\\boxed{${c}+?}${c}*?` : `${c}+?`;
  displayDollar = wrap(displayDollar);
  displayBracket = wrap(displayBracket);
  inlineDollar = wrap(inlineDollar);
  inlineParen = wrap(inlineParen);
  inlineBracket = wrap(inlineBracket);
  const patterns = [
    String.raw`(?<!\\)\$\$(?<${prefix}latexDisplayDollar>${displayDollar})(?<!\\)\$\$`,
    String.raw`(?<!\\)\\\[(?<${prefix}latexDisplayBracket>${displayBracket})(?<!\\)\\\]`,
    String.raw`(?<!\\|\d)\$(?<${prefix}latexInlineDollar>${inlineDollar})(?<!\\)\$`,
    String.raw`(?<!\\)\\\((?<${prefix}latexInlineParenthesis>${inlineParen})(?<!\\)\\\)`,
    String.raw`\s\[(?<${prefix}latexInlineBracket>${inlineBracket})\]\s`,
  ];
  if (!boxed) {
    const simple = String.raw`-?\d+(?:[.,]\d+)?`;
    patterns.push(String.raw`(?<${prefix}latexFraction>-?\\frac{${simple}}{${simple}})`);
  }
  return String.raw`(?:(?:${patterns.join("|")})\s*${percent}?)`;
}

function latexGroups(boxed: boolean): string {
  let next = "";
  for (let i = 1; i <= 5; i++) next += String.raw`(?:\s*(?:and|or|,)\s*${latexEnv(`next${i}_`, boxed)})?`;
  return `${latexEnv("first_", boxed)}${next}`;
}

function latexPatterns(target: ExtractionTarget & { kind: "latex" }): Pattern[] {
  const envs = `(?:${latexGroups(false)})`;
  const list: [string, number][] = [
    [String.raw`(?i:final answer is)\:?\s*${envs}\.?\s?I hope`, 0],
    [String.raw`(?i:final answer.{0,100}?)\s+is\:?\s*${envs}`, 50],
    [String.raw`${ANSWER}\s?${COLON}.{0,50}?${envs}`, 100],
    [String.raw`${ANSWER}.{0,50}?${envs}`, 200],
    [envs, 300],
  ];
  if (target.boxedPriority >= 0) {
    list.push([latexGroups(true), target.boxedPriority]);
    list.push([String.raw`(?<first_latexBoxed>\\boxed{.+})`, target.boxedPriority]);
  }
  return list.map(([source, priority]) => ({ re: new RegExp(source, "gs"), priority, target }));
}

function indicesPatterns(target: ExtractionTarget & { kind: "indices" }): Pattern[] {
  const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ".slice(0, target.choices).split("");
  const indices = `(?<indices>${letters.map((l) => String.raw`(?:${l}|\(${l}\))`).join("|")})`;
  const space = String.raw`\ `;
  const prefix = String.raw`(?:^|${space})(?:\*\*)?`;
  const suffix = String.raw`(?:\*\*)?(?:${FULL_STOP}|${COMMA}|\s?${COLON}|${space}|$)`;
  const answer = `${prefix}${indices}${suffix}`;
  const list: [string, number][] = [
    [String.raw`(?i:final answer is)\:?\s*${indices}\.?\s?I hope`, 0],
    [String.raw`(?i:final answer.{0,100}?)\s+is\:?\s*${indices}`, 50],
    [String.raw`${ANSWER}\s?${COLON}.{0,50}?${answer}`, 100],
    [String.raw`${ANSWER}.{0,50}?${answer}`, 150],
    [String.raw`^(?:\*\*)?${indices}${suffix}`, 200],
    [String.raw`\n(?:\*\*)?${indices}${suffix}`, 210],
  ];
  return list.map(([source, priority]) => ({ re: new RegExp(source, "g"), priority, target }));
}

const ORDER = { indices: 0, latex: 1, expr: 2 } as const;
const cache = new Map<string, readonly Pattern[]>();

function patternsFor(targets: readonly ExtractionTarget[]): readonly Pattern[] {
  const key = JSON.stringify(targets);
  let found = cache.get(key);
  if (found === undefined) {
    found = [...targets].sort((a, b) => ORDER[a.kind] - ORDER[b.kind]).flatMap((t) =>
      t.kind === "expr" ? exprPatterns(t) : t.kind === "latex" ? latexPatterns(t) : indicesPatterns(t)
    );
    cache.set(key, found);
  }
  return found;
}

/** `extract_expr`: a number (integer or decimal, a percentage divided by 100), else a plain expression. */
function extractExpr(groups: Readonly<Record<string, string | undefined>>): [Extracted | undefined, string] {
  const pick = (prefix: string) =>
    Object.entries(groups).find(([name, v]) => name.startsWith(prefix) && v !== undefined && v !== "")?.[1] ?? "";
  let integer = pick("integer");
  let decimal = pick("decimal");
  if (integer !== "" || decimal !== "") {
    integer = integer.replace(/[, ]/g, "").replace(/^0+/, "");
    if (integer === "") integer = "0";
    decimal = decimal.replace(",", ".");
    const text = `${integer}${decimal}`;
    const value = parseMath(groups.percent ? `(${text})/100` : text);
    if (value === undefined) return [undefined, text];
    // A decimal is a sympy Float (compared to 5 decimals), an integer exact; a percentage keeps its number's kind.
    return [{ value: { ...value, kind: decimal !== "" ? "float" : value.kind } }, text];
  }
  const expr = groups.expr ?? "";
  if (expr !== "") {
    const value = parseMath(expr.replaceAll("\n", " ").replaceAll("^", "**"));
    if (value !== undefined) return [{ value }, expr];
  }
  return [undefined, expr];
}

/** `extract_latex`: every LaTeX group of the match, normalized and parsed; several parsed ones make a set. */
function extractLatex(groups: Readonly<Record<string, string | undefined>>): [Extracted | undefined, string] {
  const found: [string, string][] = [];
  const first = Object.entries(groups).find(([n, v]) => n.startsWith("first_latex") && v);
  if (first !== undefined) found.push([first[1]!, first[0]]);
  for (let i = 1; i <= 5; i++) {
    const next = Object.entries(groups).find(([n, v]) => n.startsWith(`next${i}_latex`) && v);
    if (next !== undefined) found.push([next[1]!, next[0]]);
  }
  const values: (MathExpr | undefined)[] = [];
  const texts: string[] = [];
  for (const [latex, name] of found) {
    const [owner, group] = name.split("_");
    const normalized = normalizeLatex(latex, { boxed: group === "latexBoxed" ? "last" : "all" });
    texts.push(normalized);
    let value = parseMath(normalized);
    if (value !== undefined && groups[`${owner}_percent`]) {
      const v = value;
      value = { ...v, kind: v.kind === "integer" ? "rational" : v.kind, evaluate: (x) => v.evaluate(x) / 100 };
    }
    values.push(value);
  }
  if (values.length === 0) return [undefined, ""];
  if (values.length > 1 && values.every((v) => v !== undefined)) {
    return [{ set: values as MathExpr[] }, texts.join(" and ")];
  }
  return [values[0] === undefined ? undefined : { value: values[0] }, texts[0]];
}

function extractMatch(
  groups: Readonly<Record<string, string | undefined>>,
  target: ExtractionTarget,
): [Extracted | undefined, string] {
  if (target.kind === "expr") return extractExpr(groups);
  if (target.kind === "latex") return extractLatex(groups);
  const letter = (groups.indices ?? "").replace(/[()]/g, "").trim();
  return [letter, letter];
}

/**
 * `extract_target_from_pred` with `fallback_mode="first_match"` and `extraction_mode="any_match"`: by priority, the
 * matches ending last first, the first that yields something; then the first matched text as a fallback string.
 */
export function extractTargets(text: string, targets: readonly ExtractionTarget[]): Extracted[] {
  const out: Extracted[] = [];
  const fallbacks: string[] = [];
  const patterns = patternsFor(targets);
  const priorities = [...new Set(patterns.map((p) => p.priority))].sort((a, b) => a - b);
  for (const priority of priorities) {
    const matches: {
      groups: Record<string, string | undefined>;
      start: number;
      end: number;
      target: ExtractionTarget;
    }[] = [];
    for (const p of patterns) {
      if (p.priority !== priority) continue;
      for (const m of text.matchAll(p.re)) {
        matches.push({ groups: m.groups ?? {}, start: m.index, end: m.index + m[0].length, target: p.target });
      }
    }
    matches.sort((a, b) => b.end - a.end || a.start - b.start);
    for (const m of matches) {
      const [value, fallback] = extractMatch(m.groups, m.target);
      if (fallback !== "") fallbacks.push(fallback);
      if (value !== undefined) {
        out.push(value);
        break;
      }
    }
    if (out.length > 0) break;
  }
  if (fallbacks.length > 0) out.push(fallbacks[0]);
  return out;
}

function sameSet(a: readonly MathExpr[], b: readonly MathExpr[]): boolean {
  if (a.length !== b.length) return false;
  const left = [...b];
  return a.every((x) => {
    const i = left.findIndex((y) => sameValue(x, y, { precision: 5 }));
    if (i < 0) return false;
    left.splice(i, 1);
    return true;
  });
}

/** `compare_gold_target` for one gold and one prediction extraction. */
export function sameExtraction(gold: Extracted, pred: Extracted): boolean {
  if (typeof gold === "string" || typeof pred === "string") {
    return typeof gold === "string" && typeof pred === "string" && gold.trim() !== "" && gold.trim() === pred.trim();
  }
  const g = "value" in gold ? [gold.value] : gold.set;
  const p = "value" in pred ? [pred.value] : pred.set;
  if (g.length === 1 && p.length === 1) return sameValue(g[0], p[0], { precision: 5 });
  return sameSet(g, p);
}

/** Describes an extraction for the grader's reasoning. */
export function describeExtraction(e: Extracted): string {
  if (typeof e === "string") return JSON.stringify(e);
  if ("value" in e) return `value ${formatValue(e.value)}`;
  return `set {${e.set.map(formatValue).join(", ")}}`;
}

function formatValue(v: MathExpr): string {
  if (v.variables.size > 0) return `expression in ${[...v.variables].join(", ")}`;
  const x = v.evaluate(new Map());
  return Number.isInteger(x) ? String(x) : String(Number(x.toPrecision(12)));
}
