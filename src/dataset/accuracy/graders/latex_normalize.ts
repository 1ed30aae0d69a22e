/**
 * latex2sympy2_extended 1.0.6's `normalize_latex` (the version lighteval 0.13 pins) with lighteval's configuration:
 * the `\boxed{}` contents (all of them joined by commas, or, for a `\boxed{…}` match, the last run of boxes separated
 * by "and", "or" or commas), `\left`/`\right` dropped, `\mathrm`-style commands, `\dfrac`, "and"/"or", percent words,
 * infinity and `\ldots` rewritten, dollar signs and quotes removed; of an equation chain only the last side; trailing
 * `\text{units}`; `.5` read as `0.5`; `^(…)`, `sqrt(…)`, `\frac12`, `\sqrt2` and `a/b` repaired.
 */

export interface LatexNormalization {
  /** Which boxed contents to keep: every one (`all`) or the last separated run (`last`). */
  readonly boxed: "all" | "last";
}

const R_LEFT = new RegExp(
  String.raw`\\m?left(\\\{|\{|\\\||\||\[|\(|\\rbracl|\\lgroup|\\lbrace|\\lbrack|\\vert|\\lvert|\\lceil|\\lfloor|` +
    String.raw`\\vert|\\lvert|\\langle|\\llcorner|\\ulcorner)`,
  "g",
);
const R_RIGHT = new RegExp(
  String.raw`\\m?right(\\\}|\}|\\\||\||\]|\)|\\rbrack|\\rgroup|\\rbrace|\\rbrack|\\vert|\\rvert|\\rceil|\\rfloor|` +
    String.raw`\\vert|\\rvert|\\rangle|\\lrcorner|\\urcorner)`,
  "g",
);
const EMPTY_TEXT = /\\text\s*\{\s*\}/g;
const TO_REMOVE = /\\mathrm\{th\}|\\!\s*|\\text\s*\{\s*\}|\\text\s*\{\s*\}|\\\$|\$|(?<!\\)["']|\\displaystyle/g;
const W = String.raw`[\p{L}\p{N}_]`;
/** Rewrites, tried together left to right (the first alternative that matches at a place wins). */
const REPLACEMENTS: readonly [string, string][] = [
  [String.raw`\\math(?:rm|it|bf)`, "\\text"],
  [String.raw`\\text(?:normal|bf|it|rm)`, "\\text"],
  [String.raw`\\(?:d|t|c)frac`, "\\frac"],
  [String.raw`\s\.`, " 0."],
  [String.raw`\{\.`, "{0."],
  ["~=", "\\approx"],
  [String.raw`\s*\{\s*,\s*\}`, ","],
  [String.raw`(?<!${W})(?:and|or)(?!${W})`, ";"],
  [String.raw`(?:\\text\{\s*(?:and|or)\s*\})`, ";"],
  [String.raw`(?<!\\)\\\s`, " "],
  ["infinity", "\\infty"],
  [String.raw`,?(?:\\ldots)`, " "],
  [String.raw`\s*percent`, "\\\\%"],
  [String.raw`\\text\{percent\}`, "\\\\%"],
  [String.raw`(?:(?<!\\)inf(?!inity))`, "\\infty"],
  [" sqrt", "\\sqrt"],
];
const REPLACE_RE = new RegExp(REPLACEMENTS.map(([p], i) => `(?<r${i}>${p})`).join("|"), "gu");
const COMMAND_SLASH = /\\\\(?=[a-zA-Z])/g;
const PERMUTATION = /\(([a-zA-Z0-9+\-*/\\ ]+?)\)_\{([a-zA-Z0-9+\-*/\\ ]+?)\}/g;
const EQUATION_SPLIT = /(?<!\\|<|!|>)=/;
const UNIT_SUPERSCRIPT = /(\\(?:text|mbox)\{.*?\})(\^\d|\{\^\d\})?$/;
const UNITS: readonly string[] = [
  "integerpoint",
  "feet",
  "sue",
  "digit",
  "pound",
  "meal",
  "edge",
  "student",
  "children ticket",
  "multiple",
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
  "cent",
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
/** Compiled on first use: building this Unicode-aware alternation of every unit costs ~15 ms at start. */
let unitsPattern: RegExp | undefined;
function unitsRe(): RegExp {
  return unitsPattern ??= new RegExp(UNITS.map((u) => `(?=\\s)(?:${u}(?:s|es)?)($|[^\\p{L}\\p{N}_])`).join("|"), "gu");
}
const MALFORMED: readonly [RegExp, string][] = [
  [/\^\s?\((.*?)\)/g, "^{$1}"],
  [/sqrt\s?\((.*?)\)/g, "\\sqrt{$1}"],
  [/\\frac\s?(\d)\s?(\d+)/g, "\\frac{$1}{$2}"],
  [/\\log_\s?(\d)\s?(\d+)/g, "\\log_{$1}{$2}"],
  [/\\frac\s?\{(.*?)\}\s?(\d)/g, "\\frac{$1}{$2}"],
  [/\\frac\s?(\d)\s?\{(.*?)\}/g, "\\frac{$1}{$2}"],
  [/\\sqrt\s?(\d)/g, "\\sqrt{$1}"],
];
const SEPARATOR = /^\s*(?:and|or|,)\s*$/;

/** `extract_boxed_content`: the boxed contents, or the text itself when it has none. */
export function boxedContent(text: string, mode: "all" | "last"): string {
  const results: string[] = [];
  let current = text.length;
  let lastStart: number | undefined;
  let maxPos = text.length;
  for (;;) {
    // Python's `rfind(sub, 0, current)`: the last occurrence lying wholly before `current`.
    const boxed = current >= 6 ? text.lastIndexOf("\\boxed", current - 6) : -1;
    const fbox = current >= 5 ? text.lastIndexOf("\\fbox", current - 5) : -1;
    if (boxed < 0 && fbox < 0) break;
    const start = Math.max(boxed, fbox);
    let next = start + (boxed > fbox ? 6 : 5);
    while (next < maxPos && /\s/.test(text[next])) next++;
    if (next >= maxPos) break;
    if (text[next] !== "{") {
      if (results.length === 0) results.push(text.slice(next));
      break;
    }
    let depth = 1;
    let end = -1;
    for (let i = next + 1; i < maxPos; i++) {
      if (text[i] === "{") depth++;
      else if (text[i] === "}" && --depth === 0) {
        end = i;
        break;
      }
    }
    if (end < 0) {
      if (results.length === 0) results.push(text.slice(next));
      break;
    }
    const content = text.slice(next + 1, end).trim();
    if (mode === "last" && lastStart !== undefined && !SEPARATOR.test(text.slice(end + 1, lastStart))) break;
    results.push(content);
    lastStart = start;
    maxPos = start;
    current = start;
  }
  return results.length === 0 ? text : results.reverse().join(",");
}

function fixMalformed(text: string): string {
  let s = text;
  for (const [re, to] of MALFORMED) s = s.replace(re, to);
  return s.replaceAll(" sqrt", "\\sqrt");
}

function fixSqrt(text: string): string {
  if (!text.includes("\\sqrt")) return text;
  const [head, ...rest] = text.split("\\sqrt");
  return head + rest.map((part) => {
    const p = part.trimStart();
    return p.length > 0 && p[0] !== "{" && p[0] !== "[" ? `\\sqrt{${p[0]}}${p.slice(1)}` : `\\sqrt${p}`;
  }).join("");
}

function fixFracs(text: string): string {
  const [head, ...rest] = text.split("\\frac");
  let out = head;
  for (const part of rest) {
    const sub = part.trimStart();
    out += "\\frac";
    if (sub.length > 0 && sub[0] === "{") out += sub;
    else if (sub.length < 2) return text;
    else if (sub[1] !== "{") out += `{${sub[0]}}{${sub[1]}}${sub.slice(2)}`;
    else out += `{${sub[0]}}${sub[1]}${sub.slice(2)}`;
  }
  return out;
}

function fixSlash(text: string): string {
  const parts = text.split("/");
  if (parts.length !== 2) return text;
  const [a, b] = parts;
  // Python's int() accepts spaces and `_`, but the result must print back as the same text.
  if (!/^-?\d+$/.test(a) || !/^-?\d+$/.test(b)) return text;
  if (`${BigInt(a)}/${BigInt(b)}` !== text) return text;
  return `\\frac{${BigInt(a)}}{${BigInt(b)}}`;
}

/** `normalize_latex(text, config)` with lighteval's configuration. */
export function normalizeLatex(input: string, o: LatexNormalization): string {
  let text = boxedContent(input, o.boxed);
  text = text.replaceAll("\\mathrm{T}", "T").replaceAll("\\mathrm{d}", "d").replaceAll("{\\rm d}", "d");
  text = text.replaceAll("\\left[\\begin{matrix}", "\\begin{bmatrix}").replaceAll(
    "\\end{matrix}\\right]",
    "\\end{bmatrix}",
  );
  text = text.replace(R_LEFT, "$1").replace(R_RIGHT, "$1");
  text = text.replace(PERMUTATION, "\\frac{($1)!}{(($1)-($2))!}");
  text = text.replace(TO_REMOVE, "");
  text = text.replace(REPLACE_RE, (...args) => {
    const groups = args[args.length - 1] as Record<string, string | undefined>;
    const i = Object.keys(groups).findIndex((k) => groups[k] !== undefined);
    return REPLACEMENTS[i][1];
  });
  text = text.replaceAll("\n", " ").replaceAll("\t", " ");
  if (!text.includes("matrix")) text = text.replace(COMMAND_SLASH, "\\");
  if (!text.includes(",") && !text.includes(";")) {
    const sides = text.split(EQUATION_SPLIT);
    if (sides.length > 2) text = sides[sides.length - 1];
  }
  let unitless = text.replace(UNIT_SUPERSCRIPT, "").trim();
  if (unitless !== "" && unitless !== text) text = unitless;
  for (let k = 0; k < 2; k++) {
    unitless = text.replace(unitsRe(), (...args) => {
      const groups = args.slice(1, 1 + UNITS.length) as (string | undefined)[];
      return (groups[0] ?? "") + (groups[1] ?? "");
    });
    if (unitless !== "" && unitless !== text) text = unitless;
  }
  text = text.replace(EMPTY_TEXT, " ");
  if (text.length > 0 && text[0] === ".") text = "0" + text;
  if (text === "0.5") text = "\\frac{1}{2}";
  text = fixSlash(fixFracs(fixSqrt(fixMalformed(text))));
  return text.trim();
}
