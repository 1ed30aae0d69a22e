/**
 * Tokenizer performance: rank-data import and table build (cold, as at CLI start), encode throughput of our BPE
 * core against js-tiktoken on the same text, memo hits, exact-length prompt synthesis, and the worker counter.
 *
 *   deno run -A scripts/bench/tokenizer_bench.ts [seconds-per-measurement=1]
 *
 * Run it in a fresh process: the first two lines are cold-start numbers (module import and the first table
 * build, before the JIT has warmed up). Throughputs are medians of repeated runs.
 */
import { BpeRanks } from "../../src/tokenizer/bpe_ranks.ts";
import { BpeTokenizer } from "../../src/tokenizer/bpe_tokenizer.ts";
import { WorkerTokenCounter } from "../../src/tokenizer/token_counter.ts";
import { PromptSynthesizer } from "../../src/dataset/prompt_synthesizer.ts";
import { SeededRandom } from "../../src/base/seeded_random.ts";
import { DEFAULT_CORPUS } from "../../src/dataset/default_corpus.ts";
import { measureLongAnswers } from "./long_answer_bench.ts";

const seconds = Number(Deno.args[0] ?? 1);

function row(label: string, value: string): void {
  console.log(`${label.padEnd(58)} ${value}`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Median tokens/s of `run` (which returns the tokens it processed), over ~`seconds`. */
function throughput(run: () => number): number {
  run();
  const rates: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  while (performance.now() < deadline || rates.length < 3) {
    const t0 = performance.now();
    const tokens = run();
    rates.push(tokens / ((performance.now() - t0) / 1000));
  }
  return median(rates);
}

function perSecond(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)} M tokens/s` : `${(n / 1e3).toFixed(0)} k tokens/s`;
}

// --- cold start --------------------------------------------------------------------------------------------------
let t0 = performance.now();
const { default: o200k } = await import("js-tiktoken/ranks/o200k_base");
const importMs = performance.now() - t0;
t0 = performance.now();
const ranks = BpeRanks.parse(o200k.bpe_ranks);
const buildMs = performance.now() - t0;
row("import js-tiktoken/ranks/o200k_base (cold)", `${importMs.toFixed(1)} ms`);
row("BpeRanks.parse, first build (cold JIT)", `${buildMs.toFixed(1)} ms (${ranks.size} tokens)`);
const warmBuilds: number[] = [];
for (let i = 0; i < 5; i++) {
  t0 = performance.now();
  BpeRanks.parse(o200k.bpe_ranks);
  warmBuilds.push(performance.now() - t0);
}
row("BpeRanks.parse, warm (median of 5)", `${median(warmBuilds).toFixed(1)} ms`);

const ours = new BpeTokenizer({ name: "builtin", ranks, pattern: o200k.pat_str, specialTokens: o200k.special_tokens });
t0 = performance.now();
const corpusTokens = ours.encode(DEFAULT_CORPUS).length;
row(
  `first encode of the corpus (${corpusTokens} tokens, cold JIT, empty memo)`,
  `${(performance.now() - t0).toFixed(1)} ms`,
);

const { Tiktoken } = await import("js-tiktoken/lite");
t0 = performance.now();
const oracle = new Tiktoken(o200k);
row("js-tiktoken new Tiktoken(o200k_base)", `${(performance.now() - t0).toFixed(0)} ms`);

// --- throughput on the same text ---------------------------------------------------------------------------------
console.log(
  `\nencode throughput on the bundled corpus (${
    (DEFAULT_CORPUS.length / 1024).toFixed(0)
  } KB, ${corpusTokens} tokens):`,
);
const noMemo = new BpeTokenizer({ name: "no-memo", ranks, pattern: o200k.pat_str, memoSize: 0 });
const oursEncode = throughput(() => ours.encode(DEFAULT_CORPUS).length);
const oursCount = throughput(() => ours.count(DEFAULT_CORPUS));
const oursNoMemo = throughput(() => noMemo.encode(DEFAULT_CORPUS).length);
const theirs = throughput(() => oracle.encode(DEFAULT_CORPUS, [], []).length);
row("ours encode()", perSecond(oursEncode));
row("ours count()", perSecond(oursCount));
row("ours encode(), memo off", perSecond(oursNoMemo));
row("js-tiktoken encode()", perSecond(theirs));
row("speed-up of encode() over js-tiktoken", `${(oursEncode / theirs).toFixed(1)}x`);

// --- memo hits ---------------------------------------------------------------------------------------------------
const rng = new SeededRandom(1);
const syllables = ["zor", "blik", "quen", "thrax", "vul", "mip", "dresk", "oon", "grav", "plim", "yst", "kesh"];
const words = Array.from({ length: 3000 }, () => {
  let word = "";
  const parts = 3 + rng.int(3);
  for (let i = 0; i < parts; i++) word += syllables[rng.int(syllables.length)];
  return word;
});
const rare = words.join(" ");
const fresh = new BpeTokenizer({ name: "fresh", ranks, pattern: o200k.pat_str });
t0 = performance.now();
const rareTokens = fresh.count(rare);
const missRate = rareTokens / ((performance.now() - t0) / 1000);
console.log(
  `\nmemo on ${words.length} invented multi-token words (${rareTokens} tokens, ${fresh.memoEntries} memo entries):`,
);
row("first pass (memo misses: byte-pair merges)", perSecond(missRate));
row("count(), memo hits", perSecond(throughput(() => fresh.count(rare))));
row("encode(), memo hits", perSecond(throughput(() => fresh.encode(rare).length)));
row("encode(), memo off", perSecond(throughput(() => noMemo.encode(rare).length)));

// --- prompt synthesis --------------------------------------------------------------------------------------------
console.log("\nexact-length prompt synthesis (builtin tokenizer already loaded):");
const synthTokenizer = new BpeTokenizer({ name: "synth", ranks, pattern: o200k.pat_str });
t0 = performance.now();
const synthesizer = new PromptSynthesizer(synthTokenizer, DEFAULT_CORPUS, new SeededRandom(42));
await synthesizer.prompt(1);
row("PromptSynthesizer build (tokenize corpus)", `${(performance.now() - t0).toFixed(1)} ms`);
const batches: number[] = [];
let inexact = 0;
for (let b = 0; b < 7; b++) {
  t0 = performance.now();
  for (let i = 0; i < 100; i++) if ((await synthesizer.prompt(550)).tokens !== 550) inexact++;
  batches.push(performance.now() - t0);
}
row("100 prompts x 550 tokens, first batch", `${batches[0].toFixed(1)} ms`);
row("100 prompts x 550 tokens, median of next 6", `${median(batches.slice(1)).toFixed(1)} ms (${inexact} inexact)`);

// --- worker counter ----------------------------------------------------------------------------------------------
console.log("\nWorkerTokenCounter (builtin, 1000 texts of ~200 tokens per batch):");
t0 = performance.now();
const counter = new WorkerTokenCounter("builtin");
await counter.ready;
row("worker start until ready (imports + table build)", `${(performance.now() - t0).toFixed(0)} ms`);
const responses: string[] = [];
for (let i = 0; i < 1000; i++) responses.push((await synthesizer.prompt(150 + (i % 100))).text);
const batchTokens = (await counter.count(responses)).reduce((a, b) => a + b, 0);
const rounds: number[] = [];
for (let r = 0; r < 10; r++) {
  t0 = performance.now();
  await counter.count(responses);
  rounds.push(performance.now() - t0);
}
row(
  "count() round trip for the batch (median of 10)",
  `${median(rounds).toFixed(1)} ms (${perSecond(batchTokens / (median(rounds) / 1000))})`,
);
counter.close();

// --- long answers ------------------------------------------------------------------------------------------------
console.log("\nlong answers (one text each, MB of text per CPU-second of this thread; target ≥ 30):");
const long = await measureLongAnswers();
for (const r of long.rows) {
  row(
    `${r.label} (${r.tokens} tokens)`,
    `${r.mbPerCpuSec.toFixed(1)} MB/s (${r.cpuSec.toFixed(2)} s CPU), again ${r.againMbPerCpuSec.toFixed(1)} MB/s`,
  );
}
row("first text of other scripts without spaces (once per process)", `${long.firstLongPieceMs.toFixed(1)} ms wall`);
for (const r of long.worker) row(`through the Worker: ${r.label}`, `${r.wallSec.toFixed(2)} s wall (target ≤ 3 s)`);
console.log(`(load average ${Deno.loadavg().map((x) => x.toFixed(1)).join(" ")})`);
