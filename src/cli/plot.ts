/**
 * `infermeter plot <run>…`: charts as PNG or SVG files and report.html, from the runs' exports. Reads files only.
 */
import { ConfigError } from "../config/config_error.ts";
import { parseCommandArgs } from "../config/parse_command_args.ts";
import { isHelpRequest } from "../config/read_cli_args.ts";
import { renderHelp } from "../config/render_help.ts";
import { EXIT } from "./exit_codes.ts";
import { PLOT_COMMAND } from "./plot_command.ts";
import { ReportError } from "../report/report_error.ts";
import { findRunPaths } from "../report/run_export.ts";

export async function runPlot(args: string[]): Promise<number> {
  if (isHelpRequest(args)) {
    console.log(renderHelp(PLOT_COMMAND));
    return EXIT.OK;
  }
  try {
    const parsed = parseCommandArgs(PLOT_COMMAND, args);
    if (parsed.operands.length === 0) throw new ConfigError(["give the runs to plot: infermeter plot <run>…"]);
    const paths = await findRunPaths(parsed.operands);
    const { plotRuns } = await import("../report/plot_runs.ts");
    const result = await plotRuns(paths, {
      output: parsed.values.output,
      format: parsed.values.format as "png" | "svg",
      onFile: (path) => console.error(`wrote ${path}`),
    });
    console.log(`${result.files.length} charts and ${result.report} in ${result.outputDir}`);
    return EXIT.OK;
  } catch (e) {
    if (e instanceof ConfigError || e instanceof ReportError) {
      console.error(`error: ${e.message}`);
      return EXIT.USAGE;
    }
    throw e;
  }
}
