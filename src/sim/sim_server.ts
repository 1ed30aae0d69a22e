/**
 * Runs the simulated server app on `Deno.serve` (HTTP/1.1, loopback by default).
 *
 * `close()` stops accepting connections, lets in-flight responses finish for up to `shutdownGraceMs`, then cuts
 * the remaining streams short (their clients see the body end without `[DONE]`) so a benchmark server never
 * hangs on shutdown. With `recordRequests`, the request journal is opened before listening (a file that cannot be
 * opened fails the start) and written to the end by `close()`.
 */
import { ensureFdLimit } from "../runtime/fd_limit.ts";
import type { Tokenizer } from "../tokenizer/tokenizer.ts";
import { RequestJournal } from "./request_journal.ts";
import { createSimApp } from "./sim_app.ts";
import { SimAnswers } from "./sim_answers.ts";
import { resolveSimOptions, type SimOptions } from "./sim_options.ts";
import { SimStats } from "./sim_stats.ts";
import { StreamScheduler } from "./stream_scheduler.ts";
import { SimSlots } from "./sim_slots.ts";
import { IoYield } from "../runtime/io_yield.ts";

export interface SimServer {
  readonly hostname: string;
  readonly port: number;
  /** Base URL, e.g. `http://127.0.0.1:8000`. */
  readonly url: string;
  /** Live counters (also served as Prometheus text on `/metrics`). */
  readonly stats: SimStats;
  /** Writes every request received so far to the journal (`recordRequests`); resolves at once without one. */
  flushJournal(): Promise<void>;
  /** Stop the server; resolves when every connection is closed and the journal is written. Idempotent. */
  close(): Promise<void>;
}

export interface StartSimServerOptions extends Partial<SimOptions> {
  /** Prompt-token counter. @default the builtin o200k_base tokenizer (`loadTokenizer("builtin")`) */
  readonly tokenizer?: Tokenizer;
}

export async function startSimServer(options: StartSimServerOptions = {}): Promise<SimServer> {
  const { tokenizer: given, ...rest } = options;
  const o = resolveSimOptions(rest);
  const tokenizer = given ?? await loadBuiltinTokenizer();
  const stats = new SimStats();
  // Socket reads (new requests) must go on while the scheduler's timer polls: see runtime/io_yield.ts.
  const io = new IoYield();
  const scheduler = new StreamScheduler(undefined, { yieldToIo: io.wait });
  const journal = o.recordRequests !== undefined ? await RequestJournal.open(o.recordRequests) : undefined;
  const slots = new SimSlots(o.slots);
  const answers = o.answers !== undefined ? await SimAnswers.read(o.answers) : undefined;
  const app = createSimApp(o, { tokenizer, stats, scheduler, journal, slots, answers });

  const listening = Promise.withResolvers<Deno.NetAddr>();
  // Each client stream is a socket here too: take as many file descriptors as the process may.
  ensureFdLimit(1 << 20);
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({
      hostname: o.host,
      port: o.port,
      // The CLI prints its own single line; Deno's default banner would break parsers of that line.
      onListen: (addr) => listening.resolve(addr as Deno.NetAddr),
      onError: (err) =>
        new Response(
          JSON.stringify({ error: { message: String(err), type: "server_error", param: null, code: 500 } }),
          { status: 500, headers: { "content-type": "application/json" } },
        ),
    }, app.fetch);
  } catch (e) {
    await journal?.close();
    throw e;
  }
  const addr = await listening.promise;
  const host = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      const shutdown = server.shutdown();
      // Requests still waiting for a slot would wait past the grace: they are turned away (503) at once.
      slots.close();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const grace = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), o.shutdownGraceMs);
      });
      const first = await Promise.race([shutdown.then(() => "done" as const), grace]);
      clearTimeout(timer);
      if (first === "timeout") scheduler.abortAll();
      await server.finished;
      io.close();
      await journal?.close();
    })();
    return closing;
  };
  const flushJournal = async (): Promise<void> => {
    await journal?.flush();
  };

  return { hostname: addr.hostname, port: addr.port, url: `http://${host}:${addr.port}`, stats, flushJournal, close };
}

/** Loaded lazily so that importing the server (e.g. in tests with an injected tokenizer) never pays for it. */
async function loadBuiltinTokenizer(): Promise<Tokenizer> {
  const { loadTokenizer } = await import("../tokenizer/load_tokenizer.ts");
  return await loadTokenizer("builtin");
}
