/** Python's `float(text)`: the number, or undefined where Python raises `ValueError`. */
const FLOAT =
  /^[+-]?(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*(?:[eE][+-]?\d(?:_?\d)*)?|\d(?:_?\d)*\.?(?:[eE][+-]?\d(?:_?\d)*)?|inf(?:inity)?|nan)$/i;

export function pyFloat(text: string): number | undefined {
  const t = text.trim();
  if (!FLOAT.test(t)) return undefined;
  const body = t.replaceAll("_", "").toLowerCase().replace(/^([+-]?)inf(inity)?$/, "$1Infinity");
  return body.endsWith("nan") ? NaN : Number(body);
}

/** Python's `math.isclose(a, b, rel_tol=rel, abs_tol=abs)`. */
export function isClose(a: number, b: number, relTol: number, absTol: number): boolean {
  if (a === b) return true;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  const diff = Math.abs(a - b);
  return diff <= Math.abs(relTol * b) || diff <= Math.abs(relTol * a) || diff <= absTol;
}
