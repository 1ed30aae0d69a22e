/**
 * Transport micro-benchmark: SSE events/s and requests/s of our HttpClient (JSON.parse of every event) against
 * Deno `fetch` + SseStream, on a zero-latency raw-TCP SSE server running in a separate process.
 *
 *   deno run -A scripts/bench/transport_bench.ts [--events 100] [--duration 3] [--warmup 1]
 *       [--concurrency 1,16,64] [--framing chunked|length] [--chunking per-event|single] [--modes client,fetch]
 *
 * With `taskset` available the server is pinned to CPU 1 and this process (all its threads) to CPU 0, so the
 * numbers are "one client core". "client CPU µs/event" is this process's CPU time per event (user + system, all
 * threads): at concurrency 1 the wall-clock rate is bound by the request round trip, not by client CPU.
 * Loopback only.
 */
import { cpuUsage } from "node:process";
import { HttpClient } from "../../src/transport/http_client.ts";
import type { HttpRequest } from "../../src/transport/http_exchange.ts";
import { parseTarget } from "../../src/transport/parse_target.ts";
import { SseStream } from "../../src/transport/sse_stream.ts";

interface BenchOptions {
  readonly events: number;
  readonly durationS: number;
  readonly warmupS: number;
  readonly concurrency: readonly number[];
  readonly framing: string;
  readonly chunking: string;
  readonly modes: readonly Mode[];
}

type Mode = "client" | "fetch";

interface Result {
  readonly requests: number;
  readonly events: number;
  readonly errors: number;
  readonly seconds: number;
  /** CPU seconds this process used in the window (user + system, all threads). */
  readonly cpuSeconds: number;
}

function parseArgs(args: readonly string[]): BenchOptions {
  const get = (name: string, fallback: string): string => {
    const at = args.indexOf(`--${name}`);
    return at >= 0 && at + 1 < args.length ? args[at + 1] : fallback;
  };
  const modes = get("modes", "client,fetch").split(",").map((m) => m.trim());
  for (const m of modes) {
    if (m !== "client" && m !== "fetch") throw new TypeError(`--modes ${m}: use client and/or fetch.`);
  }
  return {
    events: Number(get("events", "100")),
    durationS: Number(get("duration", "3")),
    warmupS: Number(get("warmup", "1")),
    concurrency: get("concurrency", "1,16,64").split(",").map(Number),
    framing: get("framing", "chunked"),
    chunking: get("chunking", "per-event"),
    modes: modes as Mode[],
  };
}

async function hasTaskset(): Promise<boolean> {
  try {
    const out = await new Deno.Command("taskset", { args: ["--version"], stdout: "null", stderr: "null" }).output();
    return out.success;
  } catch {
    return false;
  }
}

/** Starts the server process and waits for its `listening <port>` line. */
async function startServer(
  options: BenchOptions,
  pin: boolean,
): Promise<{ port: number; child: Deno.ChildProcess }> {
  const script = new URL("./raw_sse_server.ts", import.meta.url).pathname;
  const serverArgs = ["run", "-A", script, "--port", "0", "--events", String(options.events)]
    .concat(["--framing", options.framing, "--chunking", options.chunking]);
  const command = pin
    ? new Deno.Command("taskset", { args: ["-c", "1", Deno.execPath(), ...serverArgs], stdout: "piped" })
    : new Deno.Command(Deno.execPath(), { args: serverArgs, stdout: "piped" });
  const child = command.spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("The benchmark server exited before listening; run it alone to see why.");
    text += value;
  }
  reader.releaseLock();
  const port = Number(/listening (\d+)/.exec(text)?.[1]);
  return { port, child };
}

/** Runs `worker` on `concurrency` loops; counts only what completes inside the measured window. */
async function measure(
  concurrency: number,
  options: BenchOptions,
  once: (count: (events: number) => void) => Promise<boolean>,
): Promise<Result> {
  let measuring = false;
  let stop = false;
  let requests = 0;
  let events = 0;
  let errors = 0;
  const loop = async () => {
    while (!stop) {
      let n = 0;
      const ok = await once((e) => (n += e));
      if (!measuring) continue;
      if (ok) requests++;
      else errors++;
      events += n;
    }
  };
  const loops = Array.from({ length: concurrency }, loop);
  await new Promise((r) => setTimeout(r, options.warmupS * 1000));
  measuring = true;
  const t0 = performance.now();
  const cpu0 = cpuUsage();
  await new Promise((r) => setTimeout(r, options.durationS * 1000));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuUsage(cpu0);
  const counted = { requests, events, errors, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
  stop = true;
  await Promise.all(loops);
  return { ...counted, seconds };
}

function benchClient(port: number, concurrency: number, options: BenchOptions): Promise<Result> {
  const client = new HttpClient(parseTarget(`http://127.0.0.1:${port}`));
  const req: HttpRequest = { method: "GET", path: "/v1/chat/completions", headers: [["Accept", "text/event-stream"]] };
  let sink = 0;
  return measure(concurrency, options, async (count) => {
    let n = 0;
    const ex = await client.send(req, {
      onSseEvent: (data) => {
        n++;
        if (data !== "[DONE]") sink += JSON.parse(data).choices.length;
      },
    });
    count(n);
    return ex.error === undefined && n === options.events + 1;
  }).finally(() => {
    client.close();
    if (sink < 0) console.log(sink);
  });
}

function benchFetch(port: number, concurrency: number, options: BenchOptions): Promise<Result> {
  const url = `http://127.0.0.1:${port}/v1/chat/completions`;
  let sink = 0;
  return measure(concurrency, options, async (count) => {
    let n = 0;
    try {
      const res = await fetch(url, { headers: { Accept: "text/event-stream" } });
      if (res.body === null) return false;
      for await (const message of res.body.pipeThrough(new SseStream())) {
        n++;
        if (message.data !== "[DONE]") sink += JSON.parse(message.data).choices.length;
      }
      return n === options.events + 1;
    } catch {
      return false;
    } finally {
      count(n);
    }
  }).finally(() => {
    if (sink < 0) console.log(sink);
  });
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

if (import.meta.main) {
  const options = parseArgs(Deno.args);
  const pin = await hasTaskset();
  if (pin) {
    // -a: every thread of this process (V8 and Tokio helpers too), so the client really has one core.
    await new Deno.Command("taskset", { args: ["-a", "-p", "-c", "0", String(Deno.pid)], stdout: "null" }).output();
  }
  const { port, child } = await startServer(options, pin);
  console.error(
    `server: 127.0.0.1:${port}, ${options.events} events/response, ${options.framing}` +
      `${options.framing === "chunked" ? ` (${options.chunking})` : ""}; ${
        pin ? "server on CPU 1, client on CPU 0" : "no taskset: unpinned"
      }; ${options.warmupS}s warm-up + ${options.durationS}s per cell`,
  );
  const rows: string[][] = [];
  try {
    for (const c of options.concurrency) {
      const cells: Partial<Record<Mode, Result>> = {};
      for (const mode of options.modes) {
        cells[mode] = mode === "client" ? await benchClient(port, c, options) : await benchFetch(port, c, options);
        const r = cells[mode];
        console.error(`  ${mode} c=${c}: ${fmt(r.events / r.seconds)} events/s, errors ${r.errors}`);
      }
      const rate = (r: Result | undefined, what: "events" | "requests") =>
        r === undefined ? "-" : fmt(r[what] / r.seconds);
      const a = cells.client;
      const b = cells.fetch;
      rows.push([
        String(c),
        rate(a, "events"),
        rate(a, "requests"),
        a === undefined ? "-" : (1e6 * a.cpuSeconds / Math.max(1, a.events)).toFixed(2),
        a === undefined ? "-" : `${Math.round(100 * a.cpuSeconds / a.seconds)}%`,
        rate(b, "events"),
        rate(b, "requests"),
        a !== undefined && b !== undefined && b.events > 0
          ? `${((a.events / a.seconds) / (b.events / b.seconds)).toFixed(1)}x`
          : "-",
        String((a?.errors ?? 0) + (b?.errors ?? 0)),
      ]);
    }
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
  const header = [
    "conc",
    "client ev/s",
    "client req/s",
    "client CPU µs/event",
    "client CPU",
    "fetch ev/s",
    "fetch req/s",
    "ratio",
    "errors",
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => c.padStart(widths[i])).join("  ");
  console.log(line(header));
  for (const r of rows) console.log(line(r));
}
