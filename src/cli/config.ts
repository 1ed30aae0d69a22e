/**
 * `infermeter config init|validate|expand`: write a commented template, check a file (every problem, with line
 * numbers, exit 2), or print the resolved configuration. Nothing here sends a request.
 */
import { ConfigError } from "../config/config_error.ts";
import { parseCommandArgs } from "../config/parse_command_args.ts";
import { isHelpRequest } from "../config/read_cli_args.ts";
import { renderHelp } from "../config/render_help.ts";
import { type ParsedProfile, parseProfileArgs } from "../config/parse_profile_args.ts";
import { didYouMeanHint } from "../base/did_you_mean.ts";
import { EXIT } from "./exit_codes.ts";
import { CONFIG_HELP, CONFIG_INIT_COMMAND } from "./config_command.ts";

/** Where the command reads and writes; tests pass their own. */
export interface ConfigIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  readTextFile(path: string): string;
}

const DEFAULT_IO: ConfigIo = {
  stdout: (text) => Deno.stdout.writeSync(new TextEncoder().encode(text)),
  stderr: (text) => Deno.stderr.writeSync(new TextEncoder().encode(text)),
  env: Deno.env.toObject(),
  readTextFile: (path) => Deno.readTextFileSync(path),
};

const ACTIONS = ["init", "validate", "expand"];

export async function runConfig(args: string[], io: ConfigIo = DEFAULT_IO): Promise<number> {
  const [action, ...rest] = args;
  if (action === undefined || action === "-h" || action === "--help" || action === "help") {
    io.stdout(CONFIG_HELP);
    return action === undefined ? EXIT.USAGE : EXIT.OK;
  }
  switch (action) {
    case "init":
      return await init(rest, io);
    case "validate":
      return await validate(rest, io);
    case "expand":
      return await expand(rest, io);
    default:
      io.stderr(
        `error: unknown config action '${action}';${didYouMeanHint(action, ACTIONS)} Use init, validate or expand.\n`,
      );
      return EXIT.USAGE;
  }
}

async function init(args: string[], io: ConfigIo): Promise<number> {
  if (isHelpRequest(args)) {
    io.stdout(renderHelp(CONFIG_INIT_COMMAND));
    return EXIT.OK;
  }
  let output: string | undefined;
  try {
    output = parseCommandArgs(CONFIG_INIT_COMMAND, args).values.output;
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    io.stderr(`error: ${e.message}\n`);
    return EXIT.USAGE;
  }
  const { configTemplate } = await import("../config/config_template.ts");
  const text = configTemplate();
  if (output === undefined) {
    io.stdout(text);
    return EXIT.OK;
  }
  try {
    await Deno.writeTextFile(output, text, { createNew: true });
  } catch (e) {
    io.stderr(
      `error: cannot write ${output} (${e instanceof Error ? e.message : String(e)}); it must not exist yet.\n`,
    );
    return EXIT.USAGE;
  }
  io.stderr(`wrote ${output}: edit it, check it with 'infermeter config validate ${output}', run it with -f.\n`);
  return EXIT.OK;
}

/** What is at `path`, for the input-file check. */
function pathKind(path: string): "file" | "directory" | undefined {
  try {
    return Deno.statSync(path).isDirectory ? "directory" : "file";
  } catch {
    return undefined;
  }
}

/**
 * Parses `profile` options as a run would, and also checks that the input file exists; on failure prints every
 * problem (the config file's with their line, in line order) and returns undefined.
 */
async function parseOrReport(args: string[], io: ConfigIo): Promise<ParsedProfile | undefined> {
  try {
    return await parseProfileArgs(args, { env: io.env, readTextFile: io.readTextFile, isTty: false, pathKind });
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    const lines = e.problems;
    io.stderr(`${lines.length} problem${lines.length === 1 ? "" : "s"}:\n${lines.map((l) => `  ${l}`).join("\n")}\n`);
    return undefined;
  }
}

async function validate(args: string[], io: ConfigIo): Promise<number> {
  const [file, ...flags] = args;
  if (file === undefined || file === "-h" || file === "--help" || file.startsWith("-")) {
    io.stdout(CONFIG_HELP);
    return file === undefined || file.startsWith("-") && file !== "-h" && file !== "--help" ? EXIT.USAGE : EXIT.OK;
  }
  const parsed = await parseOrReport(["-f", file, ...flags], io);
  if (parsed === undefined) return EXIT.USAGE;
  for (const w of parsed.warnings) io.stderr(`warning: ${w}\n`);
  io.stdout(`${file}: valid\n`);
  return EXIT.OK;
}

async function expand(args: string[], io: ConfigIo): Promise<number> {
  if (isHelpRequest(args)) {
    io.stdout(CONFIG_HELP);
    return EXIT.OK;
  }
  const parsed = await parseOrReport(args, io);
  if (parsed === undefined) return EXIT.USAGE;
  const { expandConfig } = await import("../config/expand_config.ts");
  io.stdout(expandConfig(parsed.config as unknown as Record<string, unknown>, parsed.sources));
  return EXIT.OK;
}
