/**
 * The in-process A/B loop shared by the answer-reading benches: two trees' runs timed in alternating 100 ms rounds
 * (which goes first alternates too), so both see the same machine; prints each side's median ns per item and the
 * B/A ratio's median and quartiles.
 */
import { resolve } from "node:path";

/** The answers' texts, one per answer in turn (serve-sim's 1-token answers). */
export const AB_WORDS = [" bring", " the", " cat", " sat", " on", " mat", " and", " ran"];
/** Answers made, used round-robin. */
export const AB_ANSWERS = 1024;
/** Answers per timed call. */
export const AB_BATCH = 64;

/** Serve-sim's id for answer `i` (each answer its own). */
export function simAnswerId(i: number): string {
  return `chatcmpl-${(0x10000000 + i * 7919).toString(16)}${(0x20000000 + i * 104729).toString(16)}`;
}

/** The trees to compare, from the command line: `--base DIR` (A) and this checkout (B), and `--rounds N`. */
export function abArgs(): { base: string; ours: string; rounds: number } {
  const at = Deno.args.indexOf("--base");
  if (at < 0 || at + 1 >= Deno.args.length) throw new TypeError("--base is required.");
  const r = Deno.args.indexOf("--rounds");
  return {
    base: resolve(Deno.args[at + 1]),
    ours: resolve(new URL("../..", import.meta.url).pathname),
    rounds: r >= 0 && r + 1 < Deno.args.length ? Number(Deno.args[r + 1]) : 60,
  };
}

/** Processes `batch` items starting at item `from`; returns a checksum so the work cannot be optimized away. */
export type AbRun = (from: number) => number | Promise<number>;

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Runs A (`runs[0]`) and B (`runs[1]`) in `rounds` alternating rounds after a warm-up, and prints the result line. */
export async function runAlternating(runs: readonly [AbRun, AbRun], rounds: number, batch: number): Promise<void> {
  let sink = 0;
  let next = 0;
  const time = async (run: AbRun, ms: number): Promise<number> => {
    let n = 0;
    const start = performance.now();
    while (performance.now() - start < ms) {
      sink += await run(next);
      next += batch;
      n += batch;
    }
    return ((performance.now() - start) * 1e6) / n;
  };
  for (let i = 0; i < 10; i++) await time(runs[i % 2], 100); // warm both up
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const first = i % 2;
    const x = await time(runs[first], 100);
    const y = await time(runs[1 - first], 100);
    a.push(first === 0 ? x : y);
    b.push(first === 0 ? y : x);
  }
  const ratios = a.map((x, i) => b[i] / x);
  const sorted = [...ratios].sort((p, q) => p - q);
  console.log(
    `${rounds} alternating rounds of 100 ms: ns per answer median A ${median(a).toFixed(0)}, B ${
      median(b).toFixed(0)
    }; B/A median ${median(ratios).toFixed(3)} (p25 ${sorted[Math.floor(rounds / 4)].toFixed(3)}, p75 ${
      sorted[Math.floor((3 * rounds) / 4)].toFixed(3)
    })${sink < 0 ? "" : ""}`,
  );
}
