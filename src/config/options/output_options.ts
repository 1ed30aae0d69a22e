/** `profile` options of the "Output" group: where results are written and how much of each request is kept. */
import { MAX_DURATION_SECONDS } from "../../timing/load_limits.ts";
import { optionGroup } from "./option_group.ts";

export const OUTPUT_OPTIONS = optionGroup("Output", [
  {
    key: "artifactDir",
    type: "path",
    default: "artifacts",
    flags: ["--output-artifact-dir", "--artifact-dir"],
    common: true,
    metavar: "<dir>",
    env: "INFERMETER_ARTIFACT_DIR",
    yaml: ["benchmark.artifacts.dir"],
    help: "Directory for result files. Left at the default, a per-run subdirectory is added; set explicitly, " +
      "it is used as is.",
  },
  {
    key: "profileExportPrefix",
    type: "string",
    flags: ["--profile-export-prefix", "--profile-export-file"],
    metavar: "<name>",
    yaml: ["benchmark.artifacts.prefix"],
    help: "Base name for the result files (foo → foo.json, foo.csv, foo.jsonl).",
  },
  {
    key: "exportLevel",
    type: "enum",
    choices: ["summary", "records", "raw"],
    default: "records",
    flags: ["--export-level", "--profile-export-level"],
    help: "How much to write: the summary only, plus one record per request, or plus raw requests and responses.",
  },
  {
    key: "bundle",
    type: "bool",
    default: false,
    flags: ["--bundle"],
    yaml: ["benchmark.artifacts.bundle"],
    help: "Also write run.bundle.tar.gz: every request body exactly as sent, its session, think time and send " +
      "offset, the resolved configuration (secrets removed), versions, the server's identity and the records, " +
      "checksummed. infermeter replay sends the same requests on the same schedule, on any machine.",
  },
  {
    key: "peerMetrics",
    type: "list",
    items: "text",
    repeatable: true,
    default: [],
    flags: ["--peer-metrics"],
    metavar: "<tools>",
    yaml: ["benchmark.artifacts.peer_metrics"],
    help: "After the run, also report it as these tools would, each with its own metric definitions, from the " +
      "same records: vllm, sglang, guidellm, llmperf, genai-perf, or all (comma-separated). Writes " +
      "peer_metrics.json and prints the table; needs the per-request records (not --export-level summary).",
  },
  {
    key: "sliceDuration",
    type: "float",
    min: 0,
    max: MAX_DURATION_SECONDS,
    exclusiveMin: true,
    flags: ["--slice-duration"],
    metavar: "<seconds>",
    yaml: ["benchmark.artifacts.slice_duration"],
    help: "Also compute every metric per time slice of this many seconds (by request start) and write them to " +
      "*_timeslices.csv and *_timeslices.json.",
  },
  {
    key: "consoleWidth",
    type: "int",
    min: 1,
    max: 1000,
    flags: ["--console-width"],
    metavar: "<columns>",
    env: "INFERMETER_CONSOLE_WIDTH",
    envAliases: ["AIPERF_UI_CONSOLE_EXPORT_WIDTH"],
    yaml: ["benchmark.runtime.console_width"],
    defaultDescription: "the terminal's width, 140 when not a terminal",
    help: "Width of the end-of-run console tables.",
  },
]);
