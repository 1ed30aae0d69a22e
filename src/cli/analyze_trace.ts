/**
 * `infermeter analyze-trace <trace.jsonl>`: AIPerf's trace analysis report (`dataset/trace_analysis.ts`) on stdout,
 * and with `--output-file` as JSON. Lines are read as AIPerf reads them (lengths and hash ids only); a line that is
 * not JSON, or whose lengths or hash ids are not numbers, stops with its file:line.
 */
import { ConfigError } from "../config/config_error.ts";
import { parseCommandArgs } from "../config/parse_command_args.ts";
import { isHelpRequest } from "../config/read_cli_args.ts";
import { renderHelp } from "../config/render_help.ts";
import { DatasetError } from "../dataset/dataset_error.ts";
import { describeJson, field, isObject, parseJsonLine, unreadable } from "../dataset/json_record.ts";
import { readLines } from "../dataset/read_lines.ts";
import { analyzeTrace, type MetricStats, type TraceAnalysisLine } from "../dataset/trace_analysis.ts";
import { renderBoxTable } from "../export/box_table.ts";
import { EXIT } from "./exit_codes.ts";
import { ANALYZE_TRACE_COMMAND } from "./analyze_trace_command.ts";

export interface AnalyzeTraceIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

const DEFAULT_IO: AnalyzeTraceIo = {
  stdout: (text) => console.log(text.replace(/\n$/, "")),
  stderr: (text) => console.error(text.replace(/\n$/, "")),
};

async function readTraceLines(path: string): Promise<TraceAnalysisLine[]> {
  const lines: TraceAnalysisLine[] = [];
  try {
    for await (const { number, text } of readLines(path)) {
      const record = parseJsonLine(text, path, number);
      if (record === undefined) continue;
      if (!isObject(record)) {
        throw new DatasetError(path, number, `expected a JSON object (got ${describeJson(record)})`);
      }
      const count = (name: string): number => {
        const v = field(record, name);
        if (v === undefined) return 0;
        if (typeof v !== "number" || !Number.isInteger(v) || v < 0) {
          throw new DatasetError(path, number, `"${name}" must be a non-negative integer (got ${describeJson(v)})`);
        }
        return v;
      };
      const ids = field(record, "hash_ids") ?? [];
      if (!Array.isArray(ids) || !ids.every((id) => Number.isInteger(id))) {
        throw new DatasetError(path, number, `"hash_ids" must be a list of integers (got ${describeJson(ids)})`);
      }
      lines.push({ inputLength: count("input_length"), outputLength: count("output_length"), hashIds: ids });
    }
  } catch (error) {
    throw unreadable(path, error);
  }
  return lines;
}

const STAT_COLUMNS = ["Mean", "Std Dev", "Min", "P25", "Median", "P75", "Max"] as const;

/**
 * `n` with two decimals and thousands separators, rounded as Python's `f"{n:,.2f}"` rounds: an exact tie (0.125)
 * goes to the even digit, where `toFixed` would round it up.
 */
export function pythonFixed2(n: number): string {
  let fixed = n.toFixed(2);
  const exact = Math.abs(n).toFixed(100);
  const rest = exact.slice(exact.indexOf(".") + 3);
  if (/^50*$/.test(rest)) {
    const down = (Math.sign(n) * Math.floor(Math.abs(n) * 100)) / 100;
    const lastDigit = Number(Math.abs(down).toFixed(2).slice(-1));
    if (lastDigit % 2 === 0) fixed = down.toFixed(2);
  }
  const [int, frac] = fixed.split(".");
  return `${int.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}.${frac}`;
}

const number = pythonFixed2;

function statsRow(name: string, s: MetricStats | null): string[] {
  if (s === null) return [name, ...STAT_COLUMNS.map(() => "N/A")];
  return [name, ...[s.mean, s.std_dev, s.min, s.p25, s.median, s.p75, s.max].map(number)];
}

export async function runAnalyzeTrace(args: string[], io: AnalyzeTraceIo = DEFAULT_IO): Promise<number> {
  if (isHelpRequest(args)) {
    io.stdout(renderHelp(ANALYZE_TRACE_COMMAND));
    return EXIT.OK;
  }
  let parsed;
  let lines: TraceAnalysisLine[];
  try {
    parsed = parseCommandArgs(ANALYZE_TRACE_COMMAND, args);
    if (parsed.operands.length !== 1) {
      throw new ConfigError(["give one trace file: infermeter analyze-trace <trace.jsonl>"]);
    }
    lines = await readTraceLines(parsed.operands[0]);
  } catch (e) {
    if (!(e instanceof ConfigError || e instanceof DatasetError)) throw e;
    io.stderr(`error: ${e.message}\n`);
    return EXIT.USAGE;
  }
  const stats = analyzeTrace(lines, parsed.values.blockSize);
  const table = renderBoxTable(
    [{ header: "Metric" }, ...STAT_COLUMNS.map((header) => ({ header }))],
    [
      statsRow("Input Length", stats.isl_stats),
      statsRow("Context Length", stats.context_length_stats),
      statsRow("Unique Prompt Length", stats.unique_prompt_length_stats),
      statsRow("Output Length", stats.osl_stats),
      statsRow("Theoretical Hit Rates", stats.hit_rate_stats),
    ],
    { title: "Trace Statistics" },
  );
  let text = "\nTrace Analysis Report\n" +
    `Total requests:   ${stats.total_requests.toLocaleString("en-US")}\n` +
    `Unique prefixes:  ${stats.unique_prefixes.toLocaleString("en-US")}\n` +
    `Prefix groups:    ${stats.num_prefix_groups.toLocaleString("en-US")}\n\n${table}\n`;
  const out = parsed.values.outputFile;
  if (out !== undefined) {
    try {
      const dir = out.replace(/[\\/][^\\/]*$/, "");
      if (dir !== out && dir !== "") await Deno.mkdir(dir, { recursive: true });
      await Deno.writeTextFile(out, JSON.stringify(stats, null, 2) + "\n");
    } catch (e) {
      io.stdout(text);
      io.stderr(`error: --output-file ${out}: cannot be written (${(e as Error).message})\n`);
      return EXIT.RESULTS_UNWRITTEN;
    }
    text += `\nAnalysis report saved to ${out}\n`;
  }
  io.stdout(text);
  return EXIT.OK;
}
