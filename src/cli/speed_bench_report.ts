/**
 * `infermeter speed-bench-report PATHS…`: the SPEED-Bench matrix of per-category runs (`report/speed_bench_report.ts`),
 * printed as a table and/or written as CSV, as AIPerf 0.13's command does.
 */
import { ConfigError } from "../config/config_error.ts";
import { parseCommandArgs } from "../config/parse_command_args.ts";
import { isHelpRequest } from "../config/read_cli_args.ts";
import { renderHelp } from "../config/render_help.ts";
import { ReportError } from "../report/report_error.ts";
import {
  buildSpeedBenchMatrix,
  matrixColumns,
  renderSpeedBenchCsv,
  renderSpeedBenchTable,
  type SpeedBenchMetric,
} from "../report/speed_bench_report.ts";
import { EXIT } from "./exit_codes.ts";
import { SPEED_BENCH_REPORT_COMMAND } from "./speed_bench_report_command.ts";

export interface SpeedBenchReportIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

const DEFAULT_IO: SpeedBenchReportIo = {
  stdout: (text) => console.log(text.replace(/\n$/, "")),
  stderr: (text) => console.error(text.replace(/\n$/, "")),
};

export async function runSpeedBenchReport(args: string[], io: SpeedBenchReportIo = DEFAULT_IO): Promise<number> {
  if (isHelpRequest(args)) {
    io.stdout(renderHelp(SPEED_BENCH_REPORT_COMMAND));
    return EXIT.OK;
  }
  try {
    const { values, operands } = parseCommandArgs(SPEED_BENCH_REPORT_COMMAND, args);
    if (operands.length === 0) {
      throw new ConfigError([
        "name the run directories, or folders holding them: infermeter speed-bench-report <path>…",
      ]);
    }
    const metric = values.metric as SpeedBenchMetric;
    const { runs, matrix } = await buildSpeedBenchMatrix({
      paths: operands,
      metric,
      warn: (line) => io.stderr(line),
    });
    io.stdout(`Found ${runs} run directories.`);
    const hasValue = [...matrix.values()].some((row) => [...row.values()].some((v) => v !== undefined));
    if (!hasValue) {
      throw new ReportError(
        `no SPEED-Bench results extracted: no run used a speed_bench_* or spec_al_* dataset with a ${metric} value`,
      );
    }
    const columns = matrixColumns(matrix);
    if (values.format !== "csv") io.stdout(renderSpeedBenchTable(matrix, columns, metric));
    if (values.format !== "table") {
      try {
        await Deno.writeTextFile(values.output, renderSpeedBenchCsv(matrix, columns));
      } catch (err) {
        io.stderr(`error: ${values.output}: could not be written: ${(err as Error).message}`);
        return EXIT.RESULTS_UNWRITTEN;
      }
      io.stdout(`CSV written to ${values.output}`);
    }
    return EXIT.OK;
  } catch (e) {
    if (!(e instanceof ConfigError || e instanceof ReportError)) throw e;
    io.stderr(`error: ${e.message}`);
    return EXIT.USAGE;
  }
}
