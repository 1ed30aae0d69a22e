/**
 * Where the time before `profile`'s first request goes: V8's CPU profiler over the inspector, from the first line of
 * the program (`--inspect-brk`) to the first `POST` reaching a relay in front of `serve-sim`, main thread only.
 * Prints the self time by function and by module, and writes the `.cpuprofile` (Chrome DevTools reads it).
 * The inspector slows the program down; read the shares, not the absolute figures.
 *
 * Usage: deno run -A scripts/bench/startup_profile.ts [--bundle PATH] [--interval-us 100] [--top 40] [--out FILE]
 *   (default: dist/infermeter.js; `--bundle main.ts` profiles from source)
 */
import { fileURLToPath } from "node:url";
import { startSimServer } from "./sim_launcher.ts";
import { V8_FLAGS_ARG } from "../../src/runtime/v8_flags.ts";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const arg = (name: string, fallback: string) => {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Deno.args[i + 1] : fallback;
};
const bundle = arg("--bundle", `${repoRoot}dist/infermeter.js`);
const intervalUs = Number(arg("--interval-us", "100"));
const top = Number(arg("--top", "40"));
const out = arg("--out", "/tmp/infermeter-startup.cpuprofile");

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const sim = await startSimServer({ repoRoot });
const target = new URL(sim.url);
let onPost: (() => void) | undefined;
const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
(async () => {
  for await (const conn of listener) {
    (async () => {
      const upstream = await Deno.connect({ hostname: target.hostname, port: Number(target.port) });
      const back = upstream.readable.pipeTo(conn.writable).catch(() => {});
      const buf = new Uint8Array(65536);
      try {
        for (;;) {
          const n = await conn.read(buf);
          if (n === null) break;
          if (n >= 5 && new TextDecoder().decode(buf.subarray(0, 5)) === "POST ") {
            const f = onPost;
            onPost = undefined;
            f?.();
          }
          let off = 0;
          while (off < n) off += await upstream.write(buf.subarray(off, n));
        }
      } catch {
        // the client went away
      }
      await upstream.closeWrite().catch(() => {});
      await back;
    })();
  }
})().catch(() => {});
const relayUrl = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`;
const artifacts = await Deno.makeTempDir({ prefix: "infermeter-startup-profile-" });

const child = new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    "-A",
    V8_FLAGS_ARG,
    "--inspect-brk=127.0.0.1:0",
    bundle,
    ...["profile", "-m", "sim-model", "--endpoint-type", "chat", "--streaming", "--synthetic-input-tokens-mean", "550"],
    ...["--output-tokens-mean", "10", "--ui", "none", "--url", relayUrl, "--artifact-dir", artifacts],
  ],
  cwd: repoRoot,
  stdout: "null",
  stderr: "piped",
  env: { INFERMETER_CACHE_DIR: `${artifacts}/cache` },
}).spawn();

// The inspector prints its WebSocket URL on stderr.
const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
let seen = "";
let wsUrl: string | undefined;
while (wsUrl === undefined) {
  const { value, done } = await reader.read();
  if (done) throw new Error(`no inspector URL: ${seen}`);
  seen += value;
  wsUrl = seen.match(/ws:\/\/\S+/)?.[0];
}
(async () => {
  while (!(await reader.read()).done) { /* drain */ }
})();

const socket = new WebSocket(wsUrl);
await new Promise((resolve, reject) => {
  socket.onopen = resolve;
  socket.onerror = () => reject(new Error("inspector connection failed"));
});
let nextId = 1;
const waiting = new Map<number, (r: unknown) => void>();
socket.onmessage = (e) => {
  const m = JSON.parse(String(e.data)) as { id?: number; result?: unknown };
  if (m.id !== undefined) waiting.get(m.id)?.(m.result);
};
const call = (method: string, params: Record<string, unknown> = {}) =>
  new Promise<unknown>((resolve) => {
    const id = nextId++;
    waiting.set(id, resolve);
    socket.send(JSON.stringify({ id, method, params }));
  });

await call("Profiler.enable");
await call("Profiler.setSamplingInterval", { interval: intervalUs });
await call("Runtime.enable");
await call("Profiler.start");
const posted = new Promise<void>((resolve) => onPost = resolve);
await call("Runtime.runIfWaitingForDebugger");
await posted;
const { profile } = await call("Profiler.stop") as { profile: CpuProfile };
socket.close();
await child.status;
listener.close();
await sim.stop();
await Deno.remove(artifacts, { recursive: true }).catch(() => {});
await Deno.writeTextFile(out, JSON.stringify(profile));

// Self time per node, then grouped.
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
for (let i = 0; i < profile.samples.length; i++) {
  self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i + 1] ?? 0) / 1000);
}
const total = (profile.endTime - profile.startTime) / 1000;
const byFunction = new Map<string, number>();
const byModule = new Map<string, number>();
for (const [id, ms] of self) {
  const f = byId.get(id)!.callFrame;
  const file = f.url.replace(/^.*\//, "") || "(native)";
  const key = `${f.functionName || "(anonymous)"} ${file}:${f.lineNumber + 1}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + ms);
  byModule.set(file, (byModule.get(file) ?? 0) + ms);
}
const show = (title: string, m: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [k, ms] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`  ${ms.toFixed(1).padStart(7)} ms  ${k}`);
  }
};
console.log(`main thread, program start → first POST: ${total.toFixed(1)} ms (profile written to ${out})`);
show("self time by module", byModule);
show("self time by function", byFunction);
