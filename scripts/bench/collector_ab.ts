/**
 * A/B micro-benchmark of the response hot path between two source trees: the chat adapter's `parseEvent` and the
 * `ResponseCollector` over a vLLM-shaped stream (one token per event, then the usage chunk), plus the per-request
 * work the request executor does on the response headers where the tree has it (the server-timing lookup). It is
 * what runs for every SSE event of a run, so a change there shows here first.
 *
 *   git archive <commit> | tar -x -C /tmp/base
 *   deno run -A scripts/bench/collector_ab.ts --base /tmp/base [--pairs 7] [--events 200] [--seconds 2]
 *
 * Each pair runs A and B in fresh processes, alternating which goes first. Reports ns per event per side and the
 * median of the per-pair B/A ratios. `--timings` makes every response end with a llama.cpp `timings` chunk (the
 * cost for servers that send one; the base tree ignores it).
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

function arg(name: string, fallback?: string): string {
  const at = Deno.args.indexOf(`--${name}`);
  if (at >= 0 && at + 1 < Deno.args.length) return Deno.args[at + 1];
  if (fallback === undefined) throw new TypeError(`--${name} is required.`);
  return fallback;
}

const events = Number(arg("events", "200"));
const seconds = Number(arg("seconds", "2"));
const withTimings = Deno.args.includes("--timings");

function stream(): string[] {
  const head =
    '{"id":"chatcmpl-8f3a","object":"chat.completion.chunk","created":1795602921,"model":"Qwen/Qwen3-0.6B",' +
    '"choices":[{"index":0,"delta":{';
  const out = [head + '"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}'];
  for (let i = 0; i < events; i++) {
    out.push(
      `${head}"content":" word${i % 10}"},"logprobs":null,"finish_reason":${i === events - 1 ? '"length"' : "null"}}]}`,
    );
  }
  const timings = withTimings
    ? ',"timings":{"cache_n":0,"prompt_n":100,"prompt_ms":30.1,"predicted_n":200,"predicted_ms":990.5}'
    : "";
  out.push(
    '{"id":"chatcmpl-8f3a","object":"chat.completion.chunk","created":1795602921,"model":"Qwen/Qwen3-0.6B",' +
      `"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":${events},"total_tokens":${
        100 + events
      }}${timings}}`,
  );
  return out;
}

async function child(tree: string): Promise<void> {
  const { ResponseCollector } = await import(pathToFileURL(`${tree}/src/engine/response_collector.ts`).href);
  const { CHAT_ADAPTER } = await import(pathToFileURL(`${tree}/src/endpoints/openai/chat.ts`).href);
  let headerTiming: ((h: ReadonlyMap<string, string>) => unknown) | undefined;
  try {
    headerTiming = (await import(pathToFileURL(`${tree}/src/endpoints/server_timing.ts`).href)).readHeaderServerTiming;
  } catch {
    headerTiming = undefined; // the base tree has no server timing
  }
  const payloads = stream();
  const headers = new Map([["content-type", "text/event-stream"], ["transfer-encoding", "chunked"]]);
  let sink = 0;
  const one = () => {
    const c = new ResponseCollector(CHAT_ADAPTER);
    for (let i = 0; i < payloads.length; i++) c.onEvent(payloads[i], i);
    c.flush();
    if (headerTiming !== undefined && headerTiming(headers) !== undefined) sink++;
    sink += c.responseTimes.length + (c.usage?.completionTokens ?? 0);
  };
  const until = performance.now() + 500;
  while (performance.now() < until) one();
  let n = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  while (performance.now() < end) {
    one();
    n++;
  }
  const elapsed = performance.now() - start;
  console.log(JSON.stringify({ nsPerEvent: (elapsed * 1e6) / (n * payloads.length), responses: n, sink }));
}

async function side(tree: string): Promise<number> {
  const args = ["run", "-A", new URL(import.meta.url).pathname, "--child", tree, "--events", String(events)];
  if (withTimings) args.push("--timings");
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...args, "--seconds", String(seconds)],
    stdout: "piped",
  })
    .output();
  if (!out.success) throw new Error(`the ${tree} side failed; run it with --child to see why.`);
  return JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!).nsPerEvent;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

if (Deno.args.includes("--child")) {
  await child(resolve(arg("child")));
} else {
  const base = resolve(arg("base"));
  const ours = resolve(new URL("../..", import.meta.url).pathname);
  const pairs = Number(arg("pairs", "7"));
  const a: number[] = [];
  const b: number[] = [];
  console.error(
    `A = ${base}\nB = ${ours}\n${events} content events + usage per response${withTimings ? " + timings" : ""}`,
  );
  for (let i = 0; i < pairs; i++) {
    const order = i % 2 === 0 ? ["A", "B"] : ["B", "A"];
    for (const s of order) (s === "A" ? a : b).push(await side(s === "A" ? base : ours));
    console.error(
      `pair ${i + 1} (${order.join("")}): A ${a[i].toFixed(1)} ns/event, B ${b[i].toFixed(1)}, B/A ${
        (b[i] / a[i]).toFixed(3)
      }`,
    );
  }
  const ratios = a.map((x, i) => b[i] / x);
  console.log(
    `ns/event median: A ${median(a).toFixed(1)}, B ${median(b).toFixed(1)}; B/A median ${median(ratios).toFixed(3)} ` +
      `(min ${Math.min(...ratios).toFixed(3)}, max ${Math.max(...ratios).toFixed(3)}, ${pairs} pairs)`,
  );
}
