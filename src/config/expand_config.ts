/**
 * `infermeter config expand`: the configuration a `profile` run would use — defaults, YAML, environment and flags
 * layered and resolved — as flat YAML that `profile -f` reads back, each line noting where its value came from.
 * Secrets never appear: credential options, secret headers, URL user-info and secret-looking keys are redacted.
 */
import { helpGroups } from "./render_help.ts";
import type { ValueSource } from "../base/option_spec.ts";
import { PROFILE_COMMAND } from "./option_table.ts";
import { isSecretHeaderName, REDACTED, redactSecretKeys, redactUrl } from "../base/redact_secrets.ts";
import { fileOptions, yamlKeyOf, yamlValue } from "./config_template.ts";

/** Any value with secrets replaced by `<redacted>`, by the option's type. */
function redacted(
  spec: ReturnType<typeof fileOptions>[number],
  value: unknown,
  secretHeaders: readonly string[],
): unknown {
  if (spec.secret) return REDACTED;
  if (spec.type === "headers" && Array.isArray(value)) {
    return Object.fromEntries(
      (value as [string, string][]).map(([name, v]) => [name, isSecretHeaderName(name, secretHeaders) ? REDACTED : v]),
    );
  }
  if (spec.type === "list" && spec.items === "url" && Array.isArray(value)) {
    return value.map((u) => redactUrl(String(u)));
  }
  if (spec.type === "string" && typeof value === "string" && /^[a-z]+:\/\//i.test(value)) return redactUrl(value);
  return redactSecretKeys(value);
}

/** The resolved configuration as commented flat YAML. */
export function expandConfig(
  config: Readonly<Record<string, unknown>>,
  sources: Readonly<Record<string, ValueSource>>,
): string {
  const out = ["# The configuration infermeter profile would run with (secrets redacted)."];
  const options = fileOptions();
  const secretHeaders = Array.isArray(config.redactHeaders) ? config.redactHeaders.map(String) : [];
  for (const group of helpGroups(PROFILE_COMMAND)) {
    const inGroup = options.filter((spec) => spec.group === group);
    if (inGroup.length === 0) continue;
    out.push("", `# ── ${group}`);
    for (const spec of inGroup) {
      if (!("key" in spec)) continue;
      const value = config[spec.key];
      const source = sources[spec.key] ?? "default";
      if (value === undefined) {
        out.push(`# ${yamlKeyOf(spec)}: ~  # unset${spec.defaultDescription ? `: ${spec.defaultDescription}` : ""}`);
        continue;
      }
      const shown = redacted(spec, value, secretHeaders);
      // The goodput option's resolved form is a list of SLO objects; written back as `tag: value` pairs.
      const text = spec.type === "goodput" && Array.isArray(shown)
        ? yamlValue(Object.fromEntries((shown as { tag: string; value: number }[]).map((s) => [s.tag, s.value])))
        : yamlValue(shown);
      out.push(`${yamlKeyOf(spec)}: ${text}  # ${source}`);
    }
  }
  return `${out.join("\n")}\n`;
}
