/**
 * What a Deno timer costs on the engine's thread (docs/performance_history.md §2, "A timer armed in every completion wave"):
 *
 *   deno run -A scripts/bench/timer_probe.ts [rounds=200] [tick_ms=5] [tick_seconds=5]
 *
 * 1. Arming: the thread sleeps 5 ms (so it wakes from idle, as the engine does when a wave of tokens arrives), then
 *    times `setTimeout(f, 5)`, a second `setTimeout` right after it, and a `setInterval`; each is cleared at once.
 * 2. Ticking: a `setInterval(f, tick_ms)` with nothing else to do for tick_seconds; the process's CPU time over that
 *    window divided by the ticks is what one wake-up from idle costs (what `Ticker` pays per tick).
 *
 * Run it pinned (`taskset -c 0`) to see one core's figures.
 */
const rounds = Number(Deno.args[0] ?? 200);
const tickMs = Number(Deno.args[1] ?? 5);
const tickSeconds = Number(Deno.args[2] ?? 5);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const noop = () => {};

const arm: Record<string, number[]> = { "setTimeout after idle": [], "a second setTimeout": [], "setInterval": [] };
for (let i = 0; i < rounds; i++) {
  await sleep(5);
  const t0 = performance.now();
  const a = setTimeout(noop, 5);
  const t1 = performance.now();
  const b = setTimeout(noop, 7);
  const t2 = performance.now();
  clearTimeout(a);
  clearTimeout(b);
  await sleep(5);
  const t3 = performance.now();
  const c = setInterval(noop, 5);
  const t4 = performance.now();
  clearInterval(c);
  arm["setTimeout after idle"].push(t1 - t0);
  arm["a second setTimeout"].push(t2 - t1);
  arm["setInterval"].push(t4 - t3);
}
const quantile = (xs: number[], q: number) => {
  const s = xs.slice(Math.min(20, xs.length >> 2)).sort((x, y) => x - y); // the first rounds are JIT warm-up
  return s[Math.min(s.length - 1, Math.floor(s.length * q))] * 1000;
};
console.log(`arming a timer, ${rounds} rounds, µs (p50 / p90):`);
for (const [name, xs] of Object.entries(arm)) {
  console.log(`  ${name.padEnd(24)} ${quantile(xs, 0.5).toFixed(1).padStart(6)} / ${quantile(xs, 0.9).toFixed(1)}`);
}

function cpuMs(): number {
  // utime + stime in clock ticks (USER_HZ, 100 on Linux) from /proc/self/stat, after the command name.
  const fields = Deno.readTextFileSync("/proc/self/stat").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
let ticks = 0;
const cpu0 = cpuMs();
const interval = setInterval(() => ticks++, tickMs);
await sleep(tickSeconds * 1000);
clearInterval(interval);
const cpu = cpuMs() - cpu0;
console.log(
  `an idle ${tickMs} ms interval for ${tickSeconds} s: ${ticks} ticks, ${cpu} ms of CPU, ` +
    `~${(cpu / ticks * 1000).toFixed(0)} µs per tick (${(cpu / (tickSeconds * 10)).toFixed(1)} % of a core)`,
);
