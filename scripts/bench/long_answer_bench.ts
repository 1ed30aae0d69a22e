/**
 * Token counting of long answers: MB of text (UTF-16 code units, as the answer's string holds them) counted per
 * CPU-second of the counting thread (each text once, then again), for ordinary text and for the pathological
 * pieces (one letter or a space repeated for megabytes, long runs without spaces), and the wall time of a 64 MiB
 * answer through the counting Worker (what the end of a run waits for).
 *
 *   deno run -A scripts/bench/long_answer_bench.ts [--json]
 *
 * Targets: ≥ 30 MB/s per core on long answers; a 64 MiB answer counted in ≤ 3 s.
 */
import { loadBuiltinTokenizer } from "../../src/tokenizer/builtin_tokenizer.ts";
import { WorkerTokenCounter } from "../../src/tokenizer/token_counter.ts";
import { DEFAULT_CORPUS } from "../../src/dataset/default_corpus.ts";

export interface LongAnswerResults {
  /** Each text counted once (`mbPerCpuSec`), then again (`againMbPerCpuSec`: its shape's caches warm). */
  readonly rows: readonly {
    label: string;
    tokens: number;
    cpuSec: number;
    mbPerCpuSec: number;
    againMbPerCpuSec: number;
  }[];
  /**
   * Wall milliseconds of the first text of other scripts with a long piece without spaces (counted before the
   * rows): what a process pays once to compile the pattern for two-byte strings and to build the linear search's
   * tables and code.
   */
  readonly firstLongPieceMs: number;
  readonly worker: readonly { label: string; wallSec: number }[];
  readonly loadavg: readonly number[];
}

/**
 * This thread's CPU seconds: from /proc/thread-self/schedstat (nanoseconds on the CPU), else /proc's stat (user +
 * system, in 10 ms ticks), else wall seconds.
 */
export function threadCpuSec(): number {
  try {
    const ns = Number(Deno.readTextFileSync("/proc/thread-self/schedstat").split(" ")[0]);
    if (ns > 0) return ns / 1e9; // 0 where the kernel keeps no scheduler statistics
  } catch {
    // no schedstat
  }
  try {
    const stat = Deno.readTextFileSync("/proc/thread-self/stat");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return performance.now() / 1000;
  }
}

function lcg(seed: number): () => number {
  return () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
}

export async function measureLongAnswers(): Promise<LongAnswerResults> {
  const cjk = lcg(7);
  const letters = lcg(11);
  const texts: [string, string][] = [
    ["the bundled corpus, repeated to 64 MiB", DEFAULT_CORPUS.repeat(Math.ceil((64 << 20) / DEFAULT_CORPUS.length))],
    ["one letter x 64 Mi", "a".repeat(64 << 20)],
    ["a space x 64 Mi", " ".repeat(64 << 20)],
    ["'ha' x 16 Mi", "ha".repeat(16 << 20)],
    [
      "random CJK ideographs, no spaces, 2 Mi",
      Array.from({ length: 2 << 20 }, () => String.fromCharCode(0x4e00 + cjk() % 2000)).join(""),
    ],
    [
      "random letters, no spaces, 4 Mi",
      Array.from({ length: 4 << 20 }, () => "abcdefghijklmnopqrstuvwxyz"[(letters() >> 8) % 26]).join(""),
    ],
  ];
  const tokenizer = await loadBuiltinTokenizer();
  tokenizer.count(DEFAULT_CORPUS); // warm the code
  // Text of other scripts (Hangul and Cyrillic: none of the rows' characters), as words and as one long piece
  // without spaces, pays what a process pays once: the pattern's compiled code for two-byte strings (V8 runs a
  // regular expression's first executions on a new string width in its interpreter) and the linear search's
  // tables and code. The rows then measure the rate of counting a shape not seen before, and again.
  const other = lcg(13);
  const alphabet = "가나다라마바사아자차카타파하абвгдежзийклмнопрстуфхцчшщ";
  const letter = () => alphabet[(other() >> 8) % alphabet.length];
  const words = Array.from({ length: 4096 }, (_, i) => (i % 6 === 5 ? " " : letter())).join("");
  const sample = words + " " + Array.from({ length: 32_768 }, letter).join("");
  const w0 = performance.now();
  tokenizer.count(sample);
  const firstLongPieceMs = performance.now() - w0;
  const rows = texts.map(([label, text]) => {
    const c0 = threadCpuSec();
    const tokens = tokenizer.count(text);
    const cpuSec = Math.max(threadCpuSec() - c0, 0.001);
    const c1 = threadCpuSec();
    if (tokenizer.count(text) !== tokens) throw new Error(`${label}: counted twice, two different counts`);
    const againSec = Math.max(threadCpuSec() - c1, 0.001);
    return {
      label,
      tokens,
      cpuSec,
      mbPerCpuSec: text.length / 1e6 / cpuSec,
      againMbPerCpuSec: text.length / 1e6 / againSec,
    };
  });
  const counter = new WorkerTokenCounter("builtin");
  await counter.ready;
  const worker: { label: string; wallSec: number }[] = [];
  try {
    for (const [label, text] of texts.slice(0, 3)) {
      const t0 = performance.now();
      await counter.count([text]);
      worker.push({ label, wallSec: (performance.now() - t0) / 1000 });
    }
  } finally {
    counter.close();
  }
  return { rows, firstLongPieceMs, worker, loadavg: Deno.loadavg() };
}

if (import.meta.main) {
  const r = await measureLongAnswers();
  if (Deno.args.includes("--json")) console.log(JSON.stringify(r));
  else {
    for (const x of r.rows) {
      console.log(
        `${x.label.padEnd(44)} ${x.mbPerCpuSec.toFixed(1).padStart(7)} MB/s per core, again ${
          x.againMbPerCpuSec.toFixed(1).padStart(6)
        } (${x.tokens} tokens)`,
      );
    }
    console.log(
      `first text of other scripts without spaces (once per process): ${r.firstLongPieceMs.toFixed(1)} ms wall`,
    );
    for (const x of r.worker) console.log(`through the Worker: ${x.label.padEnd(36)} ${x.wallSec.toFixed(2)} s wall`);
    console.log(`load average ${r.loadavg.map((x) => x.toFixed(1)).join(" ")}`);
  }
}
