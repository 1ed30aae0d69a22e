/**
 * `--random-range-ratio` (AIPerf's vLLM style, the default `--random-corpus-style`): ISL and OSL drawn uniformly as
 * integers from `[floor(mean·(1 − r)), ceil(mean·(1 + r))]`, OSL bounds at least 1, `r ∈ [0, 1)`. One float applies to
 * both; `{"input": r1, "output": r2}` sets them apart. The ISL's lower bound is raised to 1 here, since a prompt has at
 * least one token (AIPerf allows an empty prompt); no special tokens are subtracted (infermeter counts none).
 */
export interface RangeRatio {
  readonly input: number;
  readonly output: number;
}

/** @throws {RangeError} for a value that is neither a float nor the JSON object, or a ratio outside [0, 1). */
export function parseRangeRatio(value: string): RangeRatio {
  const text = value.trim();
  let ratio: RangeRatio;
  const n = Number(text);
  if (text !== "" && Number.isFinite(n)) ratio = { input: n, output: n };
  else {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      data = undefined;
    }
    const o = data as Record<string, unknown> | undefined;
    if (o === undefined || typeof o !== "object" || o === null || !("input" in o) || !("output" in o)) {
      throw new RangeError(
        `--random-range-ratio '${value}': expected a float (e.g. 0.3) or {"input": 0.3, "output": 0.5}.`,
      );
    }
    ratio = { input: Number(o.input), output: Number(o.output) };
  }
  for (const [name, r] of [["ISL", ratio.input], ["OSL", ratio.output]] as const) {
    if (!(r >= 0 && r < 1)) {
      throw new RangeError(`--random-range-ratio: the ${name} ratio must be in [0, 1), got ${r}.`);
    }
  }
  return ratio;
}

/** Inclusive integer bounds of the ISL window. */
export function inputBounds(mean: number, r: number): [number, number] {
  return [Math.max(1, Math.floor(mean * (1 - r))), Math.max(1, Math.ceil(mean * (1 + r)))];
}

/** Inclusive integer bounds of the OSL window. */
export function outputBounds(mean: number, r: number): [number, number] {
  return [Math.max(1, Math.floor(mean * (1 - r))), Math.max(1, Math.ceil(mean * (1 + r)))];
}
