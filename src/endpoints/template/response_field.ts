/**
 * `--extra-inputs response_field:<path>` of the template endpoint: where the answer's text is. AIPerf takes a JMESPath
 * expression; this reads the subset that names one value — dotted keys with `[n]` indexes (`output.text`,
 * `choices[0].message.content`, `results[-1]`) — and rejects anything else when the run starts, naming the path.
 */

export type FieldPath = readonly (string | number)[];

const SEGMENT = /^([A-Za-z_][A-Za-z0-9_-]*)?((?:\[-?\d+\])*)$/;

/** @throws {RangeError} for an expression outside the supported subset. */
export function parseResponseField(expr: string): FieldPath {
  const path: (string | number)[] = [];
  for (const segment of expr.split(".")) {
    const m = SEGMENT.exec(segment);
    if (segment.length === 0 || m === null || (m[1] === undefined && m[2] === "")) {
      throw new RangeError(
        `--extra-inputs response_field '${expr}': only dotted keys with [n] indexes are supported ` +
          "(e.g. 'output.text' or 'choices[0].message.content').",
      );
    }
    if (m[1] !== undefined) path.push(m[1]);
    for (const index of m[2].matchAll(/\[(-?\d+)\]/g)) path.push(Number(index[1]));
  }
  return path;
}

/** The value at `path`, undefined where any step is missing. */
export function readField(json: unknown, path: FieldPath): unknown {
  let value = json;
  for (const step of path) {
    if (typeof step === "number") {
      if (!Array.isArray(value)) return undefined;
      value = value[step < 0 ? value.length + step : step];
    } else {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
      value = (value as Record<string, unknown>)[step];
    }
  }
  return value;
}
