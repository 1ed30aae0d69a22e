/**
 * One side of the transport A/B benchmark (transport_ab.ts): loads `HttpClient` from the given source tree,
 * runs `--concurrency` closed loops against an already running raw_sse_server for `--warmup` + `--duration`
 * seconds, and prints one JSON line: requests, events, errors, seconds, CPU seconds.
 *
 *   deno run -A scripts/bench/transport_ab_client.ts --tree DIR --port P --mode stream|json
 *       [--concurrency 16] [--duration 3] [--warmup 1]
 *
 * Streaming responses have every SSE event JSON-parsed (as the engine does); non-streaming bodies are parsed
 * once. Loopback only.
 */
import { cpuUsage } from "node:process";
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";

function arg(name: string, fallback?: string): string {
  const at = Deno.args.indexOf(`--${name}`);
  if (at >= 0 && at + 1 < Deno.args.length) return Deno.args[at + 1];
  if (fallback === undefined) throw new TypeError(`--${name} is required.`);
  return fallback;
}

const tree = resolve(arg("tree"));
const port = Number(arg("port"));
const mode = arg("mode");
const concurrency = Number(arg("concurrency", "16"));
const durationS = Number(arg("duration", "3"));
const warmupS = Number(arg("warmup", "1"));
if (mode !== "stream" && mode !== "json") throw new TypeError(`--mode ${mode}: use stream or json.`);

const { HttpClient } = await import(pathToFileURL(`${tree}/src/transport/http_client.ts`).href);
const { parseTarget } = await import(pathToFileURL(`${tree}/src/transport/parse_target.ts`).href);

const client = new HttpClient(parseTarget(`http://127.0.0.1:${port}`));
const req = {
  method: "POST",
  path: "/v1/chat/completions",
  commonHeaders: [["Content-Type", "application/json"], [
    "Accept",
    mode === "stream" ? "text/event-stream" : "application/json",
  ]],
  headers: [["X-Request-ID", "0"]],
  body: new TextEncoder().encode('{"model":"m","messages":[{"role":"user","content":"hi"}]}'),
};
const dec = new TextDecoder();
let sink = 0;
let measuring = false;
let stop = false;
let requests = 0;
let events = 0;
let errors = 0;

async function loop(): Promise<void> {
  while (!stop) {
    let n = 0;
    const ex = await client.send(req, {
      onSseEvent: mode === "stream"
        ? (data: string) => {
          n++;
          if (data !== "[DONE]") sink += JSON.parse(data).choices.length;
        }
        : undefined,
    });
    if (mode === "json" && ex.body !== undefined) sink += JSON.parse(dec.decode(ex.body)).choices.length;
    if (!measuring) continue;
    if (ex.error === undefined && ex.status === 200) requests++;
    else errors++;
    events += n;
  }
}

const loops = Array.from({ length: concurrency }, loop);
await new Promise((r) => setTimeout(r, warmupS * 1000));
measuring = true;
const t0 = performance.now();
const cpu0 = cpuUsage();
await new Promise((r) => setTimeout(r, durationS * 1000));
const seconds = (performance.now() - t0) / 1000;
const cpu = cpuUsage(cpu0);
const result = { requests, events, errors, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
stop = true;
await Promise.all(loops);
client.close();
if (sink < 0) console.error(sink);
console.log(JSON.stringify(result));
