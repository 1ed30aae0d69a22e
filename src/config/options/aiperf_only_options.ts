/**
 * AIPerf 0.13 `profile` options that infermeter accepts without doing what AIPerf does, so that every AIPerf
 * command line parses (`tests/config/aiperf_option_walk_test.ts` walks AIPerf's whole list):
 *
 * - `NO_EFFECT_OPTIONS`: options that change nothing here, by design or because what they ask for does not apply
 *   to one offline binary (ZMQ addresses, AIPerf's services); using one prints a one-line notice saying why.
 * - `PENDING_AIPERF_OPTIONS`: options of features not built yet, each named by the feature it belongs to; using
 *   one is an input error ("not built yet"), never silently ignored. Whoever builds a feature moves its options
 *   into a group file with their real declaration and deletes them here.
 */
import type { NoEffectOptionSpec, UnsupportedOptionSpec, ValueArity } from "../../base/option_spec.ts";

type ReservedGroup = "Not Supported Yet";

function noEffect(arity: ValueArity, flags: readonly string[], reason: string): NoEffectOptionSpec<ReservedGroup> {
  return { type: "noEffect", arity, flags, reason, group: "Not Supported Yet", help: `Accepted; ${reason}.` };
}

/** Accepted with a notice: they change nothing here. */
export const NO_EFFECT_OPTIONS: readonly NoEffectOptionSpec<ReservedGroup>[] = [
  noEffect(
    "none",
    ["--reset-kv-cache"],
    "infermeter does not reset the server's KV cache before a run; restart or reset the server yourself",
  ),
  noEffect(
    "required",
    ["--reset-kv-cache-timeout-seconds"],
    "infermeter does not reset the server's KV cache (--reset-kv-cache)",
  ),
  noEffect("required", ["--reset-kv-cache-path"], "infermeter does not reset the server's KV cache (--reset-kv-cache)"),
  noEffect(
    "none",
    ["--server-profiler"],
    "infermeter does not start or stop a server profiler; start it around the run yourself",
  ),
  noEffect(
    "required",
    ["--server-profiler-timeout-seconds"],
    "infermeter does not drive a server profiler (--server-profiler)",
  ),
  noEffect(
    "required",
    ["--server-profiler-start-path"],
    "infermeter does not drive a server profiler (--server-profiler)",
  ),
  noEffect(
    "required",
    ["--server-profiler-stop-path"],
    "infermeter does not drive a server profiler (--server-profiler)",
  ),
  noEffect(
    "none",
    ["--uuid-and-strip"],
    "infermeter sends every image in full; it does not strip repeated images for vLLM's multimodal cache",
  ),
  noEffect(
    "none",
    ["--network-latency-automatic"],
    "infermeter does not subtract a measured network round trip; its timings start when the request is written, on loopback or the LAN",
  ),
  noEffect("required", ["--network-latency-mean"], "infermeter does not subtract a network latency from its timings"),
  noEffect(
    "required",
    ["--network-latency-ping-interval"],
    "infermeter does not measure the network latency during the run",
  ),
  noEffect(
    "none",
    ["--export-http-trace"],
    "the JSONL records already carry each request's timestamps (connect, sent, first byte, end); no separate HTTP trace is written",
  ),
  noEffect(
    "none",
    ["--show-trace-timing"],
    "the console has no HTTP trace timing table; the JSONL records carry those timestamps",
  ),
  noEffect(
    "none",
    ["--export-outputs-json"],
    "generated texts are in the raw export (--export-level raw); no outputs.json is written",
  ),
  noEffect(
    "none",
    ["--auto-plot", "--no-auto-plot"],
    "every run writes report.html with its charts; draw PNGs with 'infermeter plot <dir>'",
  ),
  noEffect("none", ["--plot-required"], "charts are drawn by 'infermeter plot <dir>' (report.html is always written)"),
  noEffect("required", ["--stats-interval"], "the dashboard and its log line refresh on their own schedule"),
  noEffect(
    "required",
    ["--record-processor-service-count", "--record-processors"],
    "records are processed in this process (a counting Worker), without AIPerf's services",
  ),
  noEffect("required", ["--zmq-host"], "infermeter runs as one process with Workers, without ZMQ"),
  noEffect("required", ["--zmq-ipc-path"], "infermeter runs as one process with Workers, without ZMQ"),
  noEffect("none", ["--zmq-dual-bind"], "infermeter runs as one process with Workers, without ZMQ"),
  noEffect(
    "none",
    ["--tokenizer-trust-remote-code"],
    "infermeter reads tokenizer.json files only and never runs code from a repository",
  ),
  noEffect(
    "required",
    ["--bo-constraint-mode"],
    "deprecated in AIPerf 0.13 and read by none of its planners; the Bayesian search always weighs its expected " +
      "improvement by the probability of meeting the --search-sla constraints",
  ),
  noEffect(
    "required",
    ["--server-metrics-formats"],
    "server metrics are always written as server_metrics_export.json and .csv (AIPerf's default formats)",
  ),
];

/** Options of features not built yet: an input error naming the feature. */
export const PENDING_AIPERF_OPTIONS: readonly UnsupportedOptionSpec<ReservedGroup>[] = [
  // None: every AIPerf 0.13 option is built. An option of a feature still to come is declared here as
  // `{ type: "unsupported", pending: "<the feature>", arity, flags, group: "Not Supported Yet", help }`.
];
