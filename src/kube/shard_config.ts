/**
 * The profile configuration every shard pod runs, as the flat YAML `profile -f` (and `shard -f`) reads back:
 * `config expand`'s resolved form with credential options left out. A credential never goes into a manifest:
 * the API key reaches the pods from a Secret the user names (`--api-key-secret`), as an environment variable.
 */
import type { ParsedProfile } from "../config/parse_profile_args.ts";
import { expandConfig } from "../config/expand_config.ts";
import { REDACTED } from "../base/redact_secrets.ts";
import { InputError } from "../base/input_error.ts";

/** Options a shard must not take from the coordinator's command line (they name the coordinator's own files). */
const COORDINATOR_ONLY = ["artifact_dir", "profile_export_prefix"];

export function shardConfigYaml(parsed: ParsedProfile): string {
  const expanded = expandConfig(parsed.config as unknown as Record<string, unknown>, parsed.sources);
  const kept: string[] = [];
  for (const line of expanded.split("\n")) {
    // Unset options and defaults stay out (every shard has the same defaults, and some only read back given).
    if (line.startsWith("#") || line.trim() === "" || line.endsWith("# default")) continue;
    if (!line.includes(REDACTED)) {
      if (!COORDINATOR_ONLY.some((key) => line.startsWith(`${key}:`))) kept.push(line);
      continue;
    }
    const key = line.slice(0, line.indexOf(":"));
    // The API key option itself: left out; the pods read it from the named Secret.
    if (/(^|\.)api_key$/.test(key)) continue;
    throw new InputError(
      `${key} holds a credential, which kube never writes into a manifest; give the API key with ` +
        "--api-key-secret <secret>[:<key>] (a Secret in the namespace) and leave other credentials out.",
    );
  }
  return ["# The profile configuration of every shard (resolved: flags, environment, file).", ...kept, ""].join("\n");
}
