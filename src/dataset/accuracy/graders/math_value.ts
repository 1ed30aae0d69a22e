/**
 * Mathematical answers as values, to tell whether two answers are the same number or the same expression where
 * AIPerf's graders ask sympy (`parse_expr`, `latex2sympy`, `simplify`, `N`). infermeter has no computer algebra
 * system, so an answer is parsed into an arithmetic expression — numbers, `+ - * / ^`, implicit products, `\frac`,
 * `\sqrt`, `\pi`, `e`, elementary functions, `!`, `%`, one-letter variables, in plain (`2*x**2`) or LaTeX
 * (`2x^{2}`) spelling — and two expressions are the same when:
 * - without variables: their values agree (exactly for integers and fractions, to `precision` decimals when either is
 *   a decimal literal, within a relative 1e-12 for irrational values; or within the caller's absolute tolerance);
 * - with variables: they have the same variables and agree at five fixed points (a randomized identity test, which
 *   `simplify(a - b) == 0` decides symbolically).
 * Sets, intervals, matrices and anything else that does not parse are compared as text by the callers.
 */

/** How a value was written: an exact integer or fraction, a decimal literal, or an expression. */
export type MathKind = "integer" | "rational" | "float" | "expression";

export interface MathExpr {
  readonly kind: MathKind;
  /** One-letter variables it uses. */
  readonly variables: ReadonlySet<string>;
  evaluate(vars: ReadonlyMap<string, number>): number;
}

type Token =
  | { t: "num"; v: string }
  | { t: "id"; v: string }
  | { t: "cmd"; v: string }
  | { t: "op"; v: string };

const FUNCTIONS: Readonly<Record<string, (x: number) => number>> = {
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  cot: (x) => 1 / Math.tan(x),
  sec: (x) => 1 / Math.cos(x),
  csc: (x) => 1 / Math.sin(x),
  arcsin: Math.asin,
  arccos: Math.acos,
  arctan: Math.atan,
  asin: Math.asin,
  acos: Math.acos,
  atan: Math.atan,
  sinh: Math.sinh,
  cosh: Math.cosh,
  tanh: Math.tanh,
  log: Math.log,
  ln: Math.log,
  exp: Math.exp,
  sqrt: Math.sqrt,
  abs: Math.abs,
};

const CONSTANTS: Readonly<Record<string, number>> = { pi: Math.PI, infty: Infinity, infinity: Infinity, oo: Infinity };

/** LaTeX commands that only space or size things. */
const IGNORED = new Set([",", "!", ";", ":", " ", "left", "right", "big", "Big", "bigg", "Bigg", "displaystyle"]);

function tokenize(text: string): Token[] | undefined {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const num = /^(?:\d+(?:\.\d*)?|\.\d+)/.exec(text.slice(i));
    if (num !== null) {
      out.push({ t: "num", v: num[0] });
      i += num[0].length;
      continue;
    }
    if (c === "\\") {
      const cmd = /^\\([A-Za-z]+|.)/.exec(text.slice(i));
      if (cmd === null) return undefined;
      i += cmd[0].length;
      if (IGNORED.has(cmd[1])) continue;
      out.push({ t: "cmd", v: cmd[1] });
      continue;
    }
    if (/[A-Za-z]/.test(c)) {
      const word = /^[A-Za-z]+/.exec(text.slice(i))![0];
      i += word.length;
      if (word in FUNCTIONS || word in CONSTANTS || word === "inf") {
        out.push({ t: "id", v: word === "inf" ? "oo" : word });
      } else for (const letter of word) out.push({ t: "id", v: letter });
      continue;
    }
    if (c === "*" && text[i + 1] === "*") {
      out.push({ t: "op", v: "^" });
      i += 2;
      continue;
    }
    if ("+-*/^(){}[]!%|".includes(c)) {
      out.push({ t: "op", v: c });
      i++;
      continue;
    }
    if (c === "×" || c === "·" || c === "⋅") {
      out.push({ t: "op", v: "*" });
      i++;
      continue;
    }
    if (c === "÷") {
      out.push({ t: "op", v: "/" });
      i++;
      continue;
    }
    if (c === "π") {
      out.push({ t: "id", v: "pi" });
      i++;
      continue;
    }
    if (c === "√") {
      out.push({ t: "cmd", v: "sqrt" });
      i++;
      continue;
    }
    return undefined;
  }
  return out;
}

interface Node {
  readonly kind: MathKind;
  readonly vars: ReadonlySet<string>;
  readonly f: (vars: ReadonlyMap<string, number>) => number;
}

const NONE: ReadonlySet<string> = new Set();

function union(a: Node, b: Node): ReadonlySet<string> {
  return a.vars.size === 0 ? b.vars : b.vars.size === 0 ? a.vars : new Set([...a.vars, ...b.vars]);
}

function combine(a: Node, b: Node, f: Node["f"], exact: boolean): Node {
  const kind: MathKind = a.kind === "float" || b.kind === "float"
    ? "float"
    : exact && isExact(a) && isExact(b)
    ? "rational"
    : "expression";
  return { kind, vars: union(a, b), f };
}

function isExact(n: Node): boolean {
  return n.kind === "integer" || n.kind === "rational";
}

class Parser {
  #pos = 0;
  constructor(readonly tokens: readonly Token[]) {}

  peek(): Token | undefined {
    return this.tokens[this.#pos];
  }

  next(): Token | undefined {
    return this.tokens[this.#pos++];
  }

  done(): boolean {
    return this.#pos >= this.tokens.length;
  }

  isOp(v: string): boolean {
    const t = this.peek();
    return t !== undefined && t.t === "op" && t.v === v;
  }

  isCmd(...names: string[]): boolean {
    const t = this.peek();
    return t !== undefined && t.t === "cmd" && names.includes(t.v);
  }

  expect(v: string): void {
    const t = this.next();
    if (t === undefined || t.t !== "op" || t.v !== v) throw new SyntaxError(`expected ${v}`);
  }

  sum(): Node {
    let left = this.product();
    for (;;) {
      if (this.isOp("+") || this.isOp("-")) {
        const op = this.next()!.v;
        const right = this.product();
        const [l, r] = [left.f, right.f];
        left = combine(left, right, op === "+" ? (v) => l(v) + r(v) : (v) => l(v) - r(v), true);
        if (left.kind === "rational" && isExact(left)) left = { ...left, kind: integerValued(left) };
      } else {
        return left;
      }
    }
  }

  product(): Node {
    let left = this.unary();
    for (;;) {
      let op: string | undefined;
      if (this.isOp("*") || this.isOp("/")) op = this.next()!.v;
      else if (this.isCmd("cdot", "times", "ast")) (this.next(), op = "*");
      else if (this.isCmd("div")) (this.next(), op = "/");
      else if (this.startsAtom()) op = "*";
      if (op === undefined) return left;
      const right = this.unary();
      const [l, r] = [left.f, right.f];
      left = combine(left, right, op === "*" ? (v) => l(v) * r(v) : (v) => l(v) / r(v), true);
      if (isExact(left)) {
        left = {
          ...left,
          kind: op === "/" ? integerValued(left) : left.kind === "rational" ? integerValued(left) : "integer",
        };
      }
    }
  }

  startsAtom(): boolean {
    const t = this.peek();
    if (t === undefined) return false;
    if (t.t === "num" || t.t === "id") return true;
    if (t.t === "op") return t.v === "(" || t.v === "{" || t.v === "[";
    return t.t === "cmd" && !["cdot", "times", "div", "ast", "%", "pm"].includes(t.v);
  }

  unary(): Node {
    if (this.isOp("-") || this.isOp("+")) {
      const neg = this.next()!.v === "-";
      const inner = this.unary();
      const f = inner.f;
      return neg ? { ...inner, f: (v) => -f(v) } : inner;
    }
    return this.power();
  }

  power(): Node {
    const base = this.postfix();
    if (this.isOp("^")) {
      this.next();
      const exp = this.unary();
      const [b, e] = [base.f, exp.f];
      const node = combine(base, exp, (v) => Math.pow(b(v), e(v)), false);
      // An integer to a non-negative integer power stays an integer; anything else is an expression.
      if (base.kind === "integer" && exp.kind === "integer" && exp.vars.size === 0 && e(new Map()) >= 0) {
        return { ...node, kind: "integer" };
      }
      return node;
    }
    return base;
  }

  postfix(): Node {
    let node = this.atom();
    for (;;) {
      if (this.isOp("!")) {
        this.next();
        const f = node.f;
        node = { ...node, f: (v) => factorial(f(v)) };
      } else if (this.isOp("%") || this.isCmd("%")) {
        this.next();
        const f = node.f;
        node = { ...node, kind: isExact(node) ? "rational" : node.kind, f: (v) => f(v) / 100 };
      } else {
        return node;
      }
    }
  }

  group(open: string, close: string): Node {
    this.expect(open);
    const inner = this.sum();
    this.expect(close);
    return inner;
  }

  /** `{…}`, or a single token (`\frac12`, `\sqrt2`). */
  braced(): Node {
    if (this.isOp("{")) return this.group("{", "}");
    const t = this.peek();
    if (t?.t === "num" && t.v.length > 1 && /^\d+$/.test(t.v)) {
      // `\frac12`: the first digit alone.
      this.next();
      const first = t.v[0];
      (this.tokens as Token[]).splice(this.#pos, 0, { t: "num", v: t.v.slice(1) });
      return numberNode(first);
    }
    return this.atom();
  }

  atom(): Node {
    const t = this.next();
    if (t === undefined) throw new SyntaxError("unexpected end");
    if (t.t === "num") return numberNode(t.v);
    if (t.t === "op") {
      if (t.v === "(") return this.rest("(", ")");
      if (t.v === "{") return this.rest("{", "}");
      if (t.v === "[") return this.rest("[", "]");
      if (t.v === "|") {
        const inner = this.sum();
        this.expect("|");
        const f = inner.f;
        return { ...inner, f: (v) => Math.abs(f(v)) };
      }
      throw new SyntaxError(`unexpected ${t.v}`);
    }
    if (t.t === "id") {
      if (t.v in CONSTANTS) return { kind: "expression", vars: NONE, f: () => CONSTANTS[t.v] };
      if (t.v in FUNCTIONS) return this.call(FUNCTIONS[t.v]);
      if (t.v === "e") return { kind: "expression", vars: NONE, f: () => Math.E };
      const name = t.v;
      return { kind: "expression", vars: new Set([name]), f: (v) => v.get(name) ?? NaN };
    }
    // LaTeX command
    switch (t.v) {
      case "frac":
      case "dfrac":
      case "tfrac": {
        const num = this.braced();
        const den = this.braced();
        const [n, d] = [num.f, den.f];
        const node = combine(num, den, (v) => n(v) / d(v), true);
        return isExact(node) ? { ...node, kind: integerValued(node) } : node;
      }
      case "sqrt": {
        let index: Node | undefined;
        if (this.isOp("[")) index = this.group("[", "]");
        const radicand = this.braced();
        const r = radicand.f;
        if (index === undefined) return { kind: "expression", vars: radicand.vars, f: (v) => Math.sqrt(r(v)) };
        const k = index.f;
        return { kind: "expression", vars: union(radicand, index), f: (v) => Math.pow(r(v), 1 / k(v)) };
      }
      case "pi":
        return { kind: "expression", vars: NONE, f: () => Math.PI };
      case "infty":
        return { kind: "expression", vars: NONE, f: () => Infinity };
      case "{":
        return this.rest("{", "\\}");
      case "text":
      case "mathrm":
      case "textbf":
      case "mathbf":
      case "boxed":
      case "operatorname":
        return this.group("{", "}");
      default:
        if (t.v in FUNCTIONS) return this.call(FUNCTIONS[t.v]);
        throw new SyntaxError(`unknown command \\${t.v}`);
    }
  }

  /** The rest of a bracketed group whose opening token was read. */
  rest(_open: string, close: string): Node {
    const inner = this.sum();
    const t = this.next();
    const closing = close === "\\}" ? t?.t === "cmd" && t.v === "}" : t?.t === "op" && t.v === close;
    if (!closing) throw new SyntaxError(`expected ${close}`);
    return inner;
  }

  call(fn: (x: number) => number): Node {
    let power: Node | undefined;
    if (this.isOp("^")) {
      this.next();
      power = this.braced();
    }
    const arg = this.isOp("(") ? this.group("(", ")") : this.isOp("{") ? this.group("{", "}") : this.power();
    const a = arg.f;
    const p = power?.f;
    return {
      kind: "expression",
      vars: power === undefined ? arg.vars : union(arg, power),
      f: p === undefined ? (v) => fn(a(v)) : (v) => Math.pow(fn(a(v)), p(v)),
    };
  }
}

function numberNode(text: string): Node {
  const value = Number(text);
  return { kind: text.includes(".") ? "float" : "integer", vars: NONE, f: () => value };
}

function integerValued(node: Node): MathKind {
  if (node.vars.size > 0) return "expression";
  const v = node.f(new Map());
  return Number.isInteger(v) ? "integer" : "rational";
}

function factorial(n: number): number {
  if (!Number.isInteger(n) || n < 0 || n > 170) return NaN;
  let out = 1;
  for (let i = 2; i <= n; i++) out *= i;
  return out;
}

/** `text` as an expression, or undefined when it is not one (a set, an interval, words, unbalanced brackets…). */
export function parseMath(text: string): MathExpr | undefined {
  const tokens = tokenize(text);
  if (tokens === undefined || tokens.length === 0) return undefined;
  try {
    const parser = new Parser(tokens);
    const node = parser.sum();
    if (!parser.done()) return undefined;
    return { kind: node.kind, variables: node.vars, evaluate: node.f };
  } catch {
    return undefined;
  }
}

/** Points at which expressions with variables are compared (fixed, so verdicts are reproducible). */
const PROBES = [0.5772156649, 1.4142135623, 2.7182818284, -0.6180339887, 3.1415926535];

export interface SameValueOptions {
  /** Decimal places compared when either side is a decimal literal (lighteval: 5). */
  readonly precision?: number;
  /** Absolute tolerance instead of the rules above (AIPerf's math grader: 1e-4). */
  readonly absTol?: number;
}

/** Whether `a` and `b` are the same value (see the module comment). */
export function sameValue(a: MathExpr, b: MathExpr, o: SameValueOptions = {}): boolean {
  if (a.variables.size > 0 || b.variables.size > 0) {
    if (a.variables.size !== b.variables.size || [...a.variables].some((x) => !b.variables.has(x))) return false;
    const names = [...a.variables].sort();
    return PROBES.every((_, k) => {
      const vars = new Map(names.map((n, i) => [n, PROBES[(k + i) % PROBES.length] * (1 + i)]));
      return close(a.evaluate(vars), b.evaluate(vars), 1e-9, 1e-12);
    });
  }
  const x = a.evaluate(new Map());
  const y = b.evaluate(new Map());
  if (Number.isNaN(x) || Number.isNaN(y)) return false;
  if (x === y) return true;
  if (o.absTol !== undefined) return Math.abs(x - y) <= o.absTol;
  if ((a.kind === "float" || b.kind === "float") && o.precision !== undefined) {
    return roundTo(x, o.precision) === roundTo(y, o.precision);
  }
  if (isExactKind(a.kind) && isExactKind(b.kind)) return close(x, y, 1e-15, 0);
  return close(x, y, 1e-12, 1e-15);
}

function isExactKind(kind: MathKind): boolean {
  return kind === "integer" || kind === "rational";
}

function roundTo(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

function close(x: number, y: number, rel: number, abs: number): boolean {
  if (!Number.isFinite(x) || !Number.isFinite(y)) return x === y;
  return Math.abs(x - y) <= Math.max(abs, rel * Math.max(Math.abs(x), Math.abs(y)));
}
