/**
 * The redacted command line recorded as `run_info.cli_command` and in logs, shaped like AIPerf's:
 * `infermeter profile --model 'my-model' --url 'http://localhost:8000' --api-key '<redacted>' --request-count 10`.
 * Flags stay bare, numbers stay bare, every other value is single-quoted. Secrets are replaced by `<redacted>`:
 * secret options (`--api-key`), credential-bearing `-H/--header` values and those `--redact-header` names (the
 * header name is kept), secret-looking
 * `--extra-inputs` keys, URL userinfo and secret query parameters, and the values of unknown flags whose name looks
 * secret (`--hf-token`). Both `--flag value` and `--flag=value` forms are handled.
 */
import { optionArity, type OptionSpec } from "../base/option_spec.ts";
import { findOptionByFlag } from "./option_table.ts";
import { isSecretHeaderName, isSecretKeyName, REDACTED, redactSecretKeys, redactUrl } from "../base/redact_secrets.ts";

/** Options for {@link redactCommand}. */
export interface RedactCommandOptions {
  /** Words before the arguments. @default "infermeter profile" */
  readonly prefix?: string;
  /** Header names redacted besides the credential-looking ones (`--redact-header`). @default [] */
  readonly secretHeaders?: readonly string[];
}

/** Shell-quotes and redacts `argv` (the arguments after `profile`). Never throws. */
export function redactCommand(argv: readonly string[], options: RedactCommandOptions = {}): string {
  const words: string[] = [options.prefix ?? "infermeter profile"];
  const secretHeaders = options.secretHeaders ?? [];
  const redactValue = (spec: OptionSpec | undefined, name: string, value: string) =>
    redactOptionValue(spec, name, value, secretHeaders);
  let pending:
    | { readonly spec: OptionSpec | undefined; readonly name: string; readonly optional?: boolean }
    | undefined;
  let afterTerminator = false;
  for (const arg of argv) {
    // An optional value (`--server-metrics [<urls>]`) is the next word unless that is a flag.
    if (pending?.optional && isFlagLike(arg)) pending = undefined;
    if (pending !== undefined) {
      words.push(quoteValue(redactValue(pending.spec, pending.name, arg)));
      pending = undefined;
      continue;
    }
    if (afterTerminator || !isFlagLike(arg)) {
      words.push(quoteValue(arg));
      continue;
    }
    if (arg === "--") {
      afterTerminator = true;
      words.push(arg);
      continue;
    }
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    if (eq > 0) {
      const name = arg.slice(0, eq);
      words.push(`${name}=${quoteValue(redactValue(findOptionByFlag(name), name, arg.slice(eq + 1)))}`);
      continue;
    }
    const spec = findOptionByFlag(arg);
    if (spec !== undefined) {
      words.push(arg);
      const arity = optionArity(spec);
      if (arity !== "none") pending = { spec, name: arg, optional: arity === "optional" };
      continue;
    }
    // Combined short form `-Hvalue` / `-mname`.
    const short = !arg.startsWith("--") && arg.length > 2 ? findOptionByFlag(arg.slice(0, 2)) : undefined;
    if (short !== undefined && optionArity(short) === "required") {
      words.push(`${arg.slice(0, 2)}${quoteValue(redactValue(short, arg.slice(0, 2), arg.slice(2)))}`);
      continue;
    }
    words.push(arg);
    // Unknown flag: if its name looks secret, hide the next word unless it is itself a flag.
    if (isSecretKeyName(arg.replace(/^-+/, ""))) pending = { spec: undefined, name: arg };
  }
  return words.join(" ");
}

/** True for `-x`, `--xyz`, `--xyz=v` (but not negative numbers). */
function isFlagLike(arg: string): boolean {
  return arg.startsWith("-") && arg.length > 1 && !/^-\d/.test(arg);
}

/** The value with secrets replaced, according to the option it belongs to. */
function redactOptionValue(
  spec: OptionSpec | undefined,
  name: string,
  value: string,
  secretHeaders: readonly string[],
): string {
  if (spec === undefined) return isSecretKeyName(name.replace(/^-+/, "")) ? REDACTED : value;
  if (spec.secret) return REDACTED;
  switch (spec.type) {
    case "headers":
      return redactHeaderArgument(value, secretHeaders);
    case "keyValue":
      return redactKeyValueArgument(value);
    case "list":
      return spec.items === "url" ? value.split(",").map((url) => redactUrl(url)).join(",") : value;
    case "string":
      // A service address (--otel-url, --mlflow-tracking-uri) may carry user:password@.
      return /^[a-z][a-z0-9+.-]*:\/\//i.test(value.trim()) ? redactUrl(value) : value;
    default:
      return value;
  }
}

/** `Authorization: Bearer x` → `Authorization: <redacted>`; JSON objects are redacted value by value. */
function redactHeaderArgument(value: string, secretHeaders: readonly string[]): string {
  const trimmed = value.trim();
  if (trimmed.startsWith("{")) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) {
        const out: Record<string, unknown> = {};
        for (const [header, inner] of Object.entries(parsed)) {
          out[header] = isSecretHeaderName(header, secretHeaders) ? REDACTED : inner;
        }
        return JSON.stringify(out);
      }
    } catch {
      return REDACTED;
    }
    return REDACTED;
  }
  const colon = value.indexOf(":");
  if (colon <= 0) return value;
  const header = value.slice(0, colon);
  if (!isSecretHeaderName(header, secretHeaders)) return value;
  const spacing = /^\s*/.exec(value.slice(colon + 1))?.[0] ?? "";
  return `${header}:${spacing}${REDACTED}`;
}

/** `api_key:sk-1` → `api_key:<redacted>`; JSON objects are redacted key by key, at any depth. */
function redactKeyValueArgument(value: string): string {
  const trimmed = value.trim();
  if (trimmed.startsWith("{")) {
    try {
      return JSON.stringify(redactSecretKeys(JSON.parse(trimmed)));
    } catch {
      return REDACTED;
    }
  }
  const colon = value.indexOf(":");
  if (colon <= 0) return value;
  const key = value.slice(0, colon).trim();
  if (isSecretKeyName(key)) return `${value.slice(0, colon)}:${REDACTED}`;
  const inner = value.slice(colon + 1).trim();
  if (inner.startsWith("{")) {
    try {
      return `${value.slice(0, colon)}:${JSON.stringify(redactSecretKeys(JSON.parse(inner)))}`;
    } catch {
      return value;
    }
  }
  return value;
}

/** Bare for plain numbers, single-quoted (with `'\''` escapes) for everything else, like AIPerf's command line. */
function quoteValue(value: string): string {
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(value)) return value;
  return `'${value.replaceAll("'", "'\\''")}'`;
}
