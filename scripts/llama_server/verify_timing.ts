/**
 * Checks infermeter's server-timing split against a real llama.cpp `llama-server`: starts it on loopback with a tiny
 * random-weight model, profiles it at concurrency 1 and 16 (chat, streaming), and prints, per request, how far the
 * client's view is from the server's own `timings`: client TTFT − `prompt_ms` and (latency − TTFT) − `predicted_ms`,
 * p50 and p99. Small and stable values mean the split adds up.
 *
 *   bash scripts/llama_server/build_llama_server.sh            # prints the binary's path
 *   deno run -A scripts/llama_server/tiny_gguf.ts /tmp/tiny.gguf
 *   deno run -A scripts/llama_server/verify_timing.ts --llama-server PATH --model /tmp/tiny.gguf [--requests 64]
 */
import { join } from "node:path";

const ROOT = new URL("../..", import.meta.url).pathname;

function flag(name: string, fallback?: string): string {
  const i = Deno.args.indexOf(name);
  if (i >= 0) return Deno.args[i + 1];
  if (fallback === undefined) throw new TypeError(`${name} is required`);
  return fallback;
}

const SERVER = flag("--llama-server");
const MODEL = flag("--model");
const REQUESTS = flag("--requests", "64");
const PORT = flag("--port", "18777");
const URL_ = `http://127.0.0.1:${PORT}`;

const server = new Deno.Command(SERVER, {
  args: [
    "-m",
    MODEL,
    "--host",
    "127.0.0.1",
    "--port",
    PORT,
    "-c",
    "16384",
    "-np",
    "16",
    "--chat-template",
    "chatml",
    "-t",
    "1",
    "--no-webui",
  ],
  stdout: "null",
  stderr: "piped",
}).spawn();

async function ready(): Promise<void> {
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    try {
      const r = await fetch(`${URL_}/health`);
      await r.body?.cancel();
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("llama-server did not become ready in 60 s");
}

interface Row {
  part: string;
  count: number;
  avg: number;
  p50: number;
  p99: number;
}

const work = await Deno.makeTempDir({ prefix: "llama-timing-" });
try {
  await ready();
  console.log(`llama-server ${SERVER}, model ${MODEL}; chat, streaming, ${REQUESTS} requests, 32 → 32 tokens\n`);
  console.log(
    "| Concurrency | Requests with timings | Client TTFT p50 | Server prompt_ms p50 | TTFT − prompt_ms p50 / p99 | Client decode p50 | predicted_ms p50 | decode − predicted_ms p50 / p99 |",
  );
  console.log("|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const concurrency of ["1", "16"]) {
    const dir = join(work, `c${concurrency}`);
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        join(ROOT, "main.ts"),
        "profile",
        "--url",
        URL_,
        "--model",
        "tiny",
        "--endpoint-type",
        "chat",
        "--streaming",
        "--request-count",
        REQUESTS,
        "--concurrency",
        concurrency,
        "--synthetic-input-tokens-mean",
        "32",
        "--output-tokens-mean",
        "32",
        "--extra-inputs",
        "ignore_eos:true",
        "--warmup-request-count",
        "4",
        "--ui",
        "none",
        "--artifact-dir",
        dir,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(new TextDecoder().decode(out.stderr).slice(-2000));
    const split = JSON.parse(await Deno.readTextFile(join(dir, "server_timing_split.json")));
    const get = (rows: Row[], part: string) => rows.find((r) => r.part === part)!;
    const ttft = get(split.ttft, "Client TTFT");
    const prefill = get(split.ttft, "Server prefill");
    const rest = get(split.ttft, "Network + client");
    const decode = get(split.decode, "Client decode");
    const server = get(split.decode, "Server decode");
    const diff = get(split.decode, "Client − server decode");
    const f = (x: number) => x.toFixed(3);
    console.log(
      `| ${concurrency} | ${split.requests_with_server_timing} / ${split.requests} | ${f(ttft.p50)} | ${
        f(prefill.p50)
      } | ` +
        `${f(rest.p50)} / ${f(rest.p99)} | ${f(decode.p50)} | ${f(server.p50)} | ${f(diff.p50)} / ${f(diff.p99)} |`,
    );
  }
} finally {
  server.kill("SIGTERM");
  await server.status;
  await server.stderr.cancel();
  await Deno.remove(work, { recursive: true });
}
