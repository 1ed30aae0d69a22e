/**
 * The in-process A/B loop shared by the answer-reading benches: two trees' runs timed in alternating 100 ms rounds
 * (which goes first alternates too), so both see the same machine; prints each side's median ns per item and the
 * B/A ratio's median and quartiles.
 */

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
