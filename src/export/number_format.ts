/**
 * Number formatting that reproduces Python's, so exported text matches AIPerf's byte for byte:
 * `f"{x:.2f}"` (CSV), `f"{x:,.2f}"` (console), `f"{n:,}"` (counts) and `str(float)` (artifact names).
 *
 * JavaScript's `toFixed` rounds exact ties away from zero while Python rounds them to even (`0.125` →
 * `0.12`); `toFixed` also switches to exponent notation at 1e21. Both are handled here.
 */

/** Python `f"{x:.{digits}f}"`. Non-finite values print as Python does: `nan`, `inf`, `-inf`. */
export function formatFixed(x: number, digits = 2): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  const negative = x < 0 || Object.is(x, -0);
  const a = Math.abs(x);
  let body: string;
  if (a >= 1e21) {
    // Integral at this magnitude: print every digit like Python does.
    body = BigInt(a).toString() + (digits > 0 ? "." + "0".repeat(digits) : "");
  } else {
    body = a.toFixed(digits);
    // An exact binary tie at `digits` decimals is a = j / 2^(digits+1) with j odd (multiplying by powers of
    // two is exact). toFixed then rounded up; Python keeps the even neighbour.
    const scaled = a * 2 ** (digits + 1);
    if (Number.isInteger(scaled) && scaled % 2 === 1 && Number(body.at(-1)) % 2 === 1) {
      body = (a - 0.5 * 10 ** -digits).toFixed(digits);
    }
  }
  return negative ? `-${body}` : body;
}

/** Inserts `,` between thousands of the integer part of a plain decimal string. */
function groupThousands(text: string): string {
  const sign = text.startsWith("-") ? "-" : "";
  const body = sign ? text.slice(1) : text;
  const dot = body.indexOf(".");
  const int = dot < 0 ? body : body.slice(0, dot);
  const frac = dot < 0 ? "" : body.slice(dot);
  return sign + int.replace(/\B(?=(\d{3})+(?!\d))/g, ",") + frac;
}

/** Python `f"{x:,.{digits}f}"` (thousands separators), as Rich tables in AIPerf print metric values. */
export function formatGrouped(x: number, digits = 2): string {
  const fixed = formatFixed(x, digits);
  return Number.isFinite(x) ? groupThousands(fixed) : fixed;
}

/** Python `f"{n:,}"` for an integer count. */
export function formatCount(n: number): string {
  return groupThousands(Number.isInteger(n) ? BigInt(n).toString() : String(n));
}

/**
 * Python `repr(float)` / `str(float)`: the shortest round-trip digits, always with a decimal point or an
 * exponent (`5.0`, `0.5`, `1e-05`, `1e+16`, `inf`, `nan`).
 */
export function formatPyFloat(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  // Shortest round-trip digits and decimal exponent from JS, then Python's layout rules.
  const [mantissa, expText] = Math.abs(x).toExponential().split("e");
  const digits = mantissa.replace(".", "");
  const exp = Number(expText); // x = d.ddd × 10^exp
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp) < 10 ? `0${Math.abs(exp)}` : String(Math.abs(exp));
    return `${sign}${m}e${exp < 0 ? "-" : "+"}${e}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  const int = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
  const frac = digits.slice(exp + 1);
  return `${sign}${int}.${frac === "" ? "0" : frac}`;
}
