/**
 * `infermeter serve-sim`: run the simulated OpenAI-compatible inference server until SIGINT/SIGTERM.
 *
 * Prints exactly one stdout line once listening — `serve-sim listening on http://127.0.0.1:<port>` — which the
 * demo, the e2e tests and the benchmark harness parse (use `--port 0` for a free port). Everything else goes to
 * stderr. Exit codes: 0 after a signal (or `io.signal`), 2 for invalid options, a tokenizer that cannot load, or an
 * address that cannot be bound.
 */
import { Command, CommanderError, InvalidArgumentError } from "commander";
import { EXIT } from "./exit_codes.ts";
import { resolveSimOptions, SIM_DEFAULTS, type SimOptions } from "../sim/sim_options.ts";
import { type SimServer, startSimServer } from "../sim/sim_server.ts";
import { RequestJournalError } from "../sim/request_journal.ts";
import type { Tokenizer } from "../tokenizer/tokenizer.ts";

/** Where the command writes and what stops it; tests pass their own. */
export interface ServeSimIo {
  /** @default writes to Deno.stdout */
  readonly stdout: (text: string) => void;
  /** @default writes to Deno.stderr */
  readonly stderr: (text: string) => void;
  /** Stops the server like SIGINT does. @default undefined (signals only) */
  readonly signal?: AbortSignal;
  /** Called once the server listens (after the stdout line). @default undefined */
  readonly onListening?: (server: SimServer) => void;
  /** Prompt-token counter to use instead of loading the builtin tokenizer. @default undefined */
  readonly tokenizer?: Tokenizer;
}

const encoder = new TextEncoder();
const DEFAULT_IO: ServeSimIo = {
  stdout: (text) => writeAll(Deno.stdout, text),
  stderr: (text) => writeAll(Deno.stderr, text),
};

const HELP_AFTER = `
Output length: with max_completion_tokens / max_tokens a response has exactly
that many tokens (finish "length"), unless --eos-rate p > 0: then after
min_tokens each further token ends it with probability p (finish "stop");
ignore_eos: true disables that. Without a max: clamp(round(prompt_tokens x
U(0.8, 1.2)), 16, --max-default-tokens) tokens, finish "stop". Reasoning tokens
come first and count within the max.

Exact counts: output words are single o200k_base tokens, so re-tokenizing the
text gives exactly usage.completion_tokens; prompt_tokens is the o200k_base
count of each message's text (no chat template).

Latency: streamed token k is due at arrival + ttft + k*itl (an absolute
schedule: a late event loop sends what is overdue at once, it never drifts); a
chunk of --tokens-per-chunk tokens leaves when its last token is due; a
non-streamed response is answered after ttft + itl*(n-1). --fast (--ttft 0
--itl 0) builds each response at once, for throughput benchmarks.

Calibration: --emit-send-times adds "sim_sent_at_ms" (epoch ms, taken right
before the chunk is enqueued) to every streamed chunk; a client subtracts it
from its own arrival stamp to measure the latency it adds.

Request journal: --record-requests FILE writes one JSON line per request
received, on every route (404s included), in arrival order:
{"received_at_ms": epoch ms taken on arrival, "method", "path" (with query),
"headers" (lower-case names; authorization, cookies, API keys and any name
containing token, secret or key read "<redacted>"), "body" (parsed JSON, the
raw text if not JSON, null if empty)}. Lines are written in batches off the
request path and flushed on shutdown (SIGINT/SIGTERM); the file is truncated
at start.

Determinism: --seed fixes errors, jitter, words and default lengths per request
body (and per repeat of an identical body), whatever the arrival order.

Routes: POST /v1/chat/completions, POST /v1/completions, GET /v1/models,
GET /health, /v1/health/live, /v1/health/ready, GET /metrics (Prometheus).
`;

export async function runServeSim(args: string[], io: ServeSimIo = DEFAULT_IO): Promise<number> {
  const program = buildCommand(io);
  try {
    program.parse(args, { from: "user" });
  } catch (e) {
    if (e instanceof CommanderError) {
      return e.code === "commander.helpDisplayed" || e.code === "commander.version" ? EXIT.OK : EXIT.USAGE;
    }
    throw e;
  }

  let options: SimOptions;
  try {
    options = resolveSimOptions(toSimOptions(program.opts<ParsedFlags>()));
  } catch (e) {
    // resolveSimOptions names options as in SimOptions; a CLI user knows them by their flags.
    io.stderr(`error: ${message(e).replace(/^\w+/, (name) => FLAG_OF[name] ?? name)}\n`);
    return EXIT.USAGE;
  }

  let tokenizer = io.tokenizer;
  if (tokenizer === undefined) {
    try {
      const { loadTokenizer } = await import("../tokenizer/load_tokenizer.ts");
      tokenizer = await loadTokenizer("builtin");
    } catch (e) {
      io.stderr(`error: cannot load the builtin tokenizer: ${message(e)}\n`);
      return EXIT.USAGE;
    }
  }

  let server: SimServer;
  try {
    server = await startSimServer({ ...options, tokenizer });
  } catch (e) {
    io.stderr(
      e instanceof RequestJournalError
        ? `error: ${e.message}; choose another --record-requests file.\n`
        : `error: cannot listen on ${options.host}:${options.port}: ${message(e)}; choose another --port.\n`,
    );
    return EXIT.USAGE;
  }
  if (!isLoopback(options.host)) {
    io.stderr(`warning: serve-sim is reachable from other machines on ${options.host}:${server.port}.\n`);
  }
  io.stdout(`serve-sim listening on ${server.url}\n`);
  io.onListening?.(server);

  await waitForStop(io.signal);
  await server.close();
  return EXIT.OK;
}

/** Flag of each validated `SimOptions` field, for error messages. */
const FLAG_OF: Readonly<Record<string, string>> = {
  host: "--host",
  port: "--port",
  models: "--models",
  apiKey: "--api-key",
  ttftMs: "--ttft",
  itlMs: "--itl",
  ttftJitter: "--ttft-jitter",
  itlJitter: "--itl-jitter",
  tokensPerChunk: "--tokens-per-chunk",
  maxDefaultTokens: "--max-default-tokens",
  eosRate: "--eos-rate",
  reasoningTokens: "--reasoning-tokens",
  errorRate: "--error-rate",
  seed: "--seed",
  shutdownGraceMs: "--shutdown-grace",
  recordRequests: "--record-requests",
};

interface ParsedFlags {
  host: string;
  port: number;
  models: string[];
  strictModel?: boolean;
  apiKey?: string;
  ttft: number;
  itl: number;
  ttftJitter: number;
  itlJitter: number;
  tokensPerChunk: number;
  fast?: boolean;
  maxDefaultTokens: number;
  eosRate: number;
  reasoning?: boolean;
  reasoningTokens: number;
  errorRate: number;
  seed?: number;
  emitSendTimes?: boolean;
  shutdownGrace: number;
  recordRequests?: string;
}

function toSimOptions(f: ParsedFlags): Partial<SimOptions> {
  return {
    host: f.host,
    port: f.port,
    models: f.models,
    strictModel: f.strictModel ?? false,
    apiKey: f.apiKey,
    ttftMs: f.fast ? 0 : f.ttft,
    itlMs: f.fast ? 0 : f.itl,
    ttftJitter: f.ttftJitter,
    itlJitter: f.itlJitter,
    tokensPerChunk: f.tokensPerChunk,
    maxDefaultTokens: f.maxDefaultTokens,
    eosRate: f.eosRate,
    reasoning: f.reasoning ?? false,
    reasoningTokens: f.reasoningTokens,
    errorRate: f.errorRate,
    seed: f.seed,
    emitSendTimes: f.emitSendTimes ?? false,
    shutdownGraceMs: f.shutdownGrace,
    recordRequests: f.recordRequests,
  };
}

function buildCommand(io: ServeSimIo): Command {
  const d = SIM_DEFAULTS;
  return new Command("infermeter serve-sim")
    .description("Run the simulated OpenAI-compatible inference server (exact token counts, no GPU).")
    .option("--host <host>", "interface to bind (loopback by default)", d.host)
    .option("-p, --port <port>", "TCP port; 0 picks a free one", int("--port"), d.port)
    .option("--models <names>", "comma-separated model names listed by /v1/models", list, [...d.models])
    .option("--strict-model", "answer 404 for models not in --models (default: accept any name)")
    .option("--api-key <key>", "require 'Authorization: Bearer <key>' on /v1/* routes (401 otherwise)")
    .option("--ttft <ms>", "time to first token in ms", num("--ttft"), d.ttftMs)
    .option("--itl <ms>", "inter-token latency in ms", num("--itl"), d.itlMs)
    .option("--ttft-jitter <cv>", "lognormal jitter of TTFT, coefficient of variation", num("--ttft-jitter"), 0)
    .option("--itl-jitter <cv>", "lognormal jitter of each ITL gap, coefficient of variation", num("--itl-jitter"), 0)
    .option("--tokens-per-chunk <n>", "tokens per streamed SSE event", int("--tokens-per-chunk"), d.tokensPerChunk)
    .option("--fast", "zero latency (same as --ttft 0 --itl 0)")
    .option(
      "--max-default-tokens <n>",
      "cap of the output length of requests without max tokens",
      int("--max-default-tokens"),
      d.maxDefaultTokens,
    )
    .option(
      "--eos-rate <p>",
      "probability (0-1) that each token after min_tokens ends a capped response",
      num("--eos-rate"),
      0,
    )
    .option("--reasoning", "reasoning model: reasoning_effort low/medium/high = 100/250/500 tokens (default medium)")
    .option("--reasoning-tokens <n>", "reasoning tokens per chat response", int("--reasoning-tokens"), 0)
    .option("--error-rate <percent>", "percentage (0-100) of requests answered with HTTP 500", num("--error-rate"), 0)
    .option("--seed <n>", "seed of every random choice (default: random per start)", int("--seed"))
    .option("--emit-send-times", 'add "sim_sent_at_ms" (epoch ms) to every streamed chunk, for calibration')
    .option(
      "--shutdown-grace <ms>",
      "on shutdown, how long in-flight responses may finish",
      num("--shutdown-grace"),
      d.shutdownGraceMs,
    )
    .option("--record-requests <file>", "write every request received to FILE as JSON lines (see below)")
    .addHelpText("after", HELP_AFTER)
    .helpOption("-h, --help", "show this help")
    .allowExcessArguments(false)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
}

function num(flag: string): (value: string) => number {
  return (value) => {
    const n = value.trim() === "" ? NaN : Number(value);
    if (!Number.isFinite(n)) throw new InvalidArgumentError(`${flag} needs a number.`);
    return n;
  };
}

function int(flag: string): (value: string) => number {
  return (value) => {
    const n = value.trim() === "" ? NaN : Number(value);
    if (!Number.isInteger(n)) throw new InvalidArgumentError(`${flag} needs an integer.`);
    return n;
  };
}

function list(value: string): string[] {
  return value.split(",").map((s) => s.trim()).filter((s) => s.length > 0);
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host.startsWith("127.");
}

/** Resolves on the first SIGINT/SIGTERM or when `signal` aborts; removes its listeners. */
function waitForStop(signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
    let stopped = false;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      for (const s of signals) Deno.removeSignalListener(s, stop);
      signal?.removeEventListener("abort", stop);
      resolve();
    };
    for (const s of signals) Deno.addSignalListener(s, stop);
    if (signal?.aborted) stop();
    else signal?.addEventListener("abort", stop, { once: true });
  });
}

function writeAll(file: { writeSync(p: Uint8Array): number }, text: string): void {
  let bytes = encoder.encode(text);
  while (bytes.length > 0) bytes = bytes.subarray(file.writeSync(bytes));
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
