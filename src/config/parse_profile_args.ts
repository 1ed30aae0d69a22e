/**
 * Entry point of the configuration layer: `infermeter profile` arguments (+ `-f` YAML file + environment) →
 * a validated, deep-frozen `ProfileConfig`. Precedence: defaults < YAML < environment < flags. Every problem from
 * every layer is reported at once in one `ConfigError`.
 *
 * The CLI calls it like this:
 * ```ts
 * if (isProfileHelpRequest(args)) { stdout.write(await profileHelp()); return 0; }
 * if (mayNameConfigFile(args)) await preloadYamlConfig();
 * const parsed = parseProfileArgs(args, { env: Deno.env.toObject(), readTextFile: Deno.readTextFileSync, isTty });
 * ```
 *
 * Startup cost matters here (`profile` must send its first request within 150 ms of process start), so this module
 * loads no npm package: commander (~25–30 ms) is imported only to render `--help`, and js-yaml (~7 ms) only when a
 * `-f/--config` file is given (see `lazy_yaml_config.ts`). `tests/config/import_graph_test.ts` keeps it that way.
 */
import type { BuildProfileCommandOptions } from "./build_profile_command.ts";
import { ConfigError } from "./config_error.ts";
import { layerOptionValues, type OptionAssignment } from "./layer_option_values.ts";
import { loadedYamlConfigLoader } from "./lazy_yaml_config.ts";
import { OPTION_TABLE, type OptionKey, type ValueSource } from "./option_table.ts";
import type { ProfileConfig } from "./profile_config.ts";
import { isProfileHelpRequest, readCliArgs } from "./read_cli_args.ts";
import { redactCommand } from "./redact_command.ts";
import { resolveProfileConfig } from "./resolve_profile_config.ts";

export { isProfileHelpRequest } from "./read_cli_args.ts";
// parseProfileArgs is synchronous, so the YAML loader must be in memory before it meets -f: callers whose
// arguments may name a config file `await preloadYamlConfig()` first (the CLI does, see cli/profile.ts).
export { mayNameConfigFile, preloadYamlConfig } from "./lazy_yaml_config.ts";

/**
 * The `infermeter profile --help` text, grouped like AIPerf's (rendered by commander, which is loaded only here).
 */
export async function profileHelp(options: BuildProfileCommandOptions = {}): Promise<string> {
  const { profileHelp } = await import("./build_profile_command.ts");
  return profileHelp(options);
}

/** What the parser needs from the outside world (injected so tests need no real files or environment). */
export interface ProfileIo {
  /** Environment variables (`INFERMETER_*` options and `${VAR}` references in YAML). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Reads the `-f/--config` file; may throw (reported as a problem). */
  readTextFile(path: string): string;
  /** Whether stderr is a terminal (default UI: `simple` when true, `none` otherwise). */
  readonly isTty: boolean;
}

/** A successfully parsed `profile` invocation. */
export interface ParsedProfile {
  /** Deep-frozen. */
  readonly config: ProfileConfig;
  /** `infermeter profile …` with secrets replaced by `<redacted>`, for `run_info.cli_command` and logs. */
  readonly redactedCommand: string;
  /** Things that did not stop the run but change what the user may expect (one sentence each). */
  readonly warnings: readonly string[];
  /** Which layer each field's value came from. */
  readonly sources: Readonly<Record<OptionKey, ValueSource>>;
}

/**
 * Parses, layers and validates; throws one `ConfigError` listing every problem. With `-f/--config`, throws an
 * `Error` if the YAML loader was not loaded first (see {@link preloadYamlConfig}).
 */
export function parseProfileArgs(argv: readonly string[], io: ProfileIo): ParsedProfile {
  if (isProfileHelpRequest(argv)) {
    throw new ConfigError([
      "-h/--help asks for the option list, not a run; the CLI prints profileHelp() before calling parseProfileArgs.",
    ]);
  }
  const problems: string[] = [];
  const warnings: string[] = [];
  const assignments: OptionAssignment[] = [];

  const cli = readCliArgs(argv);
  problems.push(...cli.problems);

  const configFile = cli.occurrences.findLast((occurrence) =>
    "key" in occurrence.spec && occurrence.spec.key === "configFile"
  );
  if (configFile?.raw !== undefined && configFile.raw.trim() !== "") {
    const loadYamlConfig = loadedYamlConfigLoader();
    if (loadYamlConfig === undefined) {
      throw new Error(
        "parseProfileArgs: -f/--config needs the YAML loader; call `await preloadYamlConfig()` first " +
          "(done automatically when this process's arguments name the file).",
      );
    }
    const path = configFile.raw.trim();
    let text: string | undefined;
    try {
      text = io.readTextFile(path);
    } catch (error) {
      problems.push(
        `Cannot read config file '${path}' (${(error as Error).message}); check the path given to ${configFile.flag}.`,
      );
    }
    if (text !== undefined) {
      const yaml = loadYamlConfig(text, { path, env: io.env });
      problems.push(...yaml.problems);
      warnings.push(...yaml.warnings);
      assignments.push(...yaml.assignments);
    }
  }

  for (const spec of OPTION_TABLE) {
    if (spec.env === undefined) continue;
    const value = io.env[spec.env];
    if (value === undefined || value === "") continue;
    assignments.push({ spec, raw: value, origin: `env ${spec.env}`, source: "env" });
  }

  for (const occurrence of cli.occurrences) {
    assignments.push({
      spec: occurrence.spec,
      raw: occurrence.raw,
      origin: occurrence.flag,
      source: "cli",
      negated: occurrence.negated,
    });
  }

  const layered = layerOptionValues(assignments);
  problems.push(...layered.problems);
  warnings.push(...layered.warnings);
  const resolved = resolveProfileConfig(layered.values, { isTty: io.isTty });
  problems.push(...resolved.problems);
  warnings.push(...resolved.warnings);
  if (problems.length > 0) throw new ConfigError(problems);

  return {
    config: deepFreeze(resolved.config),
    redactedCommand: redactCommand(argv),
    warnings: Object.freeze([...warnings]),
    sources: Object.freeze({ ...resolved.sources }),
  };
}

/** Freezes `value` and everything reachable from it. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value as Record<string, unknown>)) deepFreeze(inner);
  }
  return value;
}
