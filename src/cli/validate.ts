/**
 * `infermeter validate mooncake-trace --input <file>`: AIPerf's artifact check. Every line is read as the
 * mooncake_trace loader reads it (`parseMooncakeLine`), so a file that passes is one a run replays; the first 10
 * problems are listed as AIPerf lists them ("Line N: why").
 */
import { ConfigError } from "../config/config_error.ts";
import { parseCommandArgs } from "../config/parse_command_args.ts";
import { isHelpRequest } from "../config/read_cli_args.ts";
import { renderHelp } from "../config/render_help.ts";
import { didYouMeanHint } from "../base/did_you_mean.ts";
import { DatasetError } from "../dataset/dataset_error.ts";
import { parseJsonLine, unreadable } from "../dataset/json_record.ts";
import { readLines } from "../dataset/read_lines.ts";
import { parseMooncakeLine } from "../dataset/mooncake_trace_loader.ts";
import { EXIT } from "./exit_codes.ts";
import { VALIDATE_COMMAND, VALIDATE_TARGETS } from "./validate_command.ts";

export interface ValidateIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

const DEFAULT_IO: ValidateIo = {
  stdout: (text) => console.log(text.replace(/\n$/, "")),
  stderr: (text) => console.error(text.replace(/\n$/, "")),
};

/** AIPerf stops listing after this many problems. */
const MAX_ERRORS = 10;

/** Rows read and the first problems found, each "Line N: why". */
export async function validateMooncakeTrace(path: string): Promise<{ rows: number; errors: string[] }> {
  const errors: string[] = [];
  let rows = 0;
  try {
    for await (const { number, text } of readLines(path)) {
      if (text.trim() === "") continue;
      rows++;
      try {
        const record = parseJsonLine(text, path, number);
        parseMooncakeLine(path, { line: number, text, record });
      } catch (e) {
        if (!(e instanceof DatasetError)) throw e;
        errors.push(`Line ${number}: ${e.reason}`);
        if (errors.length >= MAX_ERRORS) break;
      }
    }
  } catch (e) {
    throw unreadable(path, e);
  }
  return { rows, errors };
}

export async function runValidate(args: string[], io: ValidateIo = DEFAULT_IO): Promise<number> {
  if (isHelpRequest(args)) {
    io.stdout(renderHelp(VALIDATE_COMMAND));
    return EXIT.OK;
  }
  let result;
  try {
    const { values, operands } = parseCommandArgs(VALIDATE_COMMAND, args);
    const [target, ...rest] = operands;
    if (target === undefined || rest.length > 0) {
      throw new ConfigError([
        `name one format to check: infermeter validate ${VALIDATE_TARGETS.join("|")} --input <file>`,
      ]);
    }
    if (!(VALIDATE_TARGETS as readonly string[]).includes(target)) {
      throw new ConfigError([
        `'${target}' is not a format validate checks;${didYouMeanHint(target, VALIDATE_TARGETS)} formats: ` +
        `${VALIDATE_TARGETS.join(", ")}.`,
      ]);
    }
    let file: Deno.FileInfo | undefined;
    try {
      file = await Deno.stat(values.input);
    } catch {
      file = undefined;
    }
    if (!file?.isFile) {
      io.stdout(`Validation failed: ${values.input} is not a file.\n`);
      return EXIT.REQUESTS_FAILED;
    }
    result = await validateMooncakeTrace(values.input);
  } catch (e) {
    if (!(e instanceof ConfigError || e instanceof DatasetError)) throw e;
    io.stderr(`error: ${e.message}\n`);
    return EXIT.USAGE;
  }
  if (result.errors.length > 0) {
    io.stdout(
      `Validation failed with ${result.errors.length} error(s):\n${result.errors.map((e) => `  ${e}\n`).join("")}`,
    );
    return EXIT.REQUESTS_FAILED;
  }
  io.stdout(`Validation passed: ${result.rows} rows are Mooncake-compatible.\n`);
  return EXIT.OK;
}
