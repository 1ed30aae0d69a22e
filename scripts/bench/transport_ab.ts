/**
 * A/B benchmark of the HTTP client between two source trees: client CPU per non-streaming 1-token chat request at
 * concurrency 64 against one `serve-sim --fast`, the request's bytes, the response's reading into `ex.body` and the
 * connection's reuse as the engine does them (no records, no metrics: the transport alone).
 *
 *   git archive <commit> | tar -x -C /tmp/base
 *   taskset -c 0 deno run -A scripts/bench/transport_ab.ts --base /tmp/base [--rounds 30] [--requests 20000]
 *
 * Both trees' clients run in this one process, in alternating rounds of `--requests` requests each, against one
 * server (pinned to CPU 1 where `taskset` exists; pin this process to another core as above). CPU is this process's
 * user + system time over the round (`process.cpuUsage`), so other processes on the machine inflate both sides
 * alike and the per-round ratio B/A is the figure to read. Loopback only.
 */
import { cpuUsage } from "node:process";
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";
import { startSimServer } from "./sim_launcher.ts";

const arg = (name: string, fallback: string): string => {
  const at = Deno.args.indexOf(`--${name}`);
  return at >= 0 && at + 1 < Deno.args.length ? Deno.args[at + 1] : fallback;
};
const base = arg("base", "");
if (base === "") throw new TypeError("--base DIR (a checkout of the tree to compare against) is required.");
const rounds = Number(arg("rounds", "30"));
const perRound = Number(arg("requests", "20000"));
const CONCURRENCY = 64;
const ours = resolve(new URL("../..", import.meta.url).pathname);

interface Exchange {
  readonly error?: unknown;
  readonly body?: Uint8Array;
}
interface Client {
  send(req: unknown, opts?: unknown): Promise<Exchange>;
  close(): void;
}

const body = new TextEncoder().encode(JSON.stringify({
  model: "sim-model",
  messages: [{ role: "user", content: Array(32).fill("the").join(" ") }],
  stream: false,
  max_completion_tokens: 1,
  ignore_eos: true,
}));
const headers: [string, string][] = [["Content-Type", "application/json"], ["Accept", "application/json"]];

async function clientOf(tree: string, url: string): Promise<Client> {
  const from = (path: string) => import(pathToFileURL(`${tree}/${path}`).href);
  const { HttpClient } = await from("src/transport/http_client.ts");
  const { parseTarget } = await from("src/transport/parse_target.ts");
  return new HttpClient(parseTarget(url), {}) as Client;
}

/** `count` requests, 64 in flight; client CPU µs per request. */
async function round(client: Client, count: number): Promise<number> {
  let left = count;
  let bytes = 0;
  const worker = async () => {
    while (left > 0) {
      left--;
      const id = crypto.randomUUID();
      const ex = await client.send({
        method: "POST",
        path: "/v1/chat/completions",
        commonHeaders: headers,
        headers: [["X-Request-ID", id], ["X-Correlation-ID", id], ["X-Session-Affinity", id]],
        body,
      }, { startedAt: performance.now() });
      if (ex.error !== undefined) throw new Error(`request failed: ${JSON.stringify(ex.error)}`);
      bytes += ex.body?.length ?? 0;
    }
  };
  const before = cpuUsage();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const used = cpuUsage(before);
  if (bytes === 0) throw new Error("no body bytes read");
  return (used.user + used.system) / count;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const server = await startSimServer({ repoRoot: ours, cores: "1" });
try {
  const clients = [await clientOf(resolve(base), server.url), await clientOf(ours, server.url)] as const;
  for (let i = 0; i < 4; i++) await round(clients[i % 2], perRound / 2); // warm both up
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const first = i % 2;
    const x = await round(clients[first], perRound);
    const y = await round(clients[1 - first], perRound);
    a.push(first === 0 ? x : y);
    b.push(first === 0 ? y : x);
  }
  const ratios = a.map((x, i) => b[i] / x);
  const sorted = [...ratios].sort((p, q) => p - q);
  console.log(
    `${rounds} alternating rounds of ${perRound} requests: client CPU µs per request median A ${
      median(a).toFixed(2)
    } [${Math.min(...a).toFixed(2)}–${Math.max(...a).toFixed(2)}], B ${median(b).toFixed(2)} [${
      Math.min(...b).toFixed(2)
    }–${Math.max(...b).toFixed(2)}]; B/A median ${median(ratios).toFixed(3)} (p25 ${
      sorted[Math.floor(rounds / 4)].toFixed(3)
    }, p75 ${sorted[Math.floor((3 * rounds) / 4)].toFixed(3)})`,
  );
  for (const c of clients) c.close();
} finally {
  await server.stop();
}
