/**
 * Wall-clock epoch nanoseconds as exact integer digits. Epoch ns (~1.7e18) exceed 2^53, so a float cannot
 * hold them: the integer ms of the time origin and the sub-ms remainders are combined in BigInt.
 */

/**
 * `timeOriginMs + t` (both ms, fractional allowed) as epoch nanoseconds, rounded to the nearest ns.
 * @param timeOriginMs epoch ms at run-clock 0 (`performance.timeOrigin`).
 * @param t run-clock ms.
 */
export function epochNs(timeOriginMs: number, t: number): bigint {
  const originMs = Math.floor(timeOriginMs);
  // Sub-ms parts are small, so their ns values are exact integers in a double.
  const restNs = Math.round((timeOriginMs - originMs) * 1e6 + t * 1e6);
  return BigInt(originMs) * 1_000_000n + BigInt(restNs);
}

/**
 * `epochNs(timeOriginMs, t).toString()` without BigInt: the same digits at a fraction of the cost (five per
 * record line, on the thread that stamps socket reads). Whole ms and the ns within them are each exact in a
 * double; the ns are written as six digits.
 */
export function epochNsDigits(timeOriginMs: number, t: number): string {
  const originMs = Math.floor(timeOriginMs);
  const restNs = Math.round((timeOriginMs - originMs) * 1e6 + t * 1e6);
  const wholeMs = Math.floor(restNs / 1e6);
  const ms = originMs + wholeMs;
  const ns = restNs - wholeMs * 1e6;
  if (ms <= 0) return epochNs(timeOriginMs, t).toString(); // before 1970: no such clock here, but stay exact
  return `${ms}${NS_PAD[String(ns).length]}${ns}`;
}

/**
 * Writes `epochNsDigits(timeOriginMs, t)` as ASCII bytes into `buf` at `at` (room for 26 bytes) and returns where
 * they end, or -1 (nothing written) before 1970. Why: a record line has four or five timestamps, and
 * `epochNsDigits` builds three strings for each, one of them the ms count, a number too large for the engine's
 * small-integer fast path; here the ms digits come from `cache` (the last ms count written, which requests finishing
 * within the same millisecond share) and the six ns digits are written by arithmetic.
 */
export function writeEpochNs(
  timeOriginMs: number,
  t: number,
  buf: Uint8Array,
  at: number,
  cache: EpochMsCache,
): number {
  const originMs = Math.floor(timeOriginMs);
  const restNs = Math.round((timeOriginMs - originMs) * 1e6 + t * 1e6);
  const wholeMs = Math.floor(restNs / 1e6);
  const ms = originMs + wholeMs;
  let ns = restNs - wholeMs * 1e6;
  if (ms <= 0) return -1;
  if (ms !== cache.ms) {
    cache.ms = ms;
    cache.digits = String(ms);
  }
  const digits = cache.digits;
  for (let i = 0; i < digits.length; i++) buf[at++] = digits.charCodeAt(i);
  for (let i = at + 5; i >= at; i--) {
    const q = Math.floor(ns / 10);
    buf[i] = 0x30 + ns - q * 10;
    ns = q;
  }
  return at + 6;
}

/** The last whole-ms count {@linkcode writeEpochNs} wrote and its digits (`NaN`: none yet). */
export interface EpochMsCache {
  ms: number;
  digits: string;
}

/** Zeros that pad an ns count of n digits to six. */
const NS_PAD = ["", "00000", "0000", "000", "00", "0", ""];

/** Python `datetime.isoformat()` of a naive UTC datetime: `2025-10-17T20:22:08.939332` (fraction omitted
 * when it is zero, as Python does). */
export function isoUtcMicros(epochMs: number): string {
  const wholeMs = Math.floor(epochMs);
  const micros = Math.round((epochMs - wholeMs) * 1000);
  const carry = micros === 1000 ? 1 : 0;
  const date = new Date(wholeMs + carry);
  const base = date.toISOString().slice(0, 19);
  const fraction = date.getUTCMilliseconds() * 1000 + (carry ? 0 : micros);
  return fraction === 0 ? base : `${base}.${String(fraction).padStart(6, "0")}`;
}
