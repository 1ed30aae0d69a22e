/**
 * The options of `infermeter peers`, declared once: its parser and `--help` come from here. The operand is a run
 * directory (one with `profile_export.jsonl`, infermeter's or AIPerf's).
 */
import { type Command, defineCommand } from "../config/command_spec.ts";
import type { OptionSpec } from "../base/option_spec.ts";
import { PEERS } from "../report/peers/peer_registry.ts";

const PEERS_OPTIONS = [
  {
    key: "peerMetrics",
    type: "list",
    items: "text",
    repeatable: true,
    default: ["all"],
    flags: ["--peer-metrics", "--tools"],
    group: "Options",
    metavar: "<tools>",
    help: `Tools whose definitions to apply, comma-separated: ${PEERS.names().join(", ")}, or all.`,
  },
  {
    key: "output",
    type: "path",
    flags: ["--output"],
    short: "-o",
    group: "Options",
    metavar: "<file>",
    defaultDescription: "<run>/peer_metrics.json",
    help: "Where to write the JSON.",
  },
  {
    key: "json",
    type: "bool",
    default: false,
    negatable: false,
    flags: ["--json"],
    group: "Options",
    help: "Print peer_metrics.json to stdout instead of the table.",
  },
] as const satisfies readonly OptionSpec[];

/** `infermeter peers`. */
export const PEERS_COMMAND: Command<typeof PEERS_OPTIONS> = defineCommand({
  name: "peers",
  usage: "<run-dir> [options]",
  description: "Report a finished run as other benchmark tools would: vLLM's and SGLang's bench serve, GuideLLM, " +
    "LLMPerf and GenAI-Perf, each with its own metric definitions (TPOT with or without the first token, ITL per " +
    "chunk or per token, which requests count, which duration), computed from the run's profile_export.jsonl " +
    "(infermeter's or AIPerf's). Writes peer_metrics.json with every value, where each tool defines it, and why it " +
    "differs from infermeter's own metric. When the records carry the server's own per-request timing (llama.cpp, TGI, " +
    "OpenAI, SGLang), also writes server_timing_split.json and prints where the time went.",
  options: PEERS_OPTIONS,
  operands: "accept",
});
