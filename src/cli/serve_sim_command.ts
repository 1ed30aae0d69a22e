/**
 * The options of `infermeter serve-sim`, declared once: its parser and `--help` come from here. Each option writes
 * the `SimOptions` field of the same name (`--fast` aside, which zeroes both latencies), with the simulator's own
 * defaults (`SIM_DEFAULTS`); the simulator validates the ranges (`resolveSimOptions`).
 */
import { type Command, defineCommand } from "../config/command_spec.ts";
import type { OptionSpec } from "../base/option_spec.ts";
import { SIM_DEFAULTS, SIM_SERVER_TIMING_STYLES, type SimOptions } from "../sim/sim_options.ts";
import { SIM_ROUTES } from "../sim/sim_route_registry.ts";
import { SIM_APP_ROUTES } from "../sim/sim_app_routes.ts";
import { SERVER_INFO_ROUTES } from "../sim/server_info_routes.ts";

/** Configuration keys of serve-sim: the `SimOptions` fields, plus `fast` and `tokenizer`. */
export type ServeSimKey = keyof SimOptions | "fast" | "tokenizer";

const SERVE_SIM_OPTIONS = [
  {
    key: "host",
    type: "string",
    default: SIM_DEFAULTS.host,
    flags: ["--host"],
    group: "Options",
    metavar: "<host>",
    help: "Interface to bind (loopback by default).",
  },
  {
    key: "port",
    type: "int",
    default: SIM_DEFAULTS.port,
    flags: ["--port"],
    short: "-p",
    group: "Options",
    metavar: "<port>",
    help: "TCP port; 0 picks a free one.",
  },
  {
    key: "models",
    type: "list",
    items: "text",
    default: SIM_DEFAULTS.models,
    flags: ["--models"],
    group: "Options",
    metavar: "<names>",
    help: "Comma-separated model names listed by /v1/models.",
  },
  {
    key: "strictModel",
    type: "bool",
    default: SIM_DEFAULTS.strictModel,
    flags: ["--strict-model"],
    group: "Options",
    defaultDescription: "accept any name",
    help: "Answer 404 for models not in --models.",
  },
  {
    key: "apiKey",
    type: "string",
    flags: ["--api-key"],
    group: "Options",
    metavar: "<key>",
    secret: true,
    help: "Require 'Authorization: Bearer <key>' on /v1/* routes (401 otherwise).",
  },
  {
    key: "ttftMs",
    type: "float",
    default: SIM_DEFAULTS.ttftMs,
    flags: ["--ttft"],
    group: "Options",
    metavar: "<ms>",
    help: "Time to first token in ms.",
  },
  {
    key: "itlMs",
    type: "float",
    default: SIM_DEFAULTS.itlMs,
    flags: ["--itl"],
    group: "Options",
    metavar: "<ms>",
    help: "Inter-token latency in ms.",
  },
  {
    key: "prefillMsPerToken",
    type: "float",
    default: SIM_DEFAULTS.prefillMsPerToken,
    flags: ["--prefill-ms-per-token"],
    group: "Options",
    metavar: "<ms>",
    help: "Prefill time per prompt token, added to TTFT (TTFT = ttft + prompt tokens x this).",
  },
  {
    key: "ttftJitter",
    type: "float",
    default: SIM_DEFAULTS.ttftJitter,
    flags: ["--ttft-jitter"],
    group: "Options",
    metavar: "<cv>",
    help: "Lognormal jitter of TTFT, coefficient of variation.",
  },
  {
    key: "itlJitter",
    type: "float",
    default: SIM_DEFAULTS.itlJitter,
    flags: ["--itl-jitter"],
    group: "Options",
    metavar: "<cv>",
    help: "Lognormal jitter of each ITL gap, coefficient of variation.",
  },
  {
    key: "slots",
    type: "int",
    default: SIM_DEFAULTS.slots,
    min: 0,
    max: 1_000_000,
    flags: ["--slots", "--max-num-seqs"],
    group: "Options",
    metavar: "<n>",
    defaultDescription: "0: no limit",
    help: "Requests that generate at once; the others wait in a FIFO queue and the wait counts in their TTFT " +
      "(see Capacity below).",
  },
  {
    key: "tokensPerChunk",
    type: "int",
    default: SIM_DEFAULTS.tokensPerChunk,
    flags: ["--tokens-per-chunk"],
    group: "Options",
    metavar: "<n>",
    help: "Tokens per streamed SSE event.",
  },
  {
    key: "fast",
    type: "bool",
    default: false,
    flags: ["--fast"],
    group: "Options",
    help: "Zero latency (same as --ttft 0 --itl 0).",
  },
  {
    key: "maxDefaultTokens",
    type: "int",
    default: SIM_DEFAULTS.maxDefaultTokens,
    flags: ["--max-default-tokens"],
    group: "Options",
    metavar: "<n>",
    help: "Cap of the output length of requests without max tokens.",
  },
  {
    key: "eosRate",
    type: "float",
    default: SIM_DEFAULTS.eosRate,
    flags: ["--eos-rate"],
    group: "Options",
    metavar: "<p>",
    help: "Probability (0-1) that each token after min_tokens ends a capped response.",
  },
  {
    key: "reasoning",
    type: "bool",
    default: SIM_DEFAULTS.reasoning,
    flags: ["--reasoning"],
    group: "Options",
    help: "Reasoning model: reasoning_effort low/medium/high = 100/250/500 tokens (default medium).",
  },
  {
    key: "reasoningTokens",
    type: "int",
    default: SIM_DEFAULTS.reasoningTokens,
    flags: ["--reasoning-tokens"],
    group: "Options",
    metavar: "<n>",
    help: "Reasoning tokens per chat response.",
  },
  {
    key: "errorRate",
    type: "float",
    default: SIM_DEFAULTS.errorRate,
    flags: ["--error-rate"],
    group: "Options",
    metavar: "<percent>",
    help: "Percentage (0-100) of requests answered with HTTP 500.",
  },
  {
    key: "usageDetails",
    type: "bool",
    default: SIM_DEFAULTS.usageDetails,
    flags: ["--usage-details"],
    group: "Options",
    help: "Report OpenAI's usage details: prompt_tokens_details.cached_tokens (a prefix cache over earlier " +
      "prompts), completion_tokens_details reasoning and accepted/rejected prediction tokens (for a 'prediction').",
  },
  {
    key: "specDecodeTokens",
    type: "int",
    default: SIM_DEFAULTS.specDecodeTokens,
    min: 0,
    max: 64,
    flags: ["--spec-decode-tokens"],
    group: "Options",
    metavar: "<k>",
    help: "Speculative decoding: k draft tokens per step; chat and completions answers report vLLM's per-request " +
      "metrics.speculative_decoding (seeded). 0 = off.",
  },
  {
    key: "specDecodeAcceptance",
    type: "float",
    default: SIM_DEFAULTS.specDecodeAcceptance,
    min: 0,
    max: 1,
    flags: ["--spec-decode-acceptance"],
    group: "Options",
    metavar: "<p>",
    help: "With --spec-decode-tokens: probability each draft token is accepted, up to a step's first rejection.",
  },
  {
    key: "dcgmGpus",
    type: "int",
    default: SIM_DEFAULTS.dcgmGpus,
    min: 0,
    max: 64,
    flags: ["--dcgm-gpus"],
    group: "Options",
    metavar: "<n>",
    help: "Also serve a DCGM-exporter-style /dcgm/metrics with this many synthetic GPUs (power, utilization, " +
      "memory, energy following the load).",
  },
  {
    key: "embeddingDimensions",
    type: "int",
    default: SIM_DEFAULTS.embeddingDimensions,
    flags: ["--embedding-dimensions"],
    group: "Options",
    metavar: "<n>",
    help: "Length of the vectors /v1/embeddings returns (deterministic per input text).",
  },
  {
    key: "loadDelaySeconds",
    type: "float",
    default: SIM_DEFAULTS.loadDelaySeconds,
    flags: ["--load-delay"],
    group: "Options",
    metavar: "<seconds>",
    help: "Answer 503 on /v1/health/ready and /health for this long after start, like a NIM loading its model.",
  },
  {
    key: "disconnectRate",
    type: "float",
    default: SIM_DEFAULTS.disconnectRate,
    flags: ["--disconnect-rate"],
    group: "Options",
    metavar: "<percent>",
    help: "Percentage (0-100) of requests whose connection is dropped after the first part of the answer.",
  },
  {
    key: "stallRate",
    type: "float",
    default: SIM_DEFAULTS.stallRate,
    flags: ["--stall-rate"],
    group: "Options",
    metavar: "<percent>",
    help: "Percentage (0-100) of requests held for --stall-ms before any byte of the answer.",
  },
  {
    key: "stallMs",
    type: "float",
    default: SIM_DEFAULTS.stallMs,
    flags: ["--stall-ms"],
    group: "Options",
    metavar: "<ms>",
    help: "How long a stalled request waits before its answer starts.",
  },
  {
    key: "seed",
    type: "int",
    flags: ["--seed"],
    group: "Options",
    metavar: "<n>",
    defaultDescription: "random per start",
    help: "Seed of every random choice.",
  },
  {
    key: "emitSendTimes",
    type: "bool",
    default: SIM_DEFAULTS.emitSendTimes,
    flags: ["--emit-send-times"],
    group: "Options",
    help: 'Add "sim_sent_at_ms" (epoch ms) to every streamed chunk, for calibration.',
  },
  {
    key: "serverTiming",
    type: "enum",
    choices: SIM_SERVER_TIMING_STYLES,
    default: SIM_DEFAULTS.serverTiming,
    flags: ["--server-timing"],
    group: "Options",
    help: "Report each request's own timing split like a real server: llama.cpp (a timings object with the " +
      "measured prefill and decode in a streamed answer's last chunk), tgi (x-queue-time, x-inference-time, " +
      "x-total-time headers) or openai (openai-processing-ms) on non-streamed answers.",
  },
  {
    key: "shutdownGraceMs",
    type: "float",
    default: SIM_DEFAULTS.shutdownGraceMs,
    flags: ["--shutdown-grace"],
    group: "Options",
    metavar: "<ms>",
    help: "On shutdown, how long in-flight responses may finish.",
  },
  {
    key: "tokenizer",
    type: "string",
    flags: ["--tokenizer"],
    group: "Options",
    metavar: "<path>",
    help: "Count prompt_tokens with this tokenizer.json (or its directory) instead of the builtin o200k_base, " +
      "so usage matches a client that counts with the same model tokenizer.",
  },
  {
    key: "recordRequests",
    type: "path",
    flags: ["--record-requests"],
    group: "Options",
    metavar: "<file>",
    help: "Write every request received to FILE as JSON lines (see below).",
  },
  {
    key: "answers",
    type: "path",
    flags: ["--answers"],
    group: "Options",
    metavar: "<file>",
    help: 'Answer the prompts FILE lists with their answers: JSON lines {"prompt": "...", "answer": "..."}, matched ' +
      "against the last prompt text (the final user message, a completion's prompt); other prompts get random words.",
  },
] as const satisfies readonly OptionSpec<ServeSimKey>[];

const EPILOGUE = `
Output length: with max_completion_tokens / max_tokens a response has exactly
that many tokens (finish "length"), unless --eos-rate p > 0: then after
min_tokens each further token ends it with probability p (finish "stop");
ignore_eos: true disables that. Without a max: clamp(round(prompt_tokens x
U(0.8, 1.2)), 16, --max-default-tokens) tokens, finish "stop". Reasoning tokens
come first and count within the max.

Exact counts: output words are single o200k_base tokens, so re-tokenizing the
text gives exactly usage.completion_tokens; prompt_tokens is the o200k_base
count of each message's text (no chat template).

Latency: streamed token k is due at start + ttft + k*itl (ttft grown by
--prefill-ms-per-token x prompt tokens), start being the
arrival (or, with --slots, the moment a slot frees) (an absolute
schedule: a late event loop sends what is overdue at once, it never drifts); a
chunk of --tokens-per-chunk tokens leaves when its last token is due; a
non-streamed response is answered after ttft + itl*(n-1). --fast (--ttft 0
--itl 0) builds each response at once, for throughput benchmarks.

Capacity: --slots N lets N requests generate at once, like an engine's batch
of running sequences (vLLM's --max-num-seqs); later ones wait in arrival order
(FIFO) and start when a slot frees. Each request holds its slot for its service
time S = ttft + itl x (output tokens - 1) (an answer without tokens: ttft). The
wait counts in the client's TTFT and in vllm:request_queue_time_seconds;
vllm:num_requests_waiting shows the queue. The knee: with C concurrent clients
TTFT stays at ttft while C <= N; past it throughput stays at N/S requests/s and
each request waits S x (C - N) / N on average, so TTFT = ttft + S x (C - N) / N.
At an open-loop rate R the knee is R = N/S; past it the queue grows without end.

Calibration: --emit-send-times adds "sim_sent_at_ms" (epoch ms, taken right
before the chunk is enqueued) to every streamed chunk; a client subtracts it
from its own arrival stamp to measure the latency it adds.

Request journal: --record-requests FILE writes one JSON line per request
received, on every route (404s included), in arrival order:
{"received_at_ms": epoch ms taken on arrival, "method", "path" (with query),
"headers" (lower-case names; credential-looking names, those containing key,
token, secret, auth, password, signature, subscription or cookie, read
"<redacted>"), "body" (parsed JSON, the
raw text if not JSON, null if empty)}. Lines are written in batches off the
request path and flushed on shutdown (SIGINT/SIGTERM); the file is truncated
at start.

Determinism: --seed fixes errors, jitter, words and default lengths per request
body (and per repeat of an identical body), whatever the arrival order.

Routes: ${routeList()}.
`;

/** `infermeter serve-sim`. */
export const SERVE_SIM_COMMAND: Command<typeof SERVE_SIM_OPTIONS> = defineCommand({
  name: "serve-sim",
  description: "Run the simulated OpenAI-compatible inference server (exact token counts, no GPU).",
  options: SERVE_SIM_OPTIONS,
  epilogue: EPILOGUE,
});

/**
 * Every route the simulator answers, wrapped for the help text: the inference routes of `SIM_ROUTES`, the app's own
 * and the management routes of `SERVER_INFO_ROUTES`, so the list is the served one.
 */
function routeList(): string {
  const posts = SIM_ROUTES.entries().flatMap((r) => r.paths).map((p) => `POST ${p}`);
  // A route that answers with jobs is polled, and its finished job's content fetched, under its own path.
  const jobs = SIM_ROUTES.entries().filter((r) => r.jobs !== undefined).flatMap((r) => r.paths)
    .flatMap((p) => [`GET ${p}/:id`, `GET ${p}/:id/content`]);
  const own = SIM_APP_ROUTES.map((r) => `${r.method} ${r.path}${r.note ? ` (${r.note})` : ""}`);
  const info = SERVER_INFO_ROUTES.map((r) => `${r.method} ${r.path}`);
  const words = [...posts, ...jobs, ...own, ...info].join(", ").split(" ");
  const lines: string[] = [];
  let line = "";
  for (const word of words) {
    if (line.length > 0 && line.length + 1 + word.length > 78) {
      lines.push(line);
      line = word;
    } else line = line.length > 0 ? `${line} ${word}` : word;
  }
  return [...lines, line].join("\n");
}
