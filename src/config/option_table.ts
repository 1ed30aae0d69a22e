/**
 * THE option table of `infermeter profile`: every option declared once, as data. Flags (AIPerf's long name first,
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
import { ENDPOINTS } from "../endpoints/endpoint_registry.ts";
import { DATASET_LOADERS } from "../dataset/dataset_loaders.ts";
import { MAX_DATASET_ENTRIES, MAX_PROMPT_TOKENS, MAX_TURNS } from "../dataset/dataset_limits.ts";
import type { LogLevel } from "../ui/logger.ts";
import { type Command, defineCommand } from "./command_spec.ts";
import type { OptionSpec, UnsupportedOptionSpec, ValueArity } from "./option_spec.ts";
import type { OptionKeyOf } from "./option_values.ts";

/** `--help` sections, in display order (AIPerf's groups; `Not Supported Yet` is ours). */
export const OPTION_GROUPS = [
  "Endpoint",
  "Tokenizer",
  "Input",
  "Conversation Input",
  "Input Sequence Length (ISL)",
  "Output Sequence Length (OSL)",
  "Load Generator",
  "Warmup",
  "Goodput",
  "Output",
  "UI",
  "Service",
  "Workers",
  "Not Supported Yet",
] as const;

export type OptionGroup = typeof OPTION_GROUPS[number];

/** Log levels, most verbose first (AIPerf's set). */
export const LOG_LEVELS = [
  "TRACE",
  "DEBUG",
  "INFO",
  "NOTICE",
  "WARNING",
  "SUCCESS",
  "ERROR",
  "CRITICAL",
] as const satisfies readonly LogLevel[];

const PHASE = "benchmark.phases.profiling";

/** Options that write configuration values. */
const VALUE_OPTIONS = [
  // ── Endpoint ──────────────────────────────────────────────────────────────────────────────────────────────
  {
    key: "modelNames",
    type: "list",
    items: "text",
    flags: ["--model-names", "--model"],
    short: "-m",
    group: "Endpoint",
    repeatable: true,
    metavar: "<names>",
    env: "INFERMETER_MODEL",
    yaml: ["benchmark.models.items"],
    required: "No model given; add -m/--model NAME (several: a comma list), or 'model: NAME' in the -f file.",
    help: "Model name(s) sent in each request; separate several with commas or repeat the flag. Required.",
  },
  {
    key: "modelSelectionStrategy",
    type: "enum",
    choices: ["round_robin", "random"],
    unsupportedChoices: ["weighted"],
    default: "round_robin",
    flags: ["--model-selection-strategy"],
    group: "Endpoint",
    yaml: ["benchmark.models.strategy"],
    help: "How a request picks its model when several are given: in turn, or uniformly at random.",
  },
  {
    key: "customEndpoint",
    type: "string",
    flags: ["--custom-endpoint", "--endpoint"],
    group: "Endpoint",
    metavar: "<path>",
    yaml: ["benchmark.endpoint.path"],
    defaultDescription: "the endpoint type's path",
    help: "URL path appended to the base URL instead of the endpoint type's usual one (e.g. /v1/chat/completions).",
  },
  {
    key: "endpointType",
    type: "enum",
    choices: ENDPOINTS,
    default: "chat",
    flags: ["--endpoint-type"],
    group: "Endpoint",
    env: "INFERMETER_ENDPOINT_TYPE",
    yaml: ["benchmark.endpoint.type"],
    help: "API dialect of the server.",
  },
  {
    key: "streaming",
    type: "bool",
    default: false,
    flags: ["--streaming"],
    group: "Endpoint",
    yaml: ["benchmark.endpoint.streaming"],
    help: "Ask for server-sent-event streaming; needed for time-to-first-token and inter-token latency.",
  },
  {
    key: "urls",
    type: "list",
    items: "url",
    default: ["http://localhost:8000"],
    flags: ["--url"],
    short: "-u",
    group: "Endpoint",
    repeatable: true,
    metavar: "<urls>",
    env: "INFERMETER_URL",
    yaml: ["benchmark.endpoint.urls"],
    help: "Base URL(s) of the server; http:// is added when no scheme is given. Several URLs share the load in turn.",
  },
  {
    key: "requestTimeoutSeconds",
    type: "float",
    default: 21600,
    min: 0,
    exclusiveMin: true,
    flags: ["--request-timeout-seconds"],
    group: "Endpoint",
    metavar: "<seconds>",
    env: "INFERMETER_REQUEST_TIMEOUT_SECONDS",
    yaml: ["benchmark.endpoint.timeout"],
    help: "Give up on a request after this many seconds, connection time included; it then counts as an error.",
  },
  {
    key: "stallNoticeSeconds",
    type: "float",
    default: 30,
    min: 0,
    exclusiveMin: true,
    flags: ["--stall-notice-seconds"],
    group: "Endpoint",
    metavar: "<seconds>",
    env: "INFERMETER_STALL_NOTICE_SECONDS",
    yaml: ["benchmark.endpoint.stall_notice"],
    help: "Say so (console and log, once per stall) when requests are in flight to a server and none of its " +
      "response bytes arrived for this many seconds; the requests go on until --request-timeout-seconds.",
  },
  {
    key: "apiKey",
    type: "string",
    flags: ["--api-key"],
    group: "Endpoint",
    secret: true,
    metavar: "<key>",
    env: "INFERMETER_API_KEY",
    yaml: ["benchmark.endpoint.api_key"],
    help: "Credential sent as 'Authorization: Bearer <key>'. Never written to logs or result files.",
  },
  {
    key: "useLegacyMaxTokens",
    type: "bool",
    default: false,
    flags: ["--use-legacy-max-tokens"],
    group: "Endpoint",
    yaml: ["benchmark.endpoint.use_legacy_max_tokens"],
    help: "Send the output length as max_tokens instead of max_completion_tokens (older chat servers).",
  },
  {
    key: "useServerTokenCount",
    type: "bool",
    default: false,
    flags: ["--use-server-token-count"],
    group: "Endpoint",
    yaml: ["benchmark.endpoint.use_server_token_count"],
    help: "Take token counts from the server's usage field instead of counting them with the tokenizer.",
  },
  {
    key: "connectionReuseStrategy",
    type: "enum",
    choices: ["pooled", "never", "sticky-user-sessions"],
    default: "pooled",
    flags: ["--connection-reuse-strategy"],
    group: "Endpoint",
    yaml: ["benchmark.endpoint.connection_reuse"],
    help: "Keep-alive policy: share pooled connections, open a new one per request, or keep one per session.",
  },
  // ── Tokenizer ─────────────────────────────────────────────────────────────────────────────────────────────
  {
    key: "tokenizer",
    type: "string",
    default: "builtin",
    flags: ["--tokenizer"],
    group: "Tokenizer",
    metavar: "<name|path>",
    env: "INFERMETER_TOKENIZER",
    yaml: ["benchmark.tokenizer.name"],
    help: "Tokenizer for prompt synthesis and token counts: 'builtin' (offline o200k_base) or a local " +
      "tokenizer.json file or model directory.",
  },
  // ── Input ─────────────────────────────────────────────────────────────────────────────────────────────────
  {
    key: "extraInputs",
    type: "keyValue",
    default: {},
    flags: ["--extra-inputs"],
    group: "Input",
    repeatable: true,
    metavar: "<key:value|json>",
    yaml: ["benchmark.endpoint.extra"],
    help: "Extra request-body fields, as key:value (the value is read as JSON when it parses, e.g. " +
      "ignore_eos:true) or as a JSON object. Later values win.",
  },
  {
    key: "headers",
    type: "headers",
    default: [],
    flags: ["--header"],
    short: "-H",
    group: "Input",
    repeatable: true,
    metavar: "<name:value|json>",
    yaml: ["benchmark.endpoint.headers"],
    help: "Extra HTTP header, as Name:Value or a JSON object. Credential values are redacted in logs and exports.",
  },
  {
    key: "inputFile",
    type: "path",
    flags: ["--input-file"],
    group: "Input",
    metavar: "<path>",
    yaml: ["benchmark.dataset.path"],
    help: "JSONL dataset file to send instead of synthetic prompts.",
  },
  {
    key: "customDatasetType",
    type: "enum",
    choices: DATASET_LOADERS,
    flags: ["--custom-dataset-type"],
    group: "Input",
    yaml: ["benchmark.dataset.format"],
    defaultDescription: "detected from the file",
    help: "Format of --input-file.",
  },
  {
    key: "datasetSamplingStrategy",
    type: "enum",
    choices: ["sequential", "random", "shuffle"],
    flags: ["--dataset-sampling-strategy"],
    group: "Input",
    yaml: ["benchmark.dataset.sampling"],
    defaultDescription: "shuffle for synthetic data, sequential for files",
    help: "Order in which dataset entries are sent: in order, random with replacement, or shuffled without " +
      "replacement.",
  },
  {
    key: "randomSeed",
    type: "int",
    min: 0,
    flags: ["--random-seed"],
    group: "Input",
    metavar: "<int>",
    env: "INFERMETER_RANDOM_SEED",
    yaml: ["random_seed", "benchmark.dataset.random_seed"],
    defaultDescription: "drawn at random and recorded",
    help: "Seed for every random choice (prompts, sampling, arrivals), so a run can be repeated exactly.",
  },
  {
    key: "configFile",
    type: "path",
    flags: ["--config"],
    short: "-f",
    group: "Input",
    metavar: "<file.yaml>",
    cliOnly: true,
    help: "YAML file with options (flat flag names or AIPerf's benchmark: layout); flags and environment " +
      "variables override it.",
  },
  // ── Conversation Input ────────────────────────────────────────────────────────────────────────────────────
  {
    key: "numDatasetEntries",
    type: "int",
    default: 100,
    min: 1,
    max: MAX_DATASET_ENTRIES,
    flags: ["--num-dataset-entries", "--num-prompts"],
    group: "Conversation Input",
    metavar: "<int>",
    yaml: ["benchmark.dataset.entries"],
    help: "Number of distinct synthetic prompts generated and reused during the run.",
  },
  {
    key: "conversationNum",
    type: "int",
    min: 1,
    max: MAX_DATASET_ENTRIES,
    flags: ["--conversation-num", "--num-conversations", "--num-sessions"],
    group: "Conversation Input",
    metavar: "<int>",
    defaultDescription: "--num-dataset-entries for synthetic data; 100 for random_pool",
    help: "Number of distinct conversations: synthetic ones generated, or drawn from a random_pool. The run " +
      "stops after this many sessions unless a request count or duration is given.",
  },
  {
    key: "conversationTurnMean",
    type: "int",
    default: 1,
    min: 1,
    max: MAX_TURNS,
    flags: ["--conversation-turn-mean", "--session-turns-mean"],
    group: "Conversation Input",
    metavar: "<int>",
    help: "Mean number of turns of a synthetic conversation (normal distribution, at least 1).",
  },
  {
    key: "conversationTurnStddev",
    type: "float",
    default: 0,
    min: 0,
    max: MAX_TURNS,
    flags: ["--conversation-turn-stddev", "--session-turns-stddev"],
    group: "Conversation Input",
    metavar: "<turns>",
    help: "Standard deviation of the number of turns of a synthetic conversation.",
  },
  {
    key: "conversationTurnDelayMean",
    type: "float",
    default: 0,
    min: 0,
    flags: ["--conversation-turn-delay-mean", "--session-turn-delay-mean"],
    group: "Conversation Input",
    metavar: "<ms>",
    help: "Mean think time between a synthetic conversation's turns, in ms after the previous answer.",
  },
  {
    key: "conversationTurnDelayStddev",
    type: "float",
    default: 0,
    min: 0,
    flags: ["--conversation-turn-delay-stddev", "--session-turn-delay-stddev"],
    group: "Conversation Input",
    metavar: "<ms>",
    help: "Standard deviation of the think time between turns, in ms.",
  },
  {
    key: "conversationTurnDelayRatio",
    type: "float",
    default: 1,
    min: 0,
    flags: ["--conversation-turn-delay-ratio", "--session-delay-ratio"],
    group: "Conversation Input",
    metavar: "<ratio>",
    help: "Multiplier of every think time between turns, synthetic or from the dataset (0 removes them).",
  },
  {
    key: "ignoreTraceDelays",
    type: "bool",
    default: false,
    flags: ["--ignore-trace-delays"],
    group: "Conversation Input",
    help: "Drop the dataset's timestamps and delays: turns go out as the load strategy allows.",
  },
  {
    key: "fixedSchedule",
    type: "bool",
    default: false,
    flags: ["--fixed-schedule"],
    group: "Load Generator",
    defaultDescription: "on when every conversation of the dataset has a timestamp",
    help: "Send each conversation at its dataset timestamp (trace replay); --no-fixed-schedule uses the load " +
      "options instead even for a timestamped dataset.",
  },
  {
    key: "fixedScheduleAutoOffset",
    type: "bool",
    default: false,
    flags: ["--fixed-schedule-auto-offset"],
    group: "Load Generator",
    help: "Shift the schedule so the first timestamp is sent at once.",
  },
  {
    key: "fixedScheduleStartOffset",
    type: "int",
    min: 0,
    flags: ["--fixed-schedule-start-offset"],
    group: "Load Generator",
    metavar: "<ms>",
    help: "Replay only conversations starting at or after this timestamp (ms); it is sent at once.",
  },
  {
    key: "fixedScheduleEndOffset",
    type: "int",
    min: 0,
    flags: ["--fixed-schedule-end-offset"],
    group: "Load Generator",
    metavar: "<ms>",
    defaultDescription: "the last timestamp",
    help: "Replay only conversations starting at or before this timestamp (ms).",
  },
  // ── Input Sequence Length ─────────────────────────────────────────────────────────────────────────────────
  {
    key: "syntheticInputTokensMean",
    type: "int",
    default: 550,
    min: 1,
    max: MAX_PROMPT_TOKENS,
    flags: ["--prompt-input-tokens-mean", "--synthetic-input-tokens-mean", "--isl"],
    group: "Input Sequence Length (ISL)",
    metavar: "<tokens>",
    yaml: ["benchmark.dataset.prompts.isl.mean"],
    help: "Mean length of synthetic prompts, in tokens.",
  },
  {
    key: "syntheticInputTokensStddev",
    type: "float",
    default: 0,
    min: 0,
    max: MAX_PROMPT_TOKENS,
    flags: ["--prompt-input-tokens-stddev", "--synthetic-input-tokens-stddev", "--isl-stddev"],
    group: "Input Sequence Length (ISL)",
    metavar: "<tokens>",
    yaml: ["benchmark.dataset.prompts.isl.stddev"],
    help: "Standard deviation of the synthetic prompt length (normal distribution).",
  },
  {
    key: "islBlockSize",
    type: "int",
    min: 1,
    flags: ["--prompt-input-tokens-block-size", "--synthetic-input-tokens-block-size", "--isl-block-size"],
    group: "Input Sequence Length (ISL)",
    metavar: "<tokens>",
    defaultDescription: "the trace format's (mooncake 512, bailian 16)",
    help: "Tokens per hash_id block when trace prompts are synthesized.",
  },
  // ── Output Sequence Length ────────────────────────────────────────────────────────────────────────────────
  {
    key: "outputTokensMean",
    type: "int",
    min: 1,
    flags: ["--prompt-output-tokens-mean", "--output-tokens-mean", "--osl"],
    group: "Output Sequence Length (OSL)",
    metavar: "<tokens>",
    yaml: ["benchmark.dataset.prompts.osl.mean"],
    defaultDescription: "not sent; the server decides",
    help: "Mean number of output tokens requested per response (sent as the max-tokens field).",
  },
  {
    key: "outputTokensStddev",
    type: "float",
    default: 0,
    min: 0,
    flags: ["--prompt-output-tokens-stddev", "--output-tokens-stddev", "--osl-stddev"],
    group: "Output Sequence Length (OSL)",
    metavar: "<tokens>",
    yaml: ["benchmark.dataset.prompts.osl.stddev"],
    help: "Standard deviation of the requested output length (normal distribution).",
  },
  // ── Load Generator ────────────────────────────────────────────────────────────────────────────────────────
  {
    key: "benchmarkDuration",
    type: "float",
    min: 0,
    exclusiveMin: true,
    flags: ["--benchmark-duration"],
    group: "Load Generator",
    metavar: "<seconds>",
    yaml: [`${PHASE}.duration`],
    help: "Stop sending new requests after this many seconds.",
  },
  {
    key: "benchmarkGracePeriod",
    type: "float",
    default: 30,
    min: 0,
    allowInfinity: true,
    flags: ["--benchmark-grace-period"],
    group: "Load Generator",
    metavar: "<seconds|inf>",
    yaml: [`${PHASE}.grace_period`],
    help: "After --benchmark-duration ends, wait this long for requests still in flight ('inf' waits for all).",
  },
  {
    key: "concurrencyRampDuration",
    type: "float",
    min: 0,
    flags: ["--concurrency-ramp-duration"],
    group: "Load Generator",
    metavar: "<seconds>",
    yaml: [`${PHASE}.concurrency_ramp`],
    help: "Grow the concurrency from 1 to --concurrency in even steps over this many seconds instead of opening " +
      "every stream at once (large runs: a server accepts connections only so fast).",
  },
  {
    key: "concurrency",
    type: "int",
    min: 1,
    flags: ["--concurrency"],
    group: "Load Generator",
    metavar: "<int>",
    yaml: [`${PHASE}.concurrency`],
    defaultDescription: "1 without --request-rate, else no cap",
    help: "Most requests in flight at once.",
  },
  {
    key: "requestRate",
    type: "float",
    min: 0,
    exclusiveMin: true,
    flags: ["--request-rate"],
    group: "Load Generator",
    metavar: "<req/s>",
    yaml: [`${PHASE}.rate`],
    help: "Target request rate in requests per second (open loop); combine with --concurrency to cap in-flight.",
  },
  {
    key: "arrivalPattern",
    type: "enum",
    choices: ["constant", "poisson", "gamma", "concurrency_burst"],
    default: "poisson",
    flags: ["--arrival-pattern", "--request-rate-mode"],
    group: "Load Generator",
    yaml: [`${PHASE}.type`],
    help: "Spacing of request arrivals under --request-rate: even, exponential (Poisson) or gamma.",
  },
  {
    key: "arrivalSmoothness",
    type: "float",
    min: 0,
    exclusiveMin: true,
    flags: ["--arrival-smoothness", "--vllm-burstiness"],
    group: "Load Generator",
    metavar: "<shape>",
    yaml: [`${PHASE}.smoothness`],
    help: "Gamma shape of arrivals (1 = Poisson, below 1 burstier, above 1 smoother); given alone it selects gamma.",
  },
  {
    key: "requestCount",
    type: "int",
    min: 1,
    flags: ["--request-count", "--num-requests"],
    group: "Load Generator",
    metavar: "<int>",
    yaml: [`${PHASE}.requests`],
    defaultDescription: "max(10, 2 × concurrency) unless --benchmark-duration is set",
    help: "Stop after this many requests; with --benchmark-duration, whichever comes first stops the run.",
  },
  {
    key: "failedRequestThreshold",
    type: "float",
    min: 0,
    max: 1,
    flags: ["--failed-request-threshold"],
    group: "Load Generator",
    metavar: "<ratio>",
    help: "Abort with a non-zero exit when the failed share of requests exceeds this ratio (0 to 1).",
  },
  // ── Warmup ────────────────────────────────────────────────────────────────────────────────────────────────
  {
    key: "warmupRequestCount",
    type: "int",
    min: 0,
    flags: ["--warmup-request-count", "--num-warmup-requests"],
    group: "Warmup",
    metavar: "<int>",
    yaml: ["benchmark.phases.warmup.requests"],
    defaultDescription: "no warmup",
    help: "Send this many requests before measuring; their results are left out of the report.",
  },
  // ── Goodput ───────────────────────────────────────────────────────────────────────────────────────────────
  {
    key: "goodput",
    type: "goodput",
    default: [],
    flags: ["--goodput"],
    group: "Goodput",
    metavar: "<tag:value ...>",
    yaml: ["benchmark.slos"],
    help: "Service-level objectives as space-separated metric_tag:value pairs in the metric's display unit, e.g. " +
      "'request_latency:250 inter_token_latency:10'; a request is good when it meets all of them.",
  },
  // ── Output ────────────────────────────────────────────────────────────────────────────────────────────────
  {
    key: "artifactDir",
    type: "path",
    default: "artifacts",
    flags: ["--output-artifact-dir", "--artifact-dir"],
    group: "Output",
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
    group: "Output",
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
    group: "Output",
    help: "How much to write: the summary only, plus one record per request, or plus raw requests and responses.",
  },
  // ── UI ────────────────────────────────────────────────────────────────────────────────────────────────────
  {
    key: "ui",
    type: "enum",
    choices: ["none", "simple", "dashboard"],
    flags: ["--ui-type", "--ui"],
    group: "UI",
    env: "INFERMETER_UI",
    yaml: ["benchmark.runtime.ui"],
    defaultDescription: "simple on a terminal, else none",
    resolvedByRule: true,
    help: "Progress display on stderr. 'dashboard' currently shows the simple progress bar.",
  },
  // ── Service ───────────────────────────────────────────────────────────────────────────────────────────────
  {
    key: "logLevel",
    type: "enum",
    choices: LOG_LEVELS,
    default: "INFO",
    flags: ["--log-level"],
    group: "Service",
    env: "INFERMETER_LOG_LEVEL",
    help: "Least severe log level written to stderr.",
  },
  {
    key: "logLevel",
    type: "switch",
    value: "DEBUG",
    flags: ["--verbose"],
    short: "-v",
    group: "Service",
    help: "Same as --log-level DEBUG.",
  },
  {
    key: "logLevel",
    type: "switch",
    value: "TRACE",
    flags: ["--extra-verbose"],
    short: "-vv",
    group: "Service",
    help: "Same as --log-level TRACE.",
  },
  // ── Workers ───────────────────────────────────────────────────────────────────────────────────────────────
  {
    key: "workers",
    type: "int",
    min: 1,
    max: 1024,
    flags: ["--workers-max", "--max-workers", "--workers"],
    group: "Workers",
    metavar: "<int>",
    env: "INFERMETER_WORKERS",
    yaml: ["benchmark.runtime.workers"],
    defaultDescription: "chosen from the CPU count and the load",
    help: "Number of engine workers (each a Deno Worker driving a share of the load).",
  },
  {
    key: "cpuDmaLatency",
    type: "int",
    min: 0,
    max: 2_000_000_000,
    flags: ["--cpu-dma-latency"],
    group: "Workers",
    metavar: "<us>",
    env: "INFERMETER_CPU_DMA_LATENCY",
    yaml: ["benchmark.runtime.cpu_dma_latency"],
    defaultDescription: "the machine's own setting",
    help: "Linux: hold /dev/cpu_dma_latency at this many µs while the run lasts, so idle cores wake within it " +
      "(0: they poll instead of sleeping). Cuts the wake-up delay in every timestamp at low load; " +
      "machine-wide, needs root, released at exit.",
  },
] as const satisfies readonly OptionSpec<string, OptionGroup>[];

/** AIPerf flags that do nothing here because infermeter already behaves that way. */
const NO_EFFECT_OPTIONS = [
  {
    type: "noEffect",
    arity: "none",
    flags: ["--no-server-metrics"],
    group: "Not Supported Yet",
    help: "Accepted for AIPerf compatibility; infermeter does not scrape server metrics yet.",
    reason: "infermeter does not scrape server metrics yet",
  },
  {
    type: "noEffect",
    arity: "none",
    flags: ["--no-gpu-telemetry"],
    group: "Not Supported Yet",
    help: "Accepted for AIPerf compatibility; infermeter does not collect GPU telemetry yet.",
    reason: "infermeter does not collect GPU telemetry yet",
  },
] as const satisfies readonly OptionSpec<string, OptionGroup>[];

/** Shorthand for the reserved AIPerf flags below. */
function reserved(arity: ValueArity, flags: readonly string[], short?: string): UnsupportedOptionSpec<OptionGroup> {
  return {
    type: "unsupported",
    arity,
    flags,
    short,
    group: "Not Supported Yet",
    help: "AIPerf option that infermeter does not support yet.",
  };
}

/** AIPerf flags users will try: parsed so they get a precise "not supported yet" error instead of "unknown". */
const UNSUPPORTED_OPTIONS: readonly UnsupportedOptionSpec<OptionGroup>[] = [
  reserved("required", ["--public-dataset"]),
  reserved("required", ["--hf-subset"]),
  reserved("required", ["--system-prompt"]),
  reserved("required", ["--prompt-batch-size", "--batch-size-text", "--batch-size"], "-b"),
  reserved("required", ["--prompt-prefix-pool-size", "--prefix-prompt-pool-size", "--num-prefix-prompts"]),
  reserved("required", ["--prompt-prefix-length", "--prefix-prompt-length"]),
  reserved("required", ["--shared-system-prompt-length"]),
  reserved("required", ["--seq-dist", "--sequence-distribution"]),
  reserved("required", ["--image-width-mean"]),
  reserved("required", ["--image-height-mean"]),
  reserved("required", ["--image-batch-size", "--batch-size-image"]),
  reserved("required", ["--audio-length-mean"]),
  reserved("required", ["--audio-batch-size", "--batch-size-audio"]),
  reserved("required", ["--video-batch-size", "--batch-size-video"]),
  reserved("required", ["--tokenizer-revision"]),
  reserved("none", ["--tokenizer-trust-remote-code"]),
  reserved("none", ["--apply-chat-template"]),
  reserved("required", ["--prefill-concurrency"]),
  reserved("required", ["--request-rate-ramp-duration"]),
  reserved("required", ["--user-centric-rate"]),
  reserved("required", ["--num-users"]),
  reserved("required", ["--request-cancellation-rate"]),
  reserved("required", ["--request-cancellation-delay"]),
  reserved("required", ["--warmup-duration"]),
  reserved("required", ["--warmup-concurrency"]),
  reserved("required", ["--warmup-request-rate"]),
  reserved("required", ["--num-warmup-sessions"]),
  reserved("required", ["--warmup-grace-period"]),
  reserved("required", ["--slice-duration"]),
  reserved("none", ["--export-http-trace"]),
  reserved("none", ["--export-outputs-json"]),
  reserved("none", ["--auto-plot"]),
  reserved("optional", ["--server-metrics"]),
  reserved("optional", ["--gpu-telemetry"]),
  reserved("required", ["--num-profile-runs"]),
  reserved("required", ["--api-port"]),
  reserved("required", ["--api-host"]),
  reserved("required", ["--record-processors", "--record-processor-service-count"]),
  reserved("required", ["--stats-interval"]),
  reserved("required", ["--wait-for-model-timeout"]),
  reserved("required", ["--transport", "--transport-type"]),
  reserved("required", ["--url-strategy"]),
];

const PROFILE_OPTIONS = [...VALUE_OPTIONS, ...NO_EFFECT_OPTIONS, ...UNSUPPORTED_OPTIONS] as const;

/** The table's literal type, from which `ProfileConfig` is derived. */
export type ProfileOptionTable = typeof PROFILE_OPTIONS;

/** A `ProfileConfig` field written by an option. */
export type OptionKey = OptionKeyOf<ProfileOptionTable>;

/** Every option of `infermeter profile`, in `--help` order. */
export const OPTION_TABLE: readonly OptionSpec<OptionKey, OptionGroup>[] = PROFILE_OPTIONS;

/** `infermeter profile`: the table plus what `--help` shows around it. */
export const PROFILE_COMMAND: Command<ProfileOptionTable> = defineCommand({
  name: "profile",
  description: "Benchmark an OpenAI-compatible inference server. Flags, aliases and YAML keys follow AIPerf's " +
    "'aiperf profile'; precedence is defaults < YAML (-f) < environment < flags.",
  options: PROFILE_OPTIONS,
  groups: OPTION_GROUPS,
  unsupportedHeading: "AIPerf options recognised but not supported yet (using them is an error, or a warning where " +
    "they would change nothing):",
});

/** The option a flag (`--isl`, `-m`) belongs to, or undefined. Negated booleans (`--no-x`) resolve to `--x`. */
export function findOptionByFlag(flag: string): OptionSpec | undefined {
  return PROFILE_COMMAND.index.find(flag);
}

/** Every flag spelling accepted on the command line, including `--no-x` for booleans. */
export function allFlagNames(): readonly string[] {
  return PROFILE_COMMAND.index.flagNames;
}
