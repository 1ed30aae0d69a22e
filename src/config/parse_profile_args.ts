/**
 * Entry point of the configuration layer: `infermeter profile` arguments (+ `-f` YAML file + environment) →
 * a validated, deep-frozen `ProfileConfig`. Precedence: defaults < YAML < environment < flags. Every problem from
 * every layer is reported at once in one `ConfigError`.
 *
 * The CLI calls it like this:
 * ```ts
 * if (isHelpRequest(args)) { stdout.write(profileHelp()); return 0; }
 * const parsed = await parseProfileArgs(args, { env: Deno.env.toObject(), readTextFile: Deno.readTextFileSync, isTty });
 * ```
 *
 * Startup cost matters here (`profile` must send its first request within 150 ms of process start), so this module
 * loads no npm package statically: js-yaml (~7 ms) is imported only when a `-f/--config` file is given.
 * `tests/config/import_graph_test.ts` keeps it that way.
 */
import { ConfigError } from "./config_error.ts";
import { locateProblems } from "./yaml_line_index.ts";
import { layerOptionValues, type OptionAssignment } from "./layer_option_values.ts";
import { type OptionKey, PROFILE_COMMAND, profileCommandFor } from "./option_table.ts";
import type { Registry } from "../base/registry.ts";
import type { LoadStrategyEntry } from "../timing/load_strategy.ts";
import { LOAD_STRATEGIES } from "../timing/load_strategies.ts";
import type { ValueSource } from "../base/option_spec.ts";
import { cliAssignments, envAssignments } from "./parse_command_args.ts";
import type { ProfileConfig } from "./profile_config.ts";
import { isHelpRequest, readCliArgs } from "./read_cli_args.ts";
import { redactCommand } from "./redact_command.ts";
import { renderHelp, type RenderHelpOptions } from "./render_help.ts";
import { resolveProfileConfig } from "./resolve_profile_config.ts";

export { isHelpRequest } from "./read_cli_args.ts";

/** What `profile`'s help is asked for: the arguments (`--help`, `--help-all`, `--help <word>`) and the width. */
export interface ProfileHelpOptions extends RenderHelpOptions {
  /** The command's arguments; without them, the short help. */
  readonly argv?: readonly string[];
}

/**
 * The `infermeter profile` help: `--help` the options of a first run and examples, `--help-all` every option
 * grouped like AIPerf's, `--help <word>` the options about a word.
 */
export function profileHelp(options: ProfileHelpOptions = {}): string {
  const argv = options.argv ?? [];
  const at = argv.findIndex((arg) => arg === "--help" || arg === "-h");
  const word = at >= 0 && at + 1 < argv.length && !argv[at + 1].startsWith("-") ? argv[at + 1] : undefined;
  const scope = options.scope ?? (argv.includes("--help-all") ? "all" : "short");
  return renderHelp(PROFILE_COMMAND, { ...options, scope, filter: options.filter ?? word });
}

/** What the parser needs from the outside world (injected so tests need no real files or environment). */
export interface ProfileIo {
  /** Environment variables (`INFERMETER_*` options and `${VAR}` references in YAML). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Reads the `-f/--config` file; may throw (reported as a problem). */
  readTextFile(path: string): string;
  /** Whether stderr is a terminal (default UI: `simple` when true, `none` otherwise). */
  readonly isTty: boolean;
  /**
   * What is at a path (`config validate` checks that the input file exists); without it the run's dataset loader
   * says so when it opens the file. @default undefined
   */
  readonly pathKind?: (path: string) => "file" | "directory" | undefined;
}

/** A successfully parsed `profile` invocation. */
export interface ParsedProfile {
  /** Deep-frozen. */
  readonly config: ProfileConfig;
  /** `infermeter profile …` with secrets replaced by `<redacted>`, for `run_info.cli_command` and logs. */
  readonly redactedCommand: string;
  /** The arguments as given (secrets included): what a shard process is started with to rebuild the same run. */
  readonly argv: readonly string[];
  /** Things that did not stop the run but change what the user may expect (one sentence each). */
  readonly warnings: readonly string[];
  /** Which layer each field's value came from. */
  readonly sources: Readonly<Record<keyof ProfileConfig, ValueSource>>;
}

/** Options for {@link parseProfileArgs}. */
export interface ParseProfileOptions {
  /** The load strategies whose options `profile` reads. @default LOAD_STRATEGIES */
  readonly strategies?: Registry<LoadStrategyEntry>;
}

/** Parses, layers and validates; rejects with one `ConfigError` listing every problem. */
export async function parseProfileArgs(
  argv: readonly string[],
  io: ProfileIo,
  options: ParseProfileOptions = {},
): Promise<ParsedProfile> {
  const strategies = options.strategies ?? LOAD_STRATEGIES;
  const command = profileCommandFor(strategies);
  if (isHelpRequest(argv)) {
    throw new ConfigError([
      "-h/--help asks for the option list, not a run; the CLI prints profileHelp() before calling parseProfileArgs.",
    ]);
  }
  const problems: string[] = [];
  const warnings: string[] = [];
  const assignments: OptionAssignment[] = [];

  const cli = readCliArgs(argv, command);
  problems.push(...cli.problems);

  let configText: { path: string; text: string } | undefined;
  const configKey: OptionKey = "configFile";
  const configFile = cli.occurrences.findLast((occurrence) =>
    "key" in occurrence.spec && occurrence.spec.key === configKey
  );
  if (configFile?.raw !== undefined && configFile.raw.trim() !== "") {
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
      configText = { path, text };
      // js-yaml is loaded only here, so runs without a config file never pay for it.
      const { loadYamlConfig } = await import("./yaml_config.ts");
      const yaml = loadYamlConfig(text, { path, env: io.env });
      // The loader stops at the first syntax error; a second parser, loaded only then, lists them all.
      const all = yaml.syntaxError ? (await import("./yaml_syntax_errors.ts")).yamlSyntaxErrors(text, path) : [];
      problems.push(...(all.length > 0 ? all : yaml.problems));
      warnings.push(...yaml.warnings);
      assignments.push(...yaml.assignments);
    }
  }
  assignments.push(...envAssignments(command.options, io.env), ...cliAssignments(cli.occurrences));

  const layered = layerOptionValues(command.options, assignments);
  problems.push(...layered.problems);
  warnings.push(...layered.warnings);
  const resolved = resolveProfileConfig(layered.values, { isTty: io.isTty, strategies });
  problems.push(...resolved.problems);
  warnings.push(...resolved.warnings);
  const input = layered.values.get("inputFile");
  if (io.pathKind !== undefined && typeof input?.value === "string" && io.pathKind(input.value) === undefined) {
    problems.push(`${input.origin}: '${input.value}' does not exist; give the path of a dataset file or directory.`);
  }
  if (problems.length > 0) {
    throw new ConfigError(configText ? locateProblems(problems, configText.path, configText.text) : problems);
  }

  return {
    config: deepFreeze(resolved.config),
    redactedCommand: redactCommand(argv, { secretHeaders: resolved.config.redactHeaders }),
    argv: [...argv],
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
