/**
 * Start-up time, measured from outside the process: `infermeter --version` wall time, and the time from
 * spawning `infermeter profile` to the first request's first byte arriving at the server.
 *
 * The client is pointed at a pass-through TCP relay in this process that stamps every read that starts an HTTP
 * `POST` (an inference request; the preflight only connects, and the server-identity probe is a GET sent while
 * the run is still starting) and forwards the bytes to a real `serve-sim`.
 * The spawn instant is taken just before `spawn()`, so the figure includes the runtime's own start.
 *
 * Every figure is also given as a ratio to a reference run just before each timed run (`deno run` of an empty
 * module), and as CPU time (all threads, Linux: to the first request, or of the whole `--version` run), which other
 * processes on a busy machine disturb far less than wall time.
 *
 * Cases: from source and (when built) from the bundle, and from source confined to one core (`taskset -c 0`,
 * where the run waits for the counting Worker); with the built-in tokenizer's table cache warm and cold (an empty
 * INFERMETER_CACHE_DIR per run, i.e. a first run on a new machine). With `--tokenizer SPEC` (repeatable; a
 * `tokenizer.json` directory or a hub id in the local Hugging Face cache), from source also with that tokenizer,
 * cold and warm, and what it adds to the first request over the built-in one.
 *
 * Usage: deno run -A scripts/bench/startup_bench.ts [--runs 7] [--json] [--tokenizer SPEC]... [--only bundle|source]
 *   [--bundle PATH]   (default dist/infermeter.js, as `deno task bundle` writes it with its folder dist/infermeter/)
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startSimServer } from "./sim_launcher.ts";
import { pinned, quickCommand } from "./child_runner.ts";
import { V8_FLAGS_ARG } from "../../src/runtime/v8_flags.ts";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const runsArg = Deno.args.indexOf("--runs");
const runs = runsArg >= 0 ? Number(Deno.args[runsArg + 1]) : 7;
const asJson = Deno.args.includes("--json");
const tokenizers = Deno.args.flatMap((a, i) => Deno.args[i - 1] === "--tokenizer" ? [a] : []);
/** `--only bundle` (or `source`): that form alone, as the bench's verdict asks for the bundle's first request. */
const only = Deno.args.flatMap((a, i) => Deno.args[i - 1] === "--only" ? [a] : [])[0];

const REFERENCE = "reference: deno run of an empty module";

/** AIPerf's defaults with 550-token prompts: 100 synthetic entries, 10 requests. */
const PROFILE_ARGS = [
  "profile",
  "-m",
  "sim-model",
  "--endpoint-type",
  "chat",
  "--streaming",
  "--synthetic-input-tokens-mean",
  "550",
  "--output-tokens-mean",
  "10",
  "--ui",
  "none",
];

interface Stats {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

function stats(xs: number[]): Stats {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length / 2;
  const median = s.length % 2 ? s[Math.floor(mid)] : (s[mid - 1] + s[mid]) / 2;
  return { median, min: s[0], max: s[s.length - 1] };
}

const epochNow = () => performance.timeOrigin + performance.now();

/** Relays 127.0.0.1:<port> → target and records when each POST's first byte arrives (a client writes a request at once). */
function startRelay(target: { hostname: string; port: number }) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const firstBytes: number[] = [];
  const relay = {
    /** Called once at the next POST's first byte (then cleared): the run's CPU time is read there. */
    onPost: undefined as (() => void) | undefined,
  };
  (async () => {
    for await (const conn of listener) {
      (async () => {
        const upstream = await Deno.connect(target);
        const buf = new Uint8Array(64 * 1024);
        const back = conn.writable && upstream.readable.pipeTo(conn.writable).catch(() => {});
        try {
          for (;;) {
            const n = await conn.read(buf);
            if (n === null) break;
            if (n >= 5 && buf[0] === 0x50 && buf[1] === 0x4f && buf[2] === 0x53 && buf[3] === 0x54 && buf[4] === 0x20) {
              firstBytes.push(epochNow()); // "POST "
              const onPost = relay.onPost;
              relay.onPost = undefined;
              onPost?.();
            }
            let off = 0;
            while (off < n) off += await upstream.write(buf.subarray(off, n));
          }
        } catch {
          // the client went away
        }
        await upstream.closeWrite().catch(() => {}); // already closed
        await back;
      })();
    }
  })().catch(() => {});
  return {
    set onPost(f: (() => void) | undefined) {
      relay.onPost = f;
    },
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    takeFirst(): number | undefined {
      const first = firstBytes.length > 0 ? Math.min(...firstBytes) : undefined;
      firstBytes.length = 0;
      return first;
    },
    close: () => listener.close(),
  };
}

/**
 * CPU time, less sensitive than wall time to other processes on a busy machine (Linux only, else undefined).
 * `processCpuMs`: every thread of a running process so far (`/proc/<pid>/task/<tid>/schedstat`, nanoseconds).
 * `reapedChildrenCpuMs`: this process's waited-for children together (`/proc/self/stat` cutime + cstime, 10 ms ticks).
 */
function processCpuMs(pid: number): number | undefined {
  try {
    let ns = 0;
    for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
      ns += Number(Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/schedstat`).split(" ")[0]);
    }
    return ns / 1e6;
  } catch {
    return undefined; // not Linux, or the process is gone
  }
}
function reapedChildrenCpuMs(): number | undefined {
  try {
    const stat = Deno.readTextFileSync("/proc/self/stat");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" "); // fields from the 3rd (state) on
    return (Number(fields[13]) + Number(fields[14])) * 10; // cutime, cstime: fields 16 and 17, USER_HZ 100
  } catch {
    return undefined;
  }
}

/**
 * Runs to completion; returns the spawn instant (epoch ms), the wall time, the CPU time of the whole run and, when
 * a request reached the relay, the process's CPU time at that moment.
 */
async function runOnce(
  argv: string[],
  env: Record<string, string>,
): Promise<{ t0: number; ms: number; cpuMs?: number; cpuAtPostMs?: number }> {
  const cpuBefore = reapedChildrenCpuMs();
  const t0 = epochNow();
  const child = new Deno.Command(argv[0], { args: argv.slice(1), env, stdout: "null", stderr: "piped", cwd: repoRoot })
    .spawn();
  let cpuAtPostMs: number | undefined;
  relay.onPost = () => cpuAtPostMs = processCpuMs(child.pid);
  const out = await child.output();
  relay.onPost = undefined;
  if (out.code !== 0) {
    throw new Error(`${argv.join(" ")} exited ${out.code}: ${new TextDecoder().decode(out.stderr).slice(-2000)}`);
  }
  const ms = epochNow() - t0;
  const cpuAfter = reapedChildrenCpuMs();
  const cpuMs = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
  return { t0, ms, cpuMs, cpuAtPostMs };
}

const sim = await startSimServer({ repoRoot });
const simUrl = new URL(sim.url);
const relay = startRelay({ hostname: simUrl.hostname, port: Number(simUrl.port) });
const artifacts = await Deno.makeTempDir({ prefix: "infermeter-startup-" });
const warmCache = join(artifacts, "cache");

const bundleArg = Deno.args.indexOf("--bundle");
const bundle = bundleArg >= 0 ? Deno.args[bundleArg + 1] : join(repoRoot, "dist", "infermeter.js");
const forms: { name: string; cmd: string[] }[] = [{
  name: "source",
  cmd: [Deno.execPath(), "run", "-A", V8_FLAGS_ARG, "main.ts"],
}];
try {
  Deno.statSync(bundle);
  forms.push({ name: "bundle", cmd: [Deno.execPath(), "run", "-A", V8_FLAGS_ARG, bundle] });
} catch {
  console.error(`(no ${bundle}: run \`deno task bundle\` to measure the bundle too)`);
}

// Confined to one core, the engine waits for the counting Worker's tables before sending (src/cli/profile.ts).
if (navigator.hardwareConcurrency >= 2 && (await quickCommand(["taskset", "-c", "0", "true"])).code === 0) {
  forms.push({ name: "source on one core", cmd: pinned(forms[0].cmd, "0") });
}

const results: Record<string, unknown> = {};
/** Each row's median ratio of a run to the reference run just before it. */
const ratios: Record<string, number> = {};
const referenceMs: number[] = [];
/** Each row's median CPU time (every thread of the process, Linux): to the first request, or of the whole run. */
const cpu: Record<string, number> = {};
const referenceCpu: number[] = [];
let referenceRun: () => Promise<number> = () => Promise.resolve(NaN);
try {
  // The reference, measured just before every timed run: the runtime's own start, `deno run` of an empty module,
  // which every figure includes. On a busy machine all of them move together; each run's ratio to the reference
  // beside it is the comparable figure.
  const emptyModule = join(artifacts, "empty.js");
  await Deno.writeTextFile(emptyModule, "");
  referenceRun = async () => {
    const { ms, cpuMs } = await runOnce([Deno.execPath(), "run", "-A", V8_FLAGS_ARG, emptyModule], {});
    referenceMs.push(ms);
    if (cpuMs !== undefined) referenceCpu.push(cpuMs);
    return ms;
  };
  for (const form of forms) {
    if (only !== undefined && !form.name.startsWith(only)) continue;
    const version: number[] = [];
    const versionRatios: number[] = [];
    const versionCpu: number[] = [];
    for (let i = 0; i < runs; i++) {
      const ref = await referenceRun();
      const { ms, cpuMs } = await runOnce([...form.cmd, "--version"], {});
      version.push(ms);
      versionRatios.push(ms / ref);
      if (cpuMs !== undefined) versionCpu.push(cpuMs);
    }
    results[`${form.name} --version`] = stats(version);
    ratios[`${form.name} --version`] = stats(versionRatios).median;
    if (versionCpu.length > 0) cpu[`${form.name} --version`] = stats(versionCpu).median;

    const specs = form === forms[0] ? ["builtin", ...tokenizers] : ["builtin"];
    for (const spec of specs) {
      const argv = [
        ...form.cmd,
        ...PROFILE_ARGS,
        ...(spec === "builtin" ? [] : ["--tokenizer", spec]),
        "--url",
        relay.url,
        "--artifact-dir",
        join(artifacts, "a"),
      ];
      const label = spec === "builtin" ? "" : ` ${spec},`;
      const warm = join(warmCache, String(specs.indexOf(spec)));
      for (const cache of ["warm", "cold"] as const) {
        const firstRequest: number[] = [];
        const firstRatios: number[] = [];
        const firstCpu: number[] = [];
        // One untimed run fills the warm cache (and the OS page cache) first.
        if (cache === "warm") {
          await runOnce(argv, { INFERMETER_CACHE_DIR: warm });
          relay.takeFirst();
        }
        for (let i = 0; i < runs; i++) {
          const cacheDir = cache === "warm" ? warm : join(artifacts, `cold-${form.name}-${specs.indexOf(spec)}-${i}`);
          const ref = await referenceRun();
          const { t0, cpuAtPostMs } = await runOnce(argv, { INFERMETER_CACHE_DIR: cacheDir });
          if (cpuAtPostMs !== undefined) firstCpu.push(cpuAtPostMs);
          const first = relay.takeFirst();
          if (first === undefined) throw new Error("the relay saw no request");
          firstRequest.push(first - t0);
          firstRatios.push((first - t0) / ref);
        }
        results[`${form.name} first request,${label} ${cache} table cache`] = stats(firstRequest);
        ratios[`${form.name} first request,${label} ${cache} table cache`] = stats(firstRatios).median;
        if (firstCpu.length > 0) {
          cpu[`${form.name} first request,${label} ${cache} table cache`] = stats(firstCpu).median;
        }
      }
    }
  }
  if (referenceMs.length > 0) results[REFERENCE] = stats(referenceMs);
  if (referenceCpu.length > 0) cpu[REFERENCE] = stats(referenceCpu).median;
} finally {
  relay.close();
  await sim.stop();
  await Deno.remove(artifacts, { recursive: true }).catch(() => {});
}

if (asJson) {
  console.log(JSON.stringify({ runs, results, ratios, cpu }, null, 2));
} else {
  console.log(
    `infermeter start-up, ${runs} runs each, ms from spawn: median [min–max], the median ratio to the reference ` +
      `run just before each, and the median CPU time (all threads) to the first request or of the whole run`,
  );
  for (const [name, s] of Object.entries(results) as [string, Stats][]) {
    // A tokenizer's row also says what it adds over the built-in tokenizer's row with the same cache state.
    const cache = name.endsWith("warm table cache") ? "warm" : "cold";
    const base = results[`source first request, ${cache} table cache`] as Stats | undefined;
    const added = tokenizers.some((t) => name.includes(` ${t},`)) && base !== undefined
      ? `  (+${(s.median - base.median).toFixed(0)} over builtin)`
      : "";
    console.log(
      `  ${name.padEnd(70)} ${s.median.toFixed(0).padStart(4)}  [${s.min.toFixed(0)}–${s.max.toFixed(0)}]` +
        `${name in ratios ? `  ${ratios[name].toFixed(1)}×` : ""}` +
        `${name in cpu ? `  cpu ${cpu[name].toFixed(0)} ms` : ""}${added}`,
    );
  }
}
