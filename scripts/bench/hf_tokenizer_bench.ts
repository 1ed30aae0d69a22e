/**
 * Cost of a Hugging Face `tokenizer.json` at start-up, each in a fresh child process: time to load it (as
 * `--tokenizer` does), time of the first count (what stands between loading and the first request), throughput
 * of later counts, and the child's peak RSS (VmHWM from /proc/self/status, Linux).
 *
 *   deno run -A scripts/bench/hf_tokenizer_bench.ts [--runs N] <tokenizer dir or hub id>...
 *
 * Hub ids resolve through the local Hugging Face cache (HF_HUB_CACHE, HF_HOME, ~/.cache/huggingface). Rows per
 * tokenizer: the first load on a machine as a run's main thread makes it (no table cache yet: chained merges),
 * the first load with full tables (what a run builds and caches once its results are written), a load from that
 * cache (every later load), and `@huggingface/tokenizers` (the general path). The baseline row (`builtin`) is the builtin
 * o200k tokenizer. Each row is the median of N fresh processes (default 5), with the fastest and slowest of the
 * load + first count. Targets: ≤ 150 ms from start of load to the first count done, ≤ 150 MB peak RSS.
 */
import { loadTokenizer, locateTokenizer } from "../../src/tokenizer/load_tokenizer.ts";
import { loadHfTokenizer } from "../../src/tokenizer/hf_tokenizer.ts";
import { DEFAULT_CORPUS } from "../../src/dataset/default_corpus.ts";

type Mode = "builtin" | "quick" | "cold" | "warm" | "library";

interface ChildResult {
  readonly loadMs: number;
  readonly firstCountMs: number;
  readonly tokensPerSec: number;
  readonly peakRssMb: number;
  readonly engine: string;
}

function peakRssMb(): number {
  const status = Deno.readTextFileSync("/proc/self/status");
  const kb = Number(/VmHWM:\s+(\d+)\s+kB/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

async function child(spec: string, mode: Mode): Promise<void> {
  const t0 = performance.now();
  const tokenizer = mode === "builtin"
    ? await loadTokenizer(spec)
    : await loadHfTokenizer(locateTokenizer(spec, Deno.env.toObject()), {
      forceLibrary: mode === "library",
      quickStart: mode === "quick",
      awaitCacheWrite: false,
    });
  const t1 = performance.now();
  tokenizer.count("Hello, world! This is the first prompt of the run.");
  const t2 = performance.now();
  const text = DEFAULT_CORPUS.slice(0, 200_000);
  let tokens = 0;
  const t3 = performance.now();
  for (let i = 0; i < 3; i++) tokens = tokenizer.count(text);
  const t4 = performance.now();
  const result: ChildResult = {
    loadMs: t1 - t0,
    firstCountMs: t2 - t1,
    tokensPerSec: (3 * tokens) / ((t4 - t3) / 1000),
    peakRssMb: peakRssMb(),
    engine: tokenizer.engine ?? "builtin o200k",
  };
  console.log(JSON.stringify(result));
}

async function runChild(spec: string, mode: Mode, cacheDir: string): Promise<ChildResult | undefined> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL(import.meta.url).pathname, "--child", spec, mode],
    env: { INFERMETER_CACHE_DIR: cacheDir },
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!out.success) return undefined;
  return JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!) as ChildResult;
}

if (Deno.args[0] === "--child") {
  await child(Deno.args[1], Deno.args[2] as Mode);
} else {
  const args = [...Deno.args];
  const runsAt = args.indexOf("--runs");
  const runs = runsAt >= 0 ? Number(args.splice(runsAt, 2)[1]) : 5;
  console.log(
    "| tokenizer | path | load (ms) | first count (ms) | load + first count (ms), fastest–slowest | counts (tokens/s) | peak RSS (MB) |",
  );
  console.log("| --- | --- | --: | --: | --: | --: | --: |");
  const rows: [string, Mode][] = [["builtin", "builtin"]];
  for (const spec of args) rows.push([spec, "quick"], [spec, "cold"], [spec, "warm"], [spec, "library"]);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const cacheDir = await Deno.makeTempDir();
  for (const [spec, mode] of rows) {
    const results: ChildResult[] = [];
    for (let run = 0; run < (mode === "library" ? Math.min(runs, 3) : runs); run++) {
      // A first load finds no cache; the cached row reads the one the previous full load wrote.
      if (mode === "quick" || mode === "cold") {
        for (const e of Deno.readDirSync(cacheDir)) Deno.removeSync(`${cacheDir}/${e.name}`, { recursive: true });
      }
      if (mode === "warm" && run === 0) {
        await runChild(spec, "cold", cacheDir);
        // The full load writes the cache in the background; give it a moment to land.
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      const r = await runChild(spec, mode, cacheDir);
      if (r !== undefined) results.push(r);
    }
    if (results.length === 0) {
      console.log(`| ${spec} | ${mode} | failed | | | | |`);
      continue;
    }
    const engine = results[0].engine;
    const path = mode === "quick"
      ? `${engine}, first load, as a run's main thread (chained merges)`
      : mode === "cold"
      ? `${engine}, first load, full tables (what a run caches after its results)`
      : mode === "warm"
      ? `${engine}, cached tables`
      : engine;
    const total = results.map((r) => r.loadMs + r.firstCountMs);
    console.log(
      `| ${spec} | ${path} | ${median(results.map((r) => r.loadMs)).toFixed(0)} | ${
        median(results.map((r) => r.firstCountMs)).toFixed(1)
      } | ${median(total).toFixed(0)} (${Math.min(...total).toFixed(0)}–${Math.max(...total).toFixed(0)}) | ${
        (median(results.map((r) => r.tokensPerSec)) / 1e6).toFixed(2)
      } M | ${median(results.map((r) => r.peakRssMb)).toFixed(0)} |`,
    );
  }
  await Deno.remove(cacheDir, { recursive: true });
}
