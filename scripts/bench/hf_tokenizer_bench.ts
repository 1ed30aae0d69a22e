/**
 * Cost of a Hugging Face `tokenizer.json` at start-up, each in a fresh child process: time to load it through
 * `loadTokenizer` (as `--tokenizer` does), time of the first count (what stands between loading and the first
 * request), throughput of later counts, and the child's peak RSS (VmHWM from /proc/self/status, Linux).
 *
 *   deno run -A scripts/bench/hf_tokenizer_bench.ts <tokenizer dir or hub id>...
 *
 * Hub ids resolve through the local Hugging Face cache (HF_HUB_CACHE, HF_HOME, ~/.cache/huggingface). The
 * baseline row (`builtin`) is the builtin o200k tokenizer, for comparison. Targets: ≤ 150 ms from start of load
 * to the first count done, ≤ 150 MB peak RSS.
 */
import { loadTokenizer } from "../../src/tokenizer/load_tokenizer.ts";
import { DEFAULT_CORPUS } from "../../src/dataset/default_corpus.ts";

interface ChildResult {
  readonly spec: string;
  readonly loadMs: number;
  readonly firstCountMs: number;
  readonly tokensPerSec: number;
  readonly peakRssMb: number;
  readonly tokens: number;
}

function peakRssMb(): number {
  const status = Deno.readTextFileSync("/proc/self/status");
  const kb = Number(/VmHWM:\s+(\d+)\s+kB/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

async function child(spec: string): Promise<void> {
  const t0 = performance.now();
  const tokenizer = await loadTokenizer(spec);
  const t1 = performance.now();
  const first = tokenizer.count("Hello, world! This is the first prompt of the run.");
  const t2 = performance.now();
  const text = DEFAULT_CORPUS.slice(0, 200_000);
  let tokens = 0;
  const t3 = performance.now();
  for (let i = 0; i < 3; i++) tokens = tokenizer.count(text);
  const t4 = performance.now();
  const result: ChildResult = {
    spec,
    loadMs: t1 - t0,
    firstCountMs: t2 - t1,
    tokensPerSec: (3 * tokens) / ((t4 - t3) / 1000),
    peakRssMb: peakRssMb(),
    tokens: tokens + first * 0,
  };
  console.log(JSON.stringify(result));
}

if (Deno.args[0] === "--child") {
  await child(Deno.args[1]);
} else {
  const specs = ["builtin", ...Deno.args];
  console.log(
    "| tokenizer | load (ms) | first count (ms) | load + first count (ms) | counts (tokens/s) | peak RSS (MB) |",
  );
  console.log("| --- | --: | --: | --: | --: | --: |");
  for (const spec of specs) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL(import.meta.url).pathname, "--child", spec],
      stdout: "piped",
      stderr: "inherit",
    }).output();
    if (!out.success) {
      console.log(`| ${spec} | failed | | | | |`);
      continue;
    }
    const r = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!) as ChildResult;
    console.log(
      `| ${r.spec} | ${r.loadMs.toFixed(0)} | ${r.firstCountMs.toFixed(1)} | ${
        (r.loadMs + r.firstCountMs).toFixed(0)
      } | ${(r.tokensPerSec / 1e6).toFixed(2)} M | ${r.peakRssMb.toFixed(0)} |`,
    );
  }
}
