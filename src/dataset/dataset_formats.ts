/**
 * The custom dataset formats as declared, without their readers: each format's name, `--help` line, own `profile`
 * options and the other formats' options it reads — what the option table, `--help`, the configuration's checks and
 * `plugins` need. Each reader (`<format>_loader.ts`) starts from its declaration here and is imported only when a
 * dataset file is read (`dataset_loaders.ts`), so a run with synthetic prompts loads none of them.
 */
import type { OptionSpec } from "../base/option_spec.ts";
import type { DatasetFormat } from "./dataset_loader.ts";
import { SYNTHESIS_KEYS } from "./trace_synthesis.ts";

const TRACES = "(mooncake_trace, bailian_trace, burst_gpt_trace)";

/** `--synthesis-*`: the trace reshaped before it is replayed (`trace_synthesis.ts`). */
const SYNTHESIS_OPTIONS = [
  {
    key: SYNTHESIS_KEYS.speedupRatio,
    type: "float",
    min: 0,
    exclusiveMin: true,
    flags: ["--synthesis-speedup-ratio"],
    group: "Synthesis",
    metavar: "<ratio>",
    defaultDescription: "1 (recorded speed)",
    help: `Trace synthesis ${TRACES}: divide every timestamp by this (2 replays twice as fast).`,
  },
  {
    key: SYNTHESIS_KEYS.prefixLenMultiplier,
    type: "float",
    min: 0,
    exclusiveMin: true,
    flags: ["--synthesis-prefix-len-multiplier"],
    group: "Synthesis",
    metavar: "<factor>",
    defaultDescription: "1",
    help: `Trace synthesis ${TRACES}: scale the shared prefix of each request (its leading hash_ids used more ` +
      "than once in the trace) by this many blocks.",
  },
  {
    key: SYNTHESIS_KEYS.prefixRootMultiplier,
    type: "int",
    min: 1,
    max: 1_000_000,
    flags: ["--synthesis-prefix-root-multiplier"],
    group: "Synthesis",
    metavar: "<trees>",
    defaultDescription: "1",
    help: `Trace synthesis ${TRACES}: spread the requests at random (seeded) over this many independent copies ` +
      "of the prefix tree, so prefixes are shared less.",
  },
  {
    key: SYNTHESIS_KEYS.promptLenMultiplier,
    type: "float",
    min: 0,
    exclusiveMin: true,
    flags: ["--synthesis-prompt-len-multiplier"],
    group: "Synthesis",
    metavar: "<factor>",
    defaultDescription: "1",
    help: `Trace synthesis ${TRACES}: scale the part of each prompt after its shared prefix (its own tokens).`,
  },
  {
    key: SYNTHESIS_KEYS.outputLenMultiplier,
    type: "float",
    min: 0,
    flags: ["--synthesis-output-len-multiplier"],
    group: "Synthesis",
    metavar: "<factor>",
    defaultDescription: "1",
    help: "Trace synthesis (mooncake_trace, bailian_trace, burst_gpt_trace, baseten_trace): scale every " +
      "output_length (rounded, at least 1).",
  },
  {
    key: SYNTHESIS_KEYS.maxIsl,
    type: "int",
    min: 1,
    flags: ["--synthesis-max-isl"],
    group: "Synthesis",
    metavar: "<tokens>",
    defaultDescription: "no limit",
    help: `Trace synthesis ${TRACES}: leave out requests whose input_length is above this (and cap synthesized ` +
      "lengths at it); baseten_trace too. Agent traces (weka_trace, tracelab, the Weka datasets): their own requests.",
  },
  {
    key: SYNTHESIS_KEYS.maxOsl,
    type: "int",
    min: 1,
    flags: ["--synthesis-max-osl"],
    group: "Synthesis",
    metavar: "<tokens>",
    defaultDescription: "no limit",
    help: `Trace synthesis ${TRACES}: cut every output_length above this to this; baseten_trace too. Agent ` +
      "traces (weka_trace, tracelab, the Weka datasets): their own requests' max tokens, not their sub-agents'.",
  },
] as const satisfies readonly OptionSpec[];

/** The keys of the options every hash-id trace format reads (the block size and trace synthesis). */
export const HASH_TRACE_READS = [
  "islBlockSize",
  ...Object.values(SYNTHESIS_KEYS),
] as const;

/** The option of the hash-id trace formats (mooncake, bailian): tokens per `hash_id` block. */
export const TRACE_BLOCK_SIZE_KEY = "islBlockSize";

export const MOONCAKE_OPTIONS = [
  {
    key: TRACE_BLOCK_SIZE_KEY,
    type: "int",
    min: 1,
    max: 1_000_000,
    flags: ["--prompt-input-tokens-block-size", "--synthetic-input-tokens-block-size", "--isl-block-size"],
    group: "Input Sequence Length (ISL)",
    metavar: "<tokens>",
    defaultDescription: "the trace format's (mooncake 512, bailian 16)",
    help: "Tokens per hash_id block when trace prompts are synthesized (mooncake_trace, bailian_trace).",
  },
  ...SYNTHESIS_OPTIONS,
] as const satisfies readonly OptionSpec[];

export const RUN_BUNDLE = "run_bundle";
export const TIME_SCALE_KEY = "replayTimeScale";

export const RUN_BUNDLE_OPTIONS = [
  {
    key: TIME_SCALE_KEY,
    type: "float",
    min: 0,
    exclusiveMin: true,
    max: 1000,
    flags: ["--time-scale", "--replay-time-scale"],
    group: "Input",
    metavar: "<factor>",
    defaultDescription: "1 (the original schedule)",
    help: "run_bundle datasets (infermeter replay): multiply every send offset and think time by this factor " +
      "(0.5 sends the same requests twice as fast).",
  },
] as const satisfies readonly OptionSpec[];

/** baseten_trace's own options. */
export const BASETEN_OPTIONS = [
  {
    key: "traceSessionSampleRatio",
    type: "float",
    min: 0,
    exclusiveMin: true,
    max: 1,
    flags: ["--trace-session-sample-ratio"],
    group: "Input",
    metavar: "<ratio>",
    defaultDescription: "every session",
    help: "Fraction of trace sessions to replay, sampled whole (seeded by --random-seed); baseten_trace.",
  },
  {
    key: "maxIdleGapCapSeconds",
    type: "float",
    min: 0,
    exclusiveMin: true,
    max: 86_400,
    flags: ["--max-idle-gap-cap-seconds"],
    group: "Conversation Input",
    metavar: "<seconds>",
    defaultDescription: "no cap",
    help: "Shorten every idle gap between consecutive requests to at most this long (after --replay-speedup); " +
      "baseten_trace.",
  },
  {
    key: "replaySpeedup",
    type: "float",
    min: 0,
    exclusiveMin: true,
    max: 1_000_000,
    flags: ["--replay-speedup"],
    group: "Conversation Input",
    metavar: "<factor>",
    defaultDescription: "1 (recorded time)",
    help: "Replay a trace this many times faster than recorded (timestamps and think times divided); " +
      "baseten_trace.",
  },
  {
    key: "openLoopReplay",
    type: "bool",
    default: true,
    flags: ["--open-loop-replay"],
    group: "Conversation Input",
    help: "Send every request at its recorded time (a continuation never before its predecessor's answer); " +
      "--no-open-loop-replay sends continuations a recorded think time after the answer. baseten_trace.",
  },
  {
    key: "openLoopStrict",
    type: "bool",
    default: false,
    flags: ["--open-loop-strict"],
    group: "Conversation Input",
    help: "In open-loop replay, make every trace row a session of its own, each at its recorded time; " +
      "baseten_trace.",
  },
  {
    key: "omitKvHints",
    type: "bool",
    default: false,
    flags: ["--omit-kv-hints"],
    group: "Conversation Input",
    help: "Leave the recorded hash_ids and block_size out of request bodies (servers that refuse unknown " +
      "fields); baseten_trace.",
  },
  {
    key: "forceMinTokens",
    type: "bool",
    default: true,
    flags: ["--force-min-tokens"],
    group: "Conversation Input",
    help: "Send min_tokens equal to the recorded output length so replies are as long as recorded; " +
      "--no-force-min-tokens lets the model stop on its own. baseten_trace.",
  },
] as const satisfies readonly OptionSpec[];

/** `--use-think-time-only`, `--trace-idle-gap-cap-seconds`, `--max-context-length`: the agent trace formats'. */
export const AGENT_TRACE_OPTIONS = [
  {
    key: "useThinkTimeOnly",
    type: "bool",
    default: false,
    flags: ["--use-think-time-only"],
    group: "Input",
    conflictsWith: [{ key: "ignoreTraceDelays", why: "sets the think times that --ignore-trace-delays drops" }],
    help: "Agent traces (weka_trace, tracelab): wait each request's recorded think_time after the previous answer, " +
      "instead of the recorded idle gap between the previous request's end and this one's start.",
  },
  {
    key: "traceIdleGapCapSeconds",
    type: "float",
    min: 0,
    flags: ["--trace-idle-gap-cap-seconds"],
    group: "Load Generator",
    defaultDescription: "no cap",
    metavar: "<seconds>",
    help: "Agent traces (weka_trace, tracelab): cut every gap between consecutive request starts of a trace longer " +
      "than this to this, moving everything after it earlier (the recorded idle periods of a coding session).",
  },
  {
    key: "maxContextLength",
    type: "int",
    min: 1,
    flags: ["--max-context-length"],
    group: "Input",
    defaultDescription: "every trace",
    metavar: "<tokens>",
    help: "Agent traces (weka_trace, tracelab, the Weka public datasets): leave out traces whose largest request " +
      "(input + requested output tokens) exceeds this, so none is refused by a server with this context window.",
  },
] as const satisfies readonly OptionSpec[];

/** SPEED-Bench's qualitative categories, 80 prompts each. */
export const QUALITATIVE_CATEGORIES = [
  "coding",
  "humanities",
  "math",
  "multilingual",
  "qa",
  "rag",
  "reasoning",
  "roleplay",
  "stem",
  "summarization",
  "writing",
] as const;
/** Its throughput splits, by input length. */
export const THROUGHPUT_SPLITS = ["1k", "2k", "8k", "16k", "32k"] as const;
/** The entropy tiers of its throughput splits. */
export const ENTROPY_TIERS = ["low_entropy", "mixed", "high_entropy"] as const;

/** One SPEED-Bench type: a split file, or the rows of one category in it. */
export interface SpeedBenchSpec {
  readonly name: string;
  readonly description: string;
  /** The split's file name, which auto-detection requires. */
  readonly splitFile: string;
  /** Only rows of this category; undefined = the whole split. */
  readonly category?: string;
}

function speedBenchSpecs(): SpeedBenchSpec[] {
  const out: SpeedBenchSpec[] = [{
    name: "speed_bench_qualitative",
    description: "SPEED-Bench qualitative split (qualitative.jsonl): 880 prompts over 11 domains.",
    splitFile: "qualitative.jsonl",
  }];
  for (const category of QUALITATIVE_CATEGORIES) {
    out.push({
      name: `speed_bench_${category}`,
      description: `SPEED-Bench qualitative rows of category ${category} (80 prompts).`,
      splitFile: "qualitative.jsonl",
      category,
    });
  }
  for (const split of THROUGHPUT_SPLITS) {
    const splitFile = `throughput_${split}.jsonl`;
    out.push({
      name: `speed_bench_throughput_${split}`,
      description: `SPEED-Bench throughput split at ~${split.toUpperCase()} input tokens (${splitFile}).`,
      splitFile,
    });
  }
  for (const split of THROUGHPUT_SPLITS) {
    const splitFile = `throughput_${split}.jsonl`;
    for (const tier of ENTROPY_TIERS) {
      out.push({
        name: `speed_bench_throughput_${split}_${tier}`,
        description: `SPEED-Bench ~${split.toUpperCase()}-token rows of entropy tier ${tier}.`,
        splitFile,
        category: tier,
      });
    }
  }
  return out;
}

/** The 32 SPEED-Bench types, in AIPerf's order (qualitative and its categories, then each throughput split). */
export const SPEED_BENCH_SPECS: readonly SpeedBenchSpec[] = speedBenchSpecs();

export const SINGLE_TURN_FORMAT = {
  name: "single_turn",
  description: "JSONL, one request per line: text(s), optional output_length, role, extra fields.",
} as const satisfies DatasetFormat;

export const MULTI_TURN_FORMAT = {
  name: "multi_turn",
  description: "JSONL, one conversation per line: session_id and turns (single_turn objects) with delays.",
} as const satisfies DatasetFormat;

export const RANDOM_POOL_FORMAT = {
  name: "random_pool",
  description: "JSONL pool(s) of prompts (a file, or a directory of pool files) drawn at random per request.",
} as const satisfies DatasetFormat;

export const MOONCAKE_TRACE_FORMAT = {
  name: "mooncake_trace",
  description: "JSONL trace: timestamp/delay, input_length with hash_ids (or text_input, payload), output_length.",
  options: MOONCAKE_OPTIONS,
} as const satisfies DatasetFormat;

export const BAILIAN_TRACE_FORMAT = {
  name: "bailian_trace",
  description: "Alibaba Bailian JSONL trace: chat_id chains, timestamps in seconds, hash_ids in 16-token blocks.",
  reads: HASH_TRACE_READS,
} as const satisfies DatasetFormat;

export const BURST_GPT_TRACE_FORMAT = {
  name: "burst_gpt_trace",
  description: "BurstGPT CSV trace: Timestamp (s), Request tokens, Response tokens; prompts synthesized.",
  reads: HASH_TRACE_READS,
} as const satisfies DatasetFormat;

export const BASETEN_TRACE_FORMAT = {
  name: "baseten_trace",
  description: "Baseten Parquet trace: verbatim prompts, timestamps, sessions, output lengths, KV-cache hashes.",
  options: BASETEN_OPTIONS,
  reads: Object.values(SYNTHESIS_KEYS),
} as const satisfies DatasetFormat;

export const RAW_PAYLOAD_FORMAT = {
  name: "raw_payload",
  description: "JSONL of complete request bodies sent verbatim; a directory: one conversation per .jsonl file.",
} as const satisfies DatasetFormat;

export const INPUTS_JSON_FORMAT = {
  name: "inputs_json",
  description: "An inputs.json from an earlier run (infermeter or AIPerf): each session's payloads replayed verbatim.",
} as const satisfies DatasetFormat;

export const DAG_JSONL_FORMAT = {
  name: "dag_jsonl",
  description: "JSONL agent DAGs: conversations whose turns spawn or fork sub-agent conversations, joined back later.",
} as const satisfies DatasetFormat;

export const RUN_BUNDLE_FORMAT = {
  name: RUN_BUNDLE,
  description: "A run bundle (profile --bundle): the original run's request bodies, sessions and schedule.",
  options: RUN_BUNDLE_OPTIONS,
} as const satisfies DatasetFormat;

export const SAGEMAKER_DATA_CAPTURE_FORMAT = {
  name: "sagemaker_data_capture",
  description:
    "Amazon SageMaker Data Capture JSONL (file or directory): captured chat requests replayed at their times.",
} as const satisfies DatasetFormat;

export const WEKA_TRACE_FORMAT = {
  name: "weka_trace",
  description: "Weka agent traces (JSON file or directory): requests with KV-cache block ids and sub-agents.",
  options: AGENT_TRACE_OPTIONS,
  reads: [SYNTHESIS_KEYS.maxIsl, SYNTHESIS_KEYS.maxOsl],
} as const satisfies DatasetFormat;

export const TRACELAB_FORMAT = {
  name: "tracelab",
  description: "TraceLab agentic-coding rounds (JSONL, .gz too), rebuilt into agent traces with their sub-agents.",
  reads: [
    ...AGENT_TRACE_OPTIONS.map((o): string => o.key),
    TRACE_BLOCK_SIZE_KEY,
    SYNTHESIS_KEYS.maxIsl,
    SYNTHESIS_KEYS.maxOsl,
  ],
} as const satisfies DatasetFormat;
