/**
 * The first count of a long answer in a fresh process, per script: each shape is counted in its own new process
 * (after the tokenizer is loaded and has counted one ordinary answer, as the counting Worker has by then), once and
 * then again. Reports MB of text (UTF-16 code units) per CPU-second of the counting thread, median and range over
 * `--runs` processes per shape, the shapes taken in turn.
 *
 *   deno run -A scripts/bench/first_count_bench.ts [--runs 3] [--root DIR] [--only WORD] [--json] [--tokenizer FILE]
 *
 * `--root` counts with the tokenizer of another checkout (e.g. main's), for before/after pairs. `--tokenizer` counts
 * with a `tokenizer.json` instead of the builtin tokenizer, on {@linkcode HF_SHAPES} (long runs in two-byte
 * strings of 2 to 16 Mi characters, and ordinary text in both string widths).
 * Target: ≥ 30 MB/s per core on long answers, the first count included.
 */
import { threadCpuSec } from "./long_answer_bench.ts";

/** Seeded random text of `length` characters, each `char` of the generator's next value. */
function randomString(length: number, char: (r: number) => string): string {
  let seed = 7;
  return Array.from({ length }, () => char(seed = (seed * 1103515245 + 12345) & 0x7fffffff)).join("");
}

const THAI = "กขคงจฉชซญดตถทนบปผพฟมยรลวสหอะาเแโ\u0e31\u0e34\u0e35\u0e48\u0e49";

/** The long answers: texts without spaces (one piece of megabytes, or many short ones), and ordinary text. */
export const SHAPES: Record<string, () => string> = {
  "random CJK ideographs, no spaces, 2 Mi": () => randomString(2 << 20, (r) => String.fromCharCode(0x4e00 + r % 2000)),
  "random Thai letters and marks, no spaces, 2 Mi": () => randomString(2 << 20, (r) => THAI[(r >> 8) % THAI.length]),
  "random letters, no spaces, 4 Mi": () => randomString(4 << 20, (r) => "abcdefghijklmnopqrstuvwxyz"[(r >> 8) % 26]),
  "random letters after one CJK character (two-byte), 4 Mi": () =>
    "中" + randomString(4 << 20, (r) => "abcdefghijklmnopqrstuvwxyz"[(r >> 8) % 26]),
  "random printable ASCII, no spaces, 4 Mi": () =>
    randomString(4 << 20, (r) => String.fromCharCode(0x21 + (r >> 8) % 94)),
  "random bytes as Latin-1 characters, 4 Mi": () => randomString(4 << 20, (r) => String.fromCharCode((r >> 8) & 0xff)),
};

/** The shapes with `--tokenizer`: long runs of each class in two-byte strings, and the bundled corpus. */
export function hfShapes(corpus: string): Record<string, () => string> {
  const cjk = (n: number) => () => randomString(n, (r) => String.fromCharCode(0x4e00 + r % 2000));
  const repeatCorpus = (n: number) => corpus.repeat(Math.ceil(n / corpus.length)).slice(0, n);
  return {
    "random CJK ideographs, no spaces, 2 Mi": cjk(2 << 20),
    "random CJK ideographs, no spaces, 4 Mi": cjk(4 << 20),
    "random CJK ideographs, no spaces, 16 Mi": cjk(16 << 20),
    "random Thai letters and marks, no spaces, 2 Mi": SHAPES["random Thai letters and marks, no spaces, 2 Mi"],
    "random letters after one CJK character (two-byte), 4 Mi":
      SHAPES["random letters after one CJK character (two-byte), 4 Mi"],
    "random symbols after one CJK character (two-byte), 4 Mi": () =>
      "中" + randomString(4 << 20, (r) => "!?#(/*-"[(r >> 8) % 7]),
    "the bundled corpus, 4 Mi (one-byte)": () => repeatCorpus(4 << 20),
    "the bundled corpus after one CJK character (two-byte), 4 Mi": () => "中" + repeatCorpus(4 << 20),
  };
}

interface ChildResult {
  readonly tokens: number;
  readonly firstSec: number;
  readonly againSec: number;
  readonly length: number;
}

async function child(root: string, shape: string, tokenizerFile: string | undefined): Promise<ChildResult> {
  const { loadBuiltinTokenizer } = await import(`${root}/src/tokenizer/builtin_tokenizer.ts`);
  const { loadHfTokenizer } = await import(`${root}/src/tokenizer/hf_tokenizer.ts`);
  const { DEFAULT_CORPUS } = await import(`${root}/src/dataset/default_corpus.ts`);
  const text = (tokenizerFile === undefined ? SHAPES : hfShapes(DEFAULT_CORPUS))[shape]();
  const tokenizer = tokenizerFile === undefined ? await loadBuiltinTokenizer() : await loadHfTokenizer(tokenizerFile);
  tokenizer.count(DEFAULT_CORPUS.slice(0, 2000));
  const c0 = threadCpuSec();
  const tokens = tokenizer.count(text);
  const c1 = threadCpuSec();
  if (tokenizer.count(text) !== tokens) throw new Error(`${shape}: two counts differ`);
  const c2 = threadCpuSec();
  return { tokens, firstSec: c1 - c0, againSec: c2 - c1, length: text.length };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function arg(name: string): string | undefined {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Deno.args[i + 1] : undefined;
}

if (import.meta.main) {
  const root = arg("--root") ?? new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
  const childShape = arg("--child");
  if (childShape !== undefined) {
    console.log(JSON.stringify(await child(root, childShape, arg("--tokenizer"))));
  } else {
    const runs = Number(arg("--runs") ?? 3);
    const only = arg("--only");
    const tokenizerFile = arg("--tokenizer");
    const { DEFAULT_CORPUS } = await import("../../src/dataset/default_corpus.ts");
    const shapes = Object.keys(tokenizerFile === undefined ? SHAPES : hfShapes(DEFAULT_CORPUS)).filter((s) =>
      only === undefined || s.includes(only)
    );
    const results = new Map<string, (ChildResult | undefined)[]>(shapes.map((s) => [s, []]));
    for (let r = 0; r < runs; r++) {
      for (const shape of shapes) {
        const out = await new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "-A",
            new URL(import.meta.url).pathname,
            "--root",
            root,
            "--child",
            shape,
            ...(tokenizerFile === undefined ? [] : ["--tokenizer", tokenizerFile]),
          ],
          stderr: "inherit",
        }).output();
        // A count that throws (the pattern's stack overflow on a long two-byte run) is recorded as such.
        results.get(shape)!.push(out.success ? JSON.parse(new TextDecoder().decode(out.stdout)) : undefined);
      }
    }
    const rows = shapes.map((shape) => {
      const all = results.get(shape)!;
      const rs = all.filter((r) => r !== undefined);
      const rate = (sec: number, r: ChildResult) => r.length / 1e6 / Math.max(sec, 0.001);
      const first = rs.map((r) => rate(r.firstSec, r));
      const again = rs.map((r) => rate(r.againSec, r));
      return { shape, tokens: rs[0]?.tokens ?? -1, threw: all.length - rs.length, first, again };
    });
    if (Deno.args.includes("--json")) console.log(JSON.stringify({ root, rows, loadavg: Deno.loadavg() }));
    else {
      const fmt = (xs: number[]) =>
        xs.length === 0
          ? "-"
          : `${median(xs).toFixed(1)} [${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}]`;
      for (const r of rows) {
        console.log(
          `${r.shape.padEnd(58)} first ${fmt(r.first).padEnd(20)} again ${fmt(r.again)} (${r.tokens} tokens${
            r.threw > 0 ? `; threw in ${r.threw} runs` : ""
          })`,
        );
      }
      console.log(`root ${root}; load average ${Deno.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
    }
  }
}
