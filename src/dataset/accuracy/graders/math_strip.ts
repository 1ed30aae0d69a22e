/**
 * The answer normalization of AIPerf 0.13's `math` grader (`strip_string`, after the Qwen2.5-Math / DeepSeek-Math
 * evaluation recipe): LaTeX spacing, `\left`/`\right`, `\text{…}` and unit words, degrees, dollars, percent signs,
 * month names and `x=` prefixes go; `\dfrac`/`\tfrac` become `\frac`, `\frac12` becomes `\frac{1}{2}`, `a/b` of
 * integers becomes `\frac{a}{b}`, trailing `.0`s go. Word boundaries (`\W`, `\b`, `\w`) are Python's (any script).
 */

/** Unit words dropped wherever they stand alone (the recipe's list; each is a regular expression as written). */
const UNIT_TEXTS_BASE: readonly string[] = [
  "east",
  "degree",
  "mph",
  "kmph",
  "ft",
  "m square",
  " m east",
  "sq m",
  "deg",
  "mile",
  "q .",
  "monkey",
  "prime",
  "ratio",
  "profit of rs",
  "rd",
  "o",
  "gm",
  "p . m",
  "lb",
  "tile",
  "per",
  "dm",
  "lt",
  "gain",
  "ab",
  "way",
  "west",
  "a .",
  "b .",
  "c .",
  "d .",
  "e .",
  "f .",
  "g .",
  "h .",
  "t",
  "a",
  "h",
  "no change",
  "men",
  "soldier",
  "pie",
  "bc",
  "excess",
  "st",
  "inches",
  "noon",
  "percent",
  "by",
  "gal",
  "kmh",
  "c",
  "acre",
  "rise",
  "a . m",
  "th",
  "π r 2",
  "sq",
  "mark",
  "l",
  "toy",
  "coin",
  "sq . m",
  "gallon",
  "° f",
  "profit",
  "minw",
  "yr",
  "women",
  "feet",
  "am",
  "pm",
  "hr",
  "cu cm",
  "square",
  "v â € ™",
  "are",
  "rupee",
  "rounds",
  "cubic",
  "cc",
  "mtr",
  "s",
  "ohm",
  "number",
  "kmph",
  "day",
  "hour",
  "minute",
  "min",
  "second",
  "man",
  "woman",
  "sec",
  "cube",
  "mt",
  "sq inch",
  "mp",
  "∏ cm ³",
  "hectare",
  "more",
  "sec",
  "unit",
  "cu . m",
  "cm 2",
  "rs .",
  "rs",
  "kg",
  "g",
  "month",
  "km",
  "m",
  "cm",
  "mm",
  "apple",
  "liter",
  "loss",
  "yard",
  "pure",
  "year",
  "increase",
  "decrease",
  "d",
  "less",
  "Surface",
  "litre",
  "pi sq m",
  "s .",
  "metre",
  "meter",
  "inch",
];
const UNIT_TEXTS: readonly string[] = [...UNIT_TEXTS_BASE, ...UNIT_TEXTS_BASE.map((t) => t + "s")];
const NON_WORD = String.raw`[^\p{L}\p{N}_]`;
/**
 * The unit and month patterns, compiled on first use: ~200 Unicode-aware expressions take tens of milliseconds to
 * build, which every command importing the option table would otherwise pay at start.
 */
let unitPatterns: { readonly units: readonly RegExp[]; readonly months: RegExp } | undefined;
function patterns(): { readonly units: readonly RegExp[]; readonly months: RegExp } {
  return unitPatterns ??= {
    units: UNIT_TEXTS.map((t) => new RegExp(`(^|${NON_WORD})${t}($|${NON_WORD})`, "gu")),
    months: new RegExp(
      String
        .raw`(?<![\p{L}\p{N}_])(January|February|March|April|May|June|July|August|September|October|November|December)(?![\p{L}\p{N}_])`,
      "giu",
    ),
  };
}

function rstripChars(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text[end - 1])) end--;
  return text.slice(0, end);
}

function fixFracs(text: string): string {
  const parts = text.split("\\frac");
  let out = parts[0];
  for (const sub of parts.slice(1)) {
    out += "\\frac";
    if (sub.length > 0 && sub[0] === "{") {
      out += sub;
      continue;
    }
    if (sub.length < 2) return text;
    const [a, b] = [sub[0], sub[1]];
    if (b !== "{") out += `{${a}}{${b}}` + sub.slice(2);
    else out += `{${a}}${b}` + sub.slice(2);
  }
  return out;
}

/** Python's `int(text)` on the text left here (no spaces): digits with an optional sign and `_` separators. */
function pyInt(text: string): string | undefined {
  if (!/^[+-]?\d(?:_?\d)*$/.test(text)) return undefined;
  return BigInt(text.replaceAll("_", "")).toString();
}

function fixSlash(text: string): string {
  const parts = text.split("/");
  if (parts.length !== 2) return text;
  let [a, b] = parts;
  if (!a.includes("sqrt")) {
    const n = pyInt(a);
    if (n === undefined) return text;
    a = n;
  }
  if (!b.includes("sqrt")) {
    const n = pyInt(b);
    if (n === undefined) return text;
    b = n;
  }
  return `\\frac{${a}}{${b}}`;
}

/** `strip_string`: the normalized answer. */
export function stripMathAnswer(answer: string): string {
  let s = answer.trim().replaceAll("\n", "");
  s = rstripChars(s, ".");
  s = s.replaceAll("\\!", "");
  s = s.replace(/\\begin\{array\}\{.*?\}/g, "\\begin{pmatrix}").replace(/\\end\{array\}/g, "\\end{pmatrix}");
  s = s.replaceAll("bmatrix", "pmatrix").replaceAll("tfrac", "frac").replaceAll("dfrac", "frac");
  s = s.replaceAll("\\neq", "\\ne").replaceAll("\\leq", "\\le").replaceAll("\\geq", "\\ge");
  s = s.replaceAll("\\left", "").replaceAll("\\right", "").replaceAll("\\{", "{").replaceAll("\\}", "}");
  const untexted = s.replace(/\\text\{.*?\}$/, "").trim();
  if (untexted !== "" && untexted !== s) s = untexted;
  const { units, months } = patterns();
  for (const re of units) {
    const dropped = s.replace(re, "$1$2");
    if (dropped !== "") s = dropped;
  }
  s = s.replaceAll("^{\\circ}", "").replaceAll("^\\circ", "").replaceAll("\\$", "").replaceAll("$", "");
  s = s.replaceAll("\\(", "").replaceAll("\\)", "");
  s = s.replace(/\\text\{(.*?)\}/g, "$1");
  for (const key of ["x=", "y=", "z=", "x\\in", "y\\in", "z\\in", "x\\to", "y\\to", "z\\to"]) s = s.replaceAll(key, "");
  s = s.replaceAll("\\emptyset", "{}").replaceAll("(-\\infty,\\infty)", "\\mathbb{R}");
  s = s.replaceAll("\\%", "").replaceAll("%", "");
  s = s.replace(months, "");
  s = s.replaceAll(" .", " 0.").replaceAll("{.", "{0.");
  // The recipe's unwrapping of `{…}`, `(…)`, `[…]` asks `isalnum()` of the whole text, brackets included: never true.
  s = s.replaceAll("infinity", "\\infty");
  if (!s.includes("\\infty")) s = s.replaceAll("inf", "\\infty");
  s = s.replaceAll("+\\inity", "\\infty").replaceAll("and", "").replaceAll("\\mathbf", "");
  s = s.replace(/\\mbox\{.*?\}/g, "");
  if (s.includes("j") && !s.includes("i")) s = s.replaceAll("j", "i");
  s = s.replace(/(\d+)\.0*([^\d])/g, "$1$2").replace(/(\d+)\.0*$/, "$1");
  if (s === "") return s;
  if (s[0] === ".") s = "0" + s;
  const sides = s.split("=");
  if (sides.length === 2 && sides[0].length <= 2) s = sides[1];
  s = s.replace(/\\sqrt([\p{L}\p{N}_]+)/gu, "\\sqrt{$1}");
  s = s.replaceAll(" ", "");
  return fixSlash(fixFracs(s));
}
