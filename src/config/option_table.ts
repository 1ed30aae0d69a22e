/**
 * THE option table of `infermeter profile`: every option declared once, as data, one file per `--help` group
 * (`options/`), plus the options each load strategy declares (`timing/load_strategies.ts`). Flags (AIPerf's long
 * name first,
 * then every AIPerf alias), YAML keys, environment variables, `--help` groups, defaults, bounds and secrecy are all
 * read from here by the parser (`parse_profile_args.ts`), the YAML loader (`yaml_config.ts`), the help text
 * (`render_help.ts`), the redacted command line (`redact_command.ts`) and the type of the configuration itself
 * (`ProfileConfig` is derived from this table). Defaults are declared here and nowhere else; where a rule gives the
 * value instead (`resolve_profile_config.ts`), `defaultDescription` says so.
 *
 * Flag names and aliases follow AIPerf's `profile` command (reference/aiperf.md §1.2) so AIPerf users can switch
 * without relearning; the help texts are our own words. Choices that an extension point defines come from its
 * registry (`choices: ENDPOINTS`), never copied.
 */
import type { Registry } from "../base/registry.ts";
import type { OptionSpec } from "../base/option_spec.ts";
import type { OptionKeyOf } from "../base/option_values.ts";
import type { LoadStrategyEntry } from "../timing/load_strategy.ts";
import { LOAD_STRATEGIES, LOAD_STRATEGY_OPTIONS } from "../timing/load_strategies.ts";
import { DATASET_LOADER_OPTIONS } from "../dataset/dataset_loaders.ts";
import { type Command, defineCommand } from "./command_spec.ts";
import { ENDPOINT_OPTIONS } from "./options/endpoint_options.ts";
import { TOKENIZER_OPTIONS } from "./options/tokenizer_options.ts";
import { INPUT_OPTIONS } from "./options/input_options.ts";
import { CONVERSATION_INPUT_OPTIONS } from "./options/conversation_input_options.ts";
import { RANKINGS_OPTIONS } from "./options/rankings_options.ts";
import { ISL_OPTIONS } from "./options/isl_options.ts";
import { OSL_OPTIONS } from "./options/osl_options.ts";
import { LOAD_GENERATOR_OPTIONS } from "./options/load_generator_options.ts";
import { WARMUP_OPTIONS } from "./options/warmup_options.ts";
import { REQUEST_CANCELLATION_OPTIONS } from "./options/request_cancellation_options.ts";
import { GOODPUT_OPTIONS } from "./options/goodput_options.ts";
import { OUTPUT_OPTIONS } from "./options/output_options.ts";
import { SERVER_METRICS_OPTIONS } from "./options/server_metrics_options.ts";
import { TRACKING_EXPORT_OPTIONS } from "./options/tracking_export_options.ts";
import { GPU_TELEMETRY_OPTIONS } from "./options/gpu_telemetry_options.ts";
import { UI_OPTIONS } from "./options/ui_options.ts";
import { SERVICE_OPTIONS } from "./options/service_options.ts";
import { WORKERS_OPTIONS } from "./options/workers_options.ts";
import { MULTI_RUN_OPTIONS } from "./options/multi_run_options.ts";
import { ACCURACY_OPTIONS } from "./options/accuracy_options.ts";
import { VIDEO_OPTIONS } from "./options/video_options.ts";
import { NO_EFFECT_OPTIONS, PENDING_AIPERF_OPTIONS } from "./options/aiperf_only_options.ts";
import { AGENTIC_REPLAY_OPTIONS } from "./options/agentic_replay_options.ts";
import { SCENARIO_OPTIONS } from "./options/scenario_options.ts";

/** `--help` sections, in display order (AIPerf's groups; `Not Supported Yet` is ours). */
export const OPTION_GROUPS = [
  "Endpoint",
  "Tokenizer",
  "Input",
  "Conversation Input",
  "Input Sequence Length (ISL)",
  "Output Sequence Length (OSL)",
  "Video Input",
  "Synthesis",
  "Rankings",
  "Load Generator",
  "Warmup",
  "User-Centric Rate",
  "Request Cancellation",
  "Goodput",
  "Output",
  "OTel, MLflow and W&B",
  "Server Metrics",
  "GPU Telemetry",
  "UI",
  "Service",
  "Workers",
  "Multi-Run",
  "Accuracy",
  "Scenario",
  "Not Supported Yet",
] as const;

export type OptionGroup = typeof OPTION_GROUPS[number];

/** The options every run has, whatever its load mode (the group files, in `--help` order). */
const CORE_OPTIONS = [
  ...ENDPOINT_OPTIONS,
  ...TOKENIZER_OPTIONS,
  ...INPUT_OPTIONS,
  ...CONVERSATION_INPUT_OPTIONS,
  ...ISL_OPTIONS,
  ...OSL_OPTIONS,
  ...VIDEO_OPTIONS,
  ...RANKINGS_OPTIONS,
  ...LOAD_GENERATOR_OPTIONS,
  ...WARMUP_OPTIONS,
  ...REQUEST_CANCELLATION_OPTIONS,
  ...GOODPUT_OPTIONS,
  ...OUTPUT_OPTIONS,
  ...TRACKING_EXPORT_OPTIONS,
  ...SERVER_METRICS_OPTIONS,
  ...GPU_TELEMETRY_OPTIONS,
  ...UI_OPTIONS,
  ...SERVICE_OPTIONS,
  ...WORKERS_OPTIONS,
  ...MULTI_RUN_OPTIONS,
  ...ACCURACY_OPTIONS,
  ...AGENTIC_REPLAY_OPTIONS,
  ...SCENARIO_OPTIONS,
] as const;

const PROFILE_OPTIONS = [
  ...CORE_OPTIONS,
  ...DATASET_LOADER_OPTIONS,
  ...LOAD_STRATEGY_OPTIONS,
  ...NO_EFFECT_OPTIONS,
  ...PENDING_AIPERF_OPTIONS,
] as const;

/** The table's literal type, from which `ProfileConfig` is derived. */
export type ProfileOptionTable = typeof PROFILE_OPTIONS;

/** A `ProfileConfig` field written by an option. */
export type OptionKey = OptionKeyOf<ProfileOptionTable>;

/** Every option of `infermeter profile`, grouped for `--help`. */
export const OPTION_TABLE: readonly OptionSpec<OptionKey, OptionGroup>[] = PROFILE_OPTIONS;

const DESCRIPTION = "Benchmark an OpenAI-compatible inference server. Flags, aliases and YAML keys follow AIPerf's " +
  "'aiperf profile'; precedence is defaults < YAML (-f) < environment < flags.";
const UNSUPPORTED_HEADING = "AIPerf options accepted without effect here (a notice says why), or of features not " +
  "built yet (an error):";

/** What `profile --help` shows after the options of a first run. */
const EXAMPLES = [
  {
    title: "Synthetic chat: 100 streamed requests of 550 prompt tokens and 128 output tokens, 8 at a time",
    command: "infermeter profile -m my-model --url http://localhost:8000 --streaming --isl 550 --osl 128 " +
      "--concurrency 8 --request-count 100",
  },
  {
    title: "File replay: send each conversation of a trace at its own timestamp",
    command: "infermeter profile -m my-model --streaming --input-file trace.jsonl --custom-dataset-type " +
      "mooncake_trace --fixed-schedule",
  },
  {
    title: "Rate sweep: one 60 s run per request rate, each in its own directory",
    command: "infermeter profile -m my-model --streaming --request-rate 2,4,8,16 --benchmark-duration 60",
  },
  {
    title: "CI gate: exit 1 when more than 1 % of requests fail; goodput counts requests within the SLOs",
    command: "infermeter profile -m my-model --streaming --request-count 200 --failed-request-threshold 0.01 " +
      "--goodput 'time_to_first_token:200 inter_token_latency:20'",
  },
  {
    allOnly: true,
    title: "Search: the highest concurrency whose p95 TTFT stays under 500 ms",
    command: "infermeter profile -m my-model --streaming --request-count 200 --search-recipe " +
      "max-concurrency-under-sla --ttft-sla-ms 500",
  },
  {
    allOnly: true,
    title: "Bayesian search: the concurrency and output length with the most tokens/s within a p95 TTFT SLA",
    command: "infermeter profile -m my-model --streaming --request-count 200 --search-space 'concurrency:1,256:int' " +
      "--search-space 'datasets.main.prompts.osl:64,1024:int' --search-metric output_token_throughput " +
      "--search-direction maximize --search-max-iterations 20 --search-sla 'time_to_first_token:p95:lt:500'",
  },
  {
    allOnly: true,
    title: "Prefill curve: TTFT against input length at concurrency 1, fitted",
    command: "infermeter profile -m my-model --streaming --request-count 20 --search-recipe prefill-ttft-curve " +
      "--isl-min 256 --isl-max 8192",
  },
  {
    allOnly: true,
    title: "Named points: two workload shapes in one sweep",
    command: "infermeter profile -m my-model --streaming --request-count 100 --variant 'chat: isl=512, osl=256' " +
      "--variant 'rag: isl=4096, osl=128'",
  },
  {
    title: "YAML: every option in a file (write one with 'infermeter config init'); flags still win",
    command: "infermeter profile -f run.yaml --concurrency 16",
  },
] as const;

/** `infermeter profile`: the table plus what `--help` shows around it. */
export const PROFILE_COMMAND: Command<ProfileOptionTable> = defineCommand({
  name: "profile",
  description: DESCRIPTION,
  options: PROFILE_OPTIONS,
  groups: OPTION_GROUPS,
  unsupportedHeading: UNSUPPORTED_HEADING,
  examples: EXAMPLES,
});

/**
 * `profile` with the options of another set of load strategies (a registry with more entries, in tests): the same
 * core options, each strategy's own ones, the same help around them.
 */
export function profileCommandFor(strategies: Registry<LoadStrategyEntry>): Command {
  if (strategies === LOAD_STRATEGIES) return PROFILE_COMMAND;
  return defineCommand({
    name: "profile",
    description: DESCRIPTION,
    options: [
      ...CORE_OPTIONS,
      ...DATASET_LOADER_OPTIONS,
      ...strategies.entries().flatMap((entry) => entry.options),
      ...NO_EFFECT_OPTIONS,
      ...PENDING_AIPERF_OPTIONS,
    ],
    groups: OPTION_GROUPS,
    unsupportedHeading: UNSUPPORTED_HEADING,
    examples: EXAMPLES,
  });
}

/** The option a flag (`--isl`, `-m`) belongs to, or undefined. Negated booleans (`--no-x`) resolve to `--x`. */
export function findOptionByFlag(flag: string): OptionSpec | undefined {
  return PROFILE_COMMAND.index.find(flag);
}

/** Every flag spelling accepted on the command line, including `--no-x` for booleans. */
export function allFlagNames(): readonly string[] {
  return PROFILE_COMMAND.index.flagNames;
}
