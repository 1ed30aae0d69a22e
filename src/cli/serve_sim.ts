/**
 * `infermeter serve-sim`: run the simulated OpenAI-compatible inference server until SIGINT/SIGTERM.
 *
 * Prints exactly one stdout line once listening — `serve-sim listening on http://127.0.0.1:<port>` — which the
 * demo, the e2e tests and the benchmark harness parse (use `--port 0` for a free port). Everything else goes to
 * stderr. Exit codes: 0 after a signal (or `io.signal`), 2 for invalid options, a tokenizer that cannot load, or an
 * address that cannot be bound.
 */
import { ConfigError } from "../config/config_error.ts";
import { parseCommandArgs } from "../config/parse_command_args.ts";
import { isHelpRequest } from "../config/read_cli_args.ts";
import { renderHelp } from "../config/render_help.ts";
import { EXIT } from "./exit_codes.ts";
import { SERVE_SIM_COMMAND } from "./serve_sim_command.ts";
import { resolveSimOptions, type SimOptions } from "../sim/sim_options.ts";
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

export async function runServeSim(args: string[], io: ServeSimIo = DEFAULT_IO): Promise<number> {
  if (isHelpRequest(args)) {
    io.stdout(renderHelp(SERVE_SIM_COMMAND));
    return EXIT.OK;
  }
  let flags;
  try {
    flags = parseCommandArgs(SERVE_SIM_COMMAND, args).values;
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    io.stderr(`error: ${e.message}\n`);
    return EXIT.USAGE;
  }

  let options: SimOptions;
  try {
    const { fast, tokenizer: _, ...sim } = flags;
    options = resolveSimOptions(fast ? { ...sim, ttftMs: 0, itlMs: 0 } : sim);
  } catch (e) {
    // resolveSimOptions names options as in SimOptions; a CLI user knows them by their flags.
    const flagOf = (name: string) => SERVE_SIM_COMMAND.index.forKey(name)?.flags[0] ?? name;
    io.stderr(`error: ${message(e).replace(/^\w+/, flagOf)}\n`);
    return EXIT.USAGE;
  }

  let tokenizer = io.tokenizer;
  if (tokenizer === undefined) {
    try {
      const { loadTokenizer } = await import("../tokenizer/load_tokenizer.ts");
      tokenizer = await loadTokenizer(flags.tokenizer ?? "builtin");
    } catch (e) {
      io.stderr(`error: cannot load the tokenizer ${flags.tokenizer ?? "builtin"}: ${message(e)}\n`);
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
        : e instanceof RangeError || e instanceof Deno.errors.NotFound
        ? `error: --answers ${options.answers}: ${message(e)}\n`
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
