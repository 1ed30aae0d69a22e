/**
 * Which event-loop yields let a pending socket read complete (docs/performance_history.md §2, "Yields that let socket
 * reads in"):
 *
 *   deno run -A scripts/bench/yield_probe.ts [trials=30]
 *
 * Per trial: a loopback read is posted, its data written, then the thread yields in a loop (with 50 µs of busy work
 * between yields) until the read completes, at most MAX_YIELDS times. Printed: yields until the read completed,
 * and the cost of one yield with nothing pending. The message round trip runs twice: as launched, and in a child
 * with `DENO_TOKIO_EVENT_INTERVAL=1` (the runtime then polls sockets at every task poll).
 */
import { IoYield } from "../../src/runtime/io_yield.ts";
import { nextMacrotask } from "../../src/runtime/next_macrotask.ts";

const MAX_YIELDS = 10_000;
const modes = ["message", "immediate", "io"] as const;
type Mode = typeof modes[number];

async function probe(mode: Mode, trials: number): Promise<{ yields: number[]; costUs: number[] }> {
  const io = new IoYield();
  const immediate = () => new Promise<void>((resolve) => setImmediate(resolve));
  const yieldOnce = mode === "io" ? io.wait : mode === "message" ? nextMacrotask : immediate;
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const [server, client] = await Promise.all([
    listener.accept(),
    Deno.connect({ hostname: "127.0.0.1", port: (listener.addr as Deno.NetAddr).port }),
  ]);
  listener.close();
  const yields: number[] = [];
  const buf = new Uint8Array(16);
  for (let trial = 0; trial < trials; trial++) {
    let done = false;
    const read = client.read(buf).then(() => done = true);
    await server.write(new Uint8Array([1]));
    let n = 0;
    while (!done && n < MAX_YIELDS) {
      const until = performance.now() + 0.05;
      while (performance.now() < until) { /* the work being sliced */ }
      await yieldOnce();
      n++;
    }
    yields.push(done ? n : Infinity);
    await read;
  }
  const costUs: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const t = performance.now();
    await yieldOnce();
    costUs.push((performance.now() - t) * 1000);
  }
  server.close();
  client.close();
  io.close();
  return { yields, costUs };
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

function row(label: string, r: { yields: number[]; costUs: number[] }): string {
  const y = r.yields;
  const range = `${Math.min(...y)}–${Math.max(...y)}`.replaceAll("Infinity", `>${MAX_YIELDS}`);
  return `${label.padEnd(44)} ${range.padStart(14)}   ${quantile(r.costUs, 0.5).toFixed(1).padStart(6)} / ${
    quantile(r.costUs, 0.99).toFixed(1)
  } µs`;
}

if (Deno.args[0] === "--child") {
  console.log(JSON.stringify(await probe(Deno.args[1] as Mode, Number(Deno.args[2]))));
} else {
  const trials = Number(Deno.args[0] ?? 30);
  console.log(`yields until a pending socket read completed (${trials} trials), cost of one idle yield p50 / p99`);
  for (const mode of modes) console.log(row(mode, await probe(mode, trials)));
  const child = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL(import.meta.url).pathname, "--child", "message", String(trials)],
    env: { DENO_TOKIO_EVENT_INTERVAL: "1" },
    stderr: "inherit",
  }).output();
  console.log(row("message, DENO_TOKIO_EVENT_INTERVAL=1", JSON.parse(new TextDecoder().decode(child.stdout))));
}
