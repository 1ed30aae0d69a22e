/**
 * A/B micro-benchmark of the response hot path between two source trees: the chat adapter's `parseEvent` and the
 * `ResponseCollector` over a vLLM-shaped stream (one token per event, then the usage chunk), plus the per-request
 * work the request executor does on the response headers where the tree has it (the server-timing lookup). It is
 * what runs for every SSE event of a run, so a change there shows here first.
 *
 *   git archive <commit> | tar -x -C /tmp/base
 *   deno run -A scripts/bench/collector_ab.ts --base /tmp/base [--rounds 100] [--events 200] [--timings]
 *   deno run -A scripts/bench/collector_ab.ts --base /tmp/base --processes [--pairs 7] [--seconds 2]
 *
 * By default both trees run in one process in alternating 100 ms rounds (`--rounds`, default 100) and the median
 * per-round B/A ratio is reported; `--processes` runs each side in fresh processes instead, alternating which goes
 * first (`--pairs`), which keeps JIT state apart but is much noisier on a shared machine. `--timings` makes every response end with a llama.cpp `timings` chunk (the
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

/** One response's hot-path work with a tree's modules, as a function (its return value feeds a sink). */
async function loadTree(tree: string): Promise<() => number> {
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
  return () => {
    const c = new ResponseCollector(CHAT_ADAPTER);
    for (let i = 0; i < payloads.length; i++) c.onEvent(payloads[i], i);
    c.flush();
    const timed = headerTiming !== undefined && headerTiming(headers) !== undefined ? 1 : 0;
    return timed + c.responseTimes.length + (c.usage?.completionTokens ?? 0);
  };
}

async function child(tree: string): Promise<void> {
  const run = await loadTree(tree);
  const payloads = stream();
  let sink = 0;
  const one = () => {
    sink += run();
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

/**
 * Both trees in one process, in alternating 100 ms rounds: load on a shared machine changes between rounds, not
 * between the two halves of one, so the per-round ratio is far steadier than across processes.
 */
async function interleaved(base: string, ours: string, rounds: number): Promise<void> {
  const runs = [await loadTree(base), await loadTree(ours)];
  const events = stream().length;
  let sink = 0;
  const time = (f: () => number, ms: number): number => {
    let n = 0;
    const start = performance.now();
    while (performance.now() - start < ms) {
      sink += f();
      n++;
    }
    return ((performance.now() - start) * 1e6) / (n * events);
  };
  for (let i = 0; i < 10; i++) time(runs[i % 2], 100); // warm both up
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const first = i % 2;
    const x = time(runs[first], 100);
    const y = time(runs[1 - first], 100);
    a.push(first === 0 ? x : y);
    b.push(first === 0 ? y : x);
  }
  const ratios = a.map((x, i) => b[i] / x);
  console.log(
    `in one process, ${rounds} alternating rounds of 100 ms: ns/event median A ${median(a).toFixed(1)}, B ${
      median(b).toFixed(1)
    }; B/A median ${median(ratios).toFixed(3)} (p25 ${percentile(ratios, 25).toFixed(3)}, p75 ${
      percentile(ratios, 75).toFixed(3)
    })${sink < 0 ? "" : ""}`,
  );
}

function percentile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor((q / 100) * s.length))];
}

if (Deno.args.includes("--child")) {
  await child(resolve(arg("child")));
} else if (Deno.args.includes("--processes")) {
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
} else {
  await interleaved(
    resolve(arg("base")),
    resolve(new URL("../..", import.meta.url).pathname),
    Number(arg("rounds", "100")),
  );
}
