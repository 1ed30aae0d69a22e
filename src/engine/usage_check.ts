/**
 * Server-reported usage is checked before it is recorded: a token count is a whole number from 0 to
 * {@linkcode MAX_USAGE_TOKENS}. A server that reports `-5`, `1e308`, a 309-digit number (which JSON reads as
 * Infinity) or a string gets an `InvalidUsageError` record naming the field, and the value is never recorded as a
 * number, so it cannot reach a sum, a percentile or the console table.
 */
import { type Usage, USAGE_FIELDS } from "../endpoints/endpoint_adapter.ts";
import type { RecordError } from "../records/request_record.ts";

/** Far above any answer's token count (the longest contexts are a few million tokens), far below 2^53. */
export const MAX_USAGE_TOKENS = 1_000_000_000;

/** Every token count a usage report can carry, with the name a message gives it (seconds are no count). */
const FIELDS: readonly (readonly [keyof Usage, string])[] = USAGE_FIELDS
  .filter((key) => key !== "promptAudioSeconds")
  .map((key) =>
    [
      key,
      key === "reasoningTokens"
        ? "completion_tokens_details.reasoning_tokens"
        : key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
    ] as const
  );

export interface UsageCheck {
  /** The valid counts (undefined when none is). */
  readonly usage: Usage | undefined;
  /** Why the report is invalid, when a field is. */
  readonly error?: RecordError;
}

/** `usage` with its invalid counts removed, and the error that says which were invalid. */
export function checkUsage(usage: Usage | undefined): UsageCheck {
  if (usage === undefined) return { usage };
  let bad: string[] | undefined;
  for (const [key, name] of FIELDS) {
    const v = usage[key];
    if (v === undefined || (Number.isInteger(v) && v >= 0 && v <= MAX_USAGE_TOKENS)) continue;
    (bad ??= []).push(`usage.${name} = ${describe(v)}`);
  }
  if (bad === undefined) return { usage };
  const kept: { -readonly [K in keyof Usage]: Usage[K] } = {};
  for (const [key] of FIELDS) {
    const v = usage[key];
    if (v !== undefined && Number.isInteger(v) && v >= 0 && v <= MAX_USAGE_TOKENS) kept[key] = v;
  }
  const rule = `a token count is a whole number from 0 to ${MAX_USAGE_TOKENS}`;
  return {
    usage: Object.keys(kept).length === 0 ? undefined : kept,
    error: {
      type: "InvalidUsageError",
      message: `The server's usage report is invalid: ${bad.join(", ")} (${rule}).`,
      group: `The server's usage report is invalid (${rule}).`,
    },
  };
}

function describe(v: number): string {
  if (Number.isNaN(v)) return "not a number";
  if (!Number.isFinite(v)) return "a number too large for a double";
  return String(v);
}
