/**
 * Turns one raw option value — a command-line or environment string, or a YAML scalar / list / mapping — into the
 * typed value of its configuration field, checking type and bounds. The same code validates flags, environment
 * variables and YAML of every command, so a value means the same wherever it is written.
 */
import type { GoodputSlo } from "../metrics/goodput.ts";
import { didYouMeanHint } from "../base/did_you_mean.ts";
import { normalizeUrl } from "./normalize_url.ts";
import {
  enumChoices,
  type EnumOptionSpec,
  enumUnsupportedChoices,
  enumUnsupportedReason,
  optionName,
  type ValueOptionSpec,
} from "../base/option_spec.ts";

/** Outcome of {@link coerceOptionValue}: a value, nothing to apply (`skip`), or one problem sentence. */
export type CoerceResult =
  | { readonly ok: true; readonly value: unknown; readonly skip?: false }
  | { readonly ok: true; readonly skip: true }
  | { readonly ok: false; readonly problem: string };

/** Options for {@link coerceOptionValue}. */
export interface CoerceOptions {
  /** Where the value came from, prefixed to problems: `--isl`, `env INFERMETER_URL`, `run.yaml: benchmark.x`. */
  readonly origin: string;
  /** `--no-x` form of a boolean flag. @default false */
  readonly negated?: boolean;
  /** Value accumulated so far (repeatable options append or merge into it). @default undefined */
  readonly previous?: unknown;
  /** Hide the value in problems (secret options). @default false */
  readonly secret?: boolean;
}

const TRUE_WORDS: ReadonlySet<string> = new Set(["true", "1", "yes", "y", "on"]);
const FALSE_WORDS: ReadonlySet<string> = new Set(["false", "0", "no", "n", "off"]);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Line breaks and NUL: in a value that ends up in a request line or header they would split or end it. */
const LINE_BREAK = /[\r\n\0]/;

function lineBreakProblem(spec: ValueOptionSpec): string {
  return `the value contains a line break or NUL character; remove it (${optionName(spec)} is sent on one line ` +
    "of each request or used as one name).";
}

/** Coerces `raw` for `spec`; never throws. `raw` is undefined for a boolean or switch flag given without value. */
export function coerceOptionValue(spec: ValueOptionSpec, raw: unknown, options: CoerceOptions): CoerceResult {
  const origin = options.origin;
  const shown = (value: unknown): string => options.secret || spec.secret ? "<redacted>" : describe(value);
  const fail = (problem: string): CoerceResult => ({ ok: false, problem: `${origin}: ${problem}` });

  switch (spec.type) {
    case "string":
    case "path": {
      if (typeof raw === "number" || typeof raw === "bigint") return { ok: true, value: String(raw) };
      if (typeof raw !== "string") {
        return fail(
          `expected text but got ${shown(raw)}; give a ${spec.type === "path" ? "file path" : "text value"}.`,
        );
      }
      const text = raw.trim();
      if (text === "") {
        return fail(
          `the value is empty; give a ${spec.type === "path" ? "file path" : "value"} or leave the option out.`,
        );
      }
      if (spec.multiline !== true && LINE_BREAK.test(text)) return fail(lineBreakProblem(spec));
      if (spec.pattern !== undefined && !spec.pattern.test(text)) {
        return fail(`${shown(text)} is not ${spec.patternHelp ?? `of the form ${spec.pattern.source}`}.`);
      }
      return { ok: true, value: text };
    }
    case "int":
    case "float":
      return coerceNumber(spec, raw, shown, fail);
    case "bool": {
      if (raw === undefined || raw === null) return { ok: true, value: !options.negated };
      const parsed = parseBool(raw);
      if (parsed === undefined) {
        return fail(
          `${shown(raw)} is not true or false; use true/false (or the flag alone, or --no-${spec.flags[0].slice(2)}).`,
        );
      }
      return { ok: true, value: options.negated ? !parsed : parsed };
    }
    case "switch": {
      if (raw === undefined || raw === null) return { ok: true, value: spec.value };
      const parsed = parseBool(raw);
      if (parsed === undefined) {
        return fail(`${shown(raw)} is not true or false; use true to turn ${optionName(spec)} on.`);
      }
      return parsed ? { ok: true, value: spec.value } : { ok: true, skip: true };
    }
    case "enum":
      return coerceEnum(spec, raw, shown, fail);
    case "list": {
      const previous = Array.isArray(options.previous) ? options.previous as string[] : [];
      if (raw === undefined && spec.optionalValue === true) return { ok: true, value: previous };
      const items: string[] = [];
      for (const item of Array.isArray(raw) ? raw : [raw]) {
        if (typeof item === "number") {
          items.push(String(item));
          continue;
        }
        if (typeof item !== "string") return fail(`expected text but got ${shown(item)}; give a comma-separated list.`);
        if (spec.items === "whole") {
          if (item.trim() !== "") items.push(item.trim());
        } else items.push(...item.split(",").map((part) => part.trim()).filter((part) => part !== ""));
      }
      if (items.some((item) => LINE_BREAK.test(item))) return fail(lineBreakProblem(spec));
      if (items.length === 0) {
        return fail(
          `the list is empty; give at least one value, e.g. ${optionName(spec)} ${
            spec.items === "url" ? "localhost:8000" : "my-model"
          }.`,
        );
      }
      if (spec.items === "url") {
        const urls: string[] = [];
        for (const item of items) {
          try {
            urls.push(normalizeUrl(item));
          } catch (error) {
            return fail((error as Error).message);
          }
        }
        return { ok: true, value: [...previous, ...urls] };
      }
      return { ok: true, value: [...previous, ...items] };
    }
    case "keyValue":
      return coerceKeyValue(spec, raw, options, shown, fail);
    case "headers":
      return coerceHeaders(raw, options, shown, fail);
    case "goodput":
      return coerceGoodput(raw, shown, fail);
  }
}

/** A short, quoted rendering of a raw value for problem messages. */
function describe(value: unknown): string {
  if (typeof value === "string") return `'${value}'`;
  if (value === null || value === undefined) return "nothing";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  return `'${String(value)}'`;
}

/** `true/false/yes/no/on/off/1/0` (any case) or a boolean; undefined when it is neither. */
function parseBool(raw: unknown): boolean | undefined {
  if (typeof raw === "boolean") return raw;
  if (typeof raw === "number") return raw === 1 ? true : raw === 0 ? false : undefined;
  if (typeof raw !== "string") return undefined;
  const word = raw.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return undefined;
}

function coerceNumber(
  spec: Extract<ValueOptionSpec, { type: "int" | "float" }>,
  raw: unknown,
  shown: (value: unknown) => string,
  fail: (problem: string) => CoerceResult,
): CoerceResult {
  const isInt = spec.type === "int";
  const kind = isInt ? "a whole number" : "a number";
  let value: number;
  if (typeof raw === "number") {
    value = raw;
  } else if (typeof raw === "string") {
    const text = raw.trim();
    if (text.includes(",")) {
      return fail(`'${text}' is a list, but sweeps over several values are not supported yet; give one value.`);
    }
    if (spec.type === "int" && spec.allowAuto && text.toLowerCase() === "auto") {
      return { ok: true, value: undefined };
    }
    if (spec.type === "float" && spec.allowInfinity && /^\+?(inf|infinity)$/i.test(text)) {
      value = Infinity;
    } else if (text === "" || !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) {
      return fail(`${shown(raw)} is not ${kind}; give ${kind}${boundsText(spec)}.`);
    } else {
      value = Number(text);
    }
  } else {
    return fail(`${shown(raw)} is not ${kind}; give ${kind}${boundsText(spec)}.`);
  }
  if (Number.isNaN(value) || (!Number.isFinite(value) && !(spec.type === "float" && spec.allowInfinity && value > 0))) {
    return fail(`${shown(raw)} is not ${kind}; give ${kind}${boundsText(spec)}.`);
  }
  if (isInt && !Number.isSafeInteger(value)) {
    return fail(`${shown(raw)} is not ${kind}; give ${kind}${boundsText(spec)}.`);
  }
  const exclusive = spec.type === "float" && spec.exclusiveMin === true;
  const tooSmall = spec.min !== undefined && (exclusive ? value <= spec.min : value < spec.min);
  // `inf` (where allowed) means "no limit", beyond any finite bound.
  const tooLarge = spec.max !== undefined && value > spec.max && Number.isFinite(value);
  if (tooSmall || tooLarge) return fail(`${shown(raw)} is out of range; give ${kind}${boundsText(spec)}.`);
  return { ok: true, value };
}

/** ` ≥ 1`, ` > 0`, ` between 0 and 1` — or empty when unbounded. */
function boundsText(spec: Extract<ValueOptionSpec, { type: "int" | "float" }>): string {
  const exclusive = spec.type === "float" && spec.exclusiveMin === true;
  const inf = spec.type === "float" && spec.allowInfinity === true ? " (or inf)" : "";
  if (spec.min !== undefined && spec.max !== undefined) {
    return exclusive
      ? ` greater than ${spec.min} and at most ${shownBound(spec.max)}${inf}`
      : ` between ${spec.min} and ${shownBound(spec.max)}${inf}`;
  }
  if (spec.min !== undefined) return exclusive ? ` greater than ${spec.min}` : ` of at least ${spec.min}`;
  if (spec.max !== undefined) return ` of at most ${shownBound(spec.max)}${inf}`;
  return "";
}

/** A bound as written: whole numbers with thousands separators, fractions whole (`toLocaleString` shows 0.999999 as 1). */
function shownBound(n: number): string {
  return Number.isInteger(n) ? n.toLocaleString("en-US") : String(n);
}

/** Case-insensitive, `-`/`_`-insensitive key for choice matching. */
function choiceKey(value: string): string {
  return value.trim().toLowerCase().replaceAll("-", "_");
}

function coerceEnum(
  spec: EnumOptionSpec,
  raw: unknown,
  shown: (value: unknown) => string,
  fail: (problem: string) => CoerceResult,
): CoerceResult {
  const values = enumChoices(spec);
  const choices = values.join(", ");
  if (typeof raw !== "string") return fail(`${shown(raw)} is not one of the choices; use one of: ${choices}.`);
  const wanted = choiceKey(raw);
  const match = values.find((choice) => choiceKey(choice) === wanted);
  if (match !== undefined) return { ok: true, value: match };
  const unsupported = enumUnsupportedChoices(spec).find((choice) => choiceKey(choice) === wanted);
  if (unsupported !== undefined) {
    // Registries say why (and what to use instead) where the reason is more than "planned".
    const reason = enumUnsupportedReason(spec, unsupported);
    const why = reason !== undefined && !reason.startsWith("this ") ? ` (${reason})` : "";
    return fail(`${shown(raw)} is not supported yet by infermeter${why}; use one of: ${choices}.`);
  }
  const hint = didYouMeanHint(raw, values);
  return fail(`${shown(raw)} is not a valid choice;${hint === "" ? " use" : `${hint} Use`} one of: ${choices}.`);
}

/** Parses `text` as JSON when it is valid JSON, else returns it unchanged (AIPerf's extra-inputs rule). */
function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function coerceKeyValue(
  spec: ValueOptionSpec,
  raw: unknown,
  options: CoerceOptions,
  shown: (value: unknown) => string,
  fail: (problem: string) => CoerceResult,
): CoerceResult {
  const merged: Record<string, unknown> = isPlainObject(options.previous) ? { ...options.previous } : {};
  const example = `${optionName(spec)} max_tokens:128 or ${optionName(spec)} '{"temperature":0.7}'`;
  for (const item of Array.isArray(raw) ? raw : [raw]) {
    if (isPlainObject(item)) {
      Object.assign(merged, item);
      continue;
    }
    if (typeof item !== "string") {
      return fail(`expected key:value or a JSON object but got ${shown(item)}; e.g. ${example}.`);
    }
    const text = item.trim();
    if (text.startsWith("{")) {
      const parsed = jsonOrText(text);
      if (!isPlainObject(parsed)) {
        return fail(`${shown(text)} is not a valid JSON object; fix the JSON, e.g. ${example}.`);
      }
      Object.assign(merged, parsed);
      continue;
    }
    const colon = text.indexOf(":");
    if (colon <= 0) return fail(`${shown(text)} is not key:value or a JSON object; write it like ${example}.`);
    merged[text.slice(0, colon).trim()] = jsonOrText(text.slice(colon + 1).trim());
  }
  return { ok: true, value: merged };
}

function coerceHeaders(
  raw: unknown,
  options: CoerceOptions,
  shown: (value: unknown) => string,
  fail: (problem: string) => CoerceResult,
): CoerceResult {
  const headers: Array<[string, string]> = Array.isArray(options.previous)
    ? (options.previous as Array<[string, string]>).map(([name, value]) => [name, value])
    : [];
  const add = (name: string, value: unknown): string | undefined => {
    const cleanName = name.trim();
    if (!HEADER_NAME.test(cleanName)) {
      return `'${cleanName}' is not a valid header name; use letters, digits and dashes, e.g. -H 'X-Trace: 1'.`;
    }
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
      return `the value of header '${cleanName}' must be text; write it as -H '${cleanName}: value'.`;
    }
    const cleanValue = String(value).trim();
    if (/[\r\n\0]/.test(cleanValue)) return `the value of header '${cleanName}' contains a line break; remove it.`;
    const index = headers.findIndex(([existing]) => existing.toLowerCase() === cleanName.toLowerCase());
    if (index >= 0) headers[index] = [headers[index][0], cleanValue];
    else headers.push([cleanName, cleanValue]);
    return undefined;
  };
  for (const item of Array.isArray(raw) ? raw : [raw]) {
    if (isPlainObject(item)) {
      for (const [name, value] of Object.entries(item)) {
        const problem = add(name, value);
        if (problem !== undefined) return fail(problem);
      }
      continue;
    }
    if (typeof item !== "string") {
      return fail(`expected Name:Value or a JSON object but got ${shown(item)}; e.g. -H 'X-Trace: 1'.`);
    }
    const text = item.trim();
    if (text.startsWith("{")) {
      const parsed = jsonOrText(text);
      if (!isPlainObject(parsed)) {
        return fail('the header JSON is not a valid JSON object; fix it, e.g. -H \'{"X-Trace": "1"}\'.');
      }
      for (const [name, value] of Object.entries(parsed)) {
        const problem = add(name, value);
        if (problem !== undefined) return fail(problem);
      }
      continue;
    }
    const colon = text.indexOf(":");
    if (colon <= 0) return fail(`'${text.slice(0, 40)}' is not Name:Value; write a header like -H 'X-Trace: 1'.`);
    const problem = add(text.slice(0, colon), text.slice(colon + 1));
    if (problem !== undefined) return fail(problem);
  }
  return { ok: true, value: headers };
}

function coerceGoodput(
  raw: unknown,
  shown: (value: unknown) => string,
  fail: (problem: string) => CoerceResult,
): CoerceResult {
  const slos: GoodputSlo[] = [];
  const example = "--goodput 'request_latency:250 inter_token_latency:10'";
  const add = (tag: string, value: unknown): string | undefined => {
    const cleanTag = tag.trim();
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(cleanTag)) {
      return `'${cleanTag}' is not a metric tag; use tags like ${example}.`;
    }
    const number = typeof value === "number"
      ? value
      : typeof value === "string" && value.trim() !== ""
      ? Number(value)
      : NaN;
    if (!Number.isFinite(number) || number < 0) {
      return `the goodput value for '${cleanTag}' (${
        shown(value)
      }) is not a non-negative number; write it like ${example}.`;
    }
    const index = slos.findIndex((slo) => slo.tag === cleanTag);
    if (index >= 0) slos[index] = { tag: cleanTag, value: number };
    else slos.push({ tag: cleanTag, value: number });
    return undefined;
  };
  for (const item of Array.isArray(raw) ? raw : [raw]) {
    if (isPlainObject(item)) {
      for (const [tag, value] of Object.entries(item)) {
        const problem = add(tag, value);
        if (problem !== undefined) return fail(problem);
      }
      continue;
    }
    if (typeof item !== "string") {
      return fail(`expected metric_tag:value pairs but got ${shown(item)}; e.g. ${example}.`);
    }
    for (const pair of item.trim().split(/\s+/).filter((part) => part !== "")) {
      const colon = pair.lastIndexOf(":");
      if (colon <= 0) return fail(`'${pair}' is not metric_tag:value; write it like ${example}.`);
      const problem = add(pair.slice(0, colon), pair.slice(colon + 1));
      if (problem !== undefined) return fail(problem);
    }
  }
  if (slos.length === 0) return fail(`no objectives given; write them like ${example}.`);
  return { ok: true, value: slos };
}
