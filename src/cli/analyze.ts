/**
 * `infermeter analyze <swim-lane|turn-messages> <run_dir>…`: AIPerf's post-run views of a finished run
 * (`report/swim_lane.ts`, `report/turn_messages.ts`). Each run directory is drawn on its own; one that cannot be is
 * reported ("skip <dir>: why") and the exit code is 1.
 */
import { ConfigError } from "../config/config_error.ts";
import { parseCommandArgs } from "../config/parse_command_args.ts";
import { isHelpRequest } from "../config/read_cli_args.ts";
import { renderHelp } from "../config/render_help.ts";
import { didYouMeanHint } from "../base/did_you_mean.ts";
import { ReportError } from "../report/report_error.ts";
import { EXIT } from "./exit_codes.ts";
import { SWIM_LANE_COMMAND, TURN_MESSAGES_COMMAND } from "./analyze_command.ts";

export interface AnalyzeIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

const DEFAULT_IO: AnalyzeIo = {
  stdout: (text) => console.log(text.replace(/\n$/, "")),
  stderr: (text) => console.error(text.replace(/\n$/, "")),
};

const SUBCOMMANDS = {
  "swim-lane": "Render a per-session swim-lane PNG with the concurrency curve underneath.",
  "turn-messages": "Render a collapsible HTML viewer of the per-turn input messages (needs --export-level raw).",
} as const;

function mainHelp(): string {
  return [
    "Usage: infermeter analyze <subcommand> <run_dir>… [options]",
    "",
    "Views of a finished run: session timelines, concurrency, and the messages each turn sent.",
    "",
    "Subcommands:",
    ...Object.entries(SUBCOMMANDS).map(([name, text]) => `  ${name.padEnd(14)}${text}`),
    "",
    "Run 'infermeter analyze <subcommand> --help' for its options.",
    "",
  ].join("\n");
}

function dirOf(path: string): string {
  return path.replace(/\/+$/, "");
}

async function writeFile(path: string, data: string | Uint8Array): Promise<void> {
  const dir = path.replace(/[\\/][^\\/]*$/, "");
  if (dir !== path && dir !== "") await Deno.mkdir(dir, { recursive: true });
  if (typeof data === "string") await Deno.writeTextFile(path, data);
  else await Deno.writeFile(path, data);
}

/** Draws each run directory; one that cannot be drawn is reported and counted. Exit 1 when any was not. */
async function eachRun(runs: readonly string[], io: AnalyzeIo, draw: (dir: string) => Promise<void>): Promise<number> {
  let failures = 0;
  for (const runDir of runs) {
    try {
      await draw(runDir);
    } catch (e) {
      if (
        !(e instanceof ReportError || e instanceof Deno.errors.PermissionDenied || e instanceof Deno.errors.NotFound)
      ) {
        throw e;
      }
      io.stderr(`skip ${runDir}: ${(e as Error).message}\n`);
      failures++;
    }
  }
  return failures > 0 ? EXIT.REQUESTS_FAILED : EXIT.OK;
}

async function swimLane(args: string[], io: AnalyzeIo): Promise<number> {
  const { values, operands } = parseCommandArgs(SWIM_LANE_COMMAND, args);
  if (operands.length === 0) throw new ConfigError(["give at least one run directory"]);
  if (values.out !== undefined && operands.length > 1) {
    throw new ConfigError(["--out only valid with a single run dir"]);
  }
  const { readSwimLaneRun, swimLaneOption, swimLaneSize, swimLaneHtml } = await import("../report/swim_lane.ts");
  const { renderChartSvg, svgToPng } = await import("../report/render_chart.ts");
  return await eachRun(operands, io, async (runDir) => {
    const run = await readSwimLaneRun(runDir, values.ramp);
    const { width, height } = swimLaneSize(run.layout);
    const svg = await renderChartSvg(swimLaneOption(run, values.concurrency), width, height);
    const out = values.out ?? `${dirOf(runDir)}/swim_lane.png`;
    await writeFile(out, await svgToPng(svg));
    io.stdout(`saved ${out}\n`);
    if (values.html) {
      const { echartsBrowserScript } = await import("../report/run_report.ts");
      const page = values.out !== undefined
        ? values.out.replace(/\.[^./]*$/, "") + ".html"
        : `${dirOf(runDir)}/swim_lane.html`;
      await writeFile(page, swimLaneHtml(run, await echartsBrowserScript(), values.concurrency));
      io.stdout(`saved ${page}\n`);
    }
  });
}

async function turnMessages(args: string[], io: AnalyzeIo): Promise<number> {
  const { values, operands } = parseCommandArgs(TURN_MESSAGES_COMMAND, args);
  if (operands.length === 0) throw new ConfigError(["give at least one run directory"]);
  if (values.out !== undefined && operands.length > 1) {
    throw new ConfigError(["--out only valid with a single run dir"]);
  }
  const { rawRecordFiles, readRawRecords, buildTurnMessages, turnMessagesHtml } = await import(
    "../report/turn_messages.ts"
  );
  return await eachRun(operands, io, async (runDir) => {
    const files = await rawRecordFiles(runDir);
    if (files.length === 0) {
      throw new ReportError(`no raw records under ${runDir}; run infermeter profile with --export-level raw first`);
    }
    const records = await readRawRecords(files);
    if (records.length === 0) throw new ReportError(`no valid raw records in ${runDir}`);
    const payload = buildTurnMessages(records, files.length, values);
    const name = dirOf(runDir).split("/").pop() ?? runDir;
    const html = await turnMessagesHtml(payload, name);
    const isFile = (await Deno.stat(runDir)).isFile;
    const out = values.out ?? `${isFile ? dirOf(runDir).replace(/\/[^/]*$/, "") : dirOf(runDir)}/turn_messages.html`;
    await writeFile(out, html);
    io.stdout(
      `saved ${out} (${Math.floor(new TextEncoder().encode(html).length / 1024).toLocaleString("en-US")} KB)\n`,
    );
  });
}

export async function runAnalyze(args: string[], io: AnalyzeIo = DEFAULT_IO): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === "-h" || sub === "--help" || sub === "help") {
    io.stdout(mainHelp());
    return sub === undefined ? EXIT.USAGE : EXIT.OK;
  }
  const command = sub === "swim-lane" ? SWIM_LANE_COMMAND : sub === "turn-messages" ? TURN_MESSAGES_COMMAND : undefined;
  if (command === undefined) {
    io.stderr(
      `error: unknown analyze subcommand '${sub}';${didYouMeanHint(sub, Object.keys(SUBCOMMANDS))} run ` +
        "'infermeter analyze --help'.\n",
    );
    return EXIT.USAGE;
  }
  if (isHelpRequest(rest)) {
    io.stdout(renderHelp(command));
    return EXIT.OK;
  }
  try {
    return sub === "swim-lane" ? await swimLane(rest, io) : await turnMessages(rest, io);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    io.stderr(`error: ${e.message}\n`);
    return EXIT.USAGE;
  }
}
