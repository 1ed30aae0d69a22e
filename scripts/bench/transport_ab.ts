/**
 * A/B micro-benchmark of the HTTP transport between two source trees (e.g. a `git worktree` of an older commit
 * against this one): requests/s and SSE events/s of `HttpClient` against raw_sse_server.ts, streaming (many SSE
 * events per response) and non-streaming (one small JSON body).
 *
 *   git worktree add /tmp/transport-base <commit>
 *   deno run -A scripts/bench/transport_ab.ts --base /tmp/transport-base [--pairs 5] [--events 100]
 *       [--concurrency 16] [--duration 3] [--warmup 1]
 *   git worktree remove /tmp/transport-base
 *
 * Each pair runs A and B back to back in fresh processes, alternating which goes first (A B, B A, …), so drift
 * on a shared machine falls on both sides. Reports per pair, then the median, min and max of each side and the
 * median of the per-pair B/A ratios, for requests/s and for the client's CPU time per request (user + system,
 * all threads; on a shared, noisy machine the steadier of the two, since waiting costs no CPU). With `taskset` the servers run on CPU 1 and the clients on CPU 0.
 * Loopback only.
 */
import { resolve } from "node:path";

function arg(name: string, fallback?: string): string {
  const at = Deno.args.indexOf(`--${name}`);
  if (at >= 0 && at + 1 < Deno.args.length) return Deno.args[at + 1];
  if (fallback === undefined) throw new TypeError(`--${name} is required.`);
  return fallback;
}

const base = resolve(arg("base"));
const ours = resolve(new URL("../..", import.meta.url).pathname);
const pairs = Number(arg("pairs", "5"));
const eventsPerResponse = arg("events", "100");
const common = ["--concurrency", arg("concurrency", "16"), "--duration", arg("duration", "3")]
  .concat(["--warmup", arg("warmup", "1")]);

async function hasTaskset(): Promise<boolean> {
  try {
    return (await new Deno.Command("taskset", { args: ["--version"], stdout: "null", stderr: "null" }).output())
      .success;
  } catch {
    return false;
  }
}

const pin = await hasTaskset();

function command(cpu: string, args: string[]): Deno.Command {
  return pin
    ? new Deno.Command("taskset", { args: ["-c", cpu, Deno.execPath(), ...args], stdout: "piped" })
    : new Deno.Command(Deno.execPath(), { args, stdout: "piped" });
}

async function startServer(content: string): Promise<{ port: number; child: Deno.ChildProcess }> {
  const script = `${ours}/scripts/bench/raw_sse_server.ts`;
  const child = command("1", ["run", "-A", script, "--port", "0", "--events", eventsPerResponse, "--content", content])
    .spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("raw_sse_server exited before listening; run it alone to see why.");
    text += value;
  }
  reader.releaseLock();
  return { port: Number(/listening (\d+)/.exec(text)?.[1]), child };
}

interface Side {
  readonly requests: number;
  readonly events: number;
  readonly errors: number;
  readonly seconds: number;
  readonly cpuSeconds: number;
}

async function runSide(tree: string, port: number, mode: string): Promise<Side> {
  const script = `${ours}/scripts/bench/transport_ab_client.ts`;
  const out = await command("0", [
    "run",
    "-A",
    script,
    "--tree",
    tree,
    "--port",
    String(port),
    "--mode",
    mode,
    ...common,
  ])
    .output();
  if (!out.success) throw new Error(`the ${tree} client failed; run transport_ab_client.ts alone to see why.`);
  return JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

console.error(`A = ${base}\nB = ${ours}\n${pin ? "servers on CPU 1, clients on CPU 0" : "no taskset: unpinned"}`);
const report: string[] = [];
for (const [mode, content] of [["stream", "sse"], ["json", "json"]] as const) {
  const { port, child } = await startServer(content);
  const a: number[] = [];
  const b: number[] = [];
  const cpuA: number[] = [];
  const cpuB: number[] = [];
  try {
    for (let i = 0; i < pairs; i++) {
      const order = i % 2 === 0 ? ["A", "B"] : ["B", "A"];
      for (const side of order) {
        const r = await runSide(side === "A" ? base : ours, port, mode);
        if (r.errors > 0) throw new Error(`${side} ${mode}: ${r.errors} errors`);
        (side === "A" ? a : b).push(r.requests / r.seconds);
        (side === "A" ? cpuA : cpuB).push(1e6 * r.cpuSeconds / Math.max(1, r.requests));
      }
      console.error(
        `${mode} pair ${i + 1} (${order.join("")}): A ${fmt(a[i])} req/s, B ${fmt(b[i])} req/s, B/A ${
          (b[i] / a[i]).toFixed(3)
        }; client CPU µs/request A ${cpuA[i].toFixed(1)}, B ${cpuB[i].toFixed(1)}`,
      );
    }
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
  const ratios = a.map((x, i) => b[i] / x);
  const cpuRatios = cpuA.map((x, i) => cpuB[i] / x);
  const spread = (xs: number[]) => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`;
  const unit = mode === "stream" ? ` req/s (× ${Number(eventsPerResponse) + 1} events)` : " req/s";
  report.push(
    `${mode}: A median ${fmt(median(a))}${unit} [${fmt(Math.min(...a))}–${fmt(Math.max(...a))}], ` +
      `B median ${fmt(median(b))} [${fmt(Math.min(...b))}–${fmt(Math.max(...b))}]; ` +
      `B/A per pair median ${median(ratios).toFixed(3)} [${Math.min(...ratios).toFixed(3)}–${
        Math.max(...ratios).toFixed(3)
      }]; client CPU µs/request A median ${median(cpuA).toFixed(1)} [${spread(cpuA)}], B median ${
        median(cpuB).toFixed(1)
      } [${spread(cpuB)}], B/A per pair median ${median(cpuRatios).toFixed(3)}`,
  );
}
console.log(report.join("\n"));
