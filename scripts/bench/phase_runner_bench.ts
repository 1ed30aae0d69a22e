/**
 * The phase runner's cost per request with a server that answers at once, interleaved between checkouts so one
 * machine's noise falls on all of them alike:
 *
 *   deno run -A scripts/bench/phase_runner_bench.ts [requests=200000] [rounds=6] [repoRoot …]
 *
 * Each round runs, for every repo root given (default: this checkout) in a process of its own (alternating the order),
 * a closed loop of 64 sessions over one-turn conversations, then over three-turn conversations, `requests` requests
 * each after a warm-up run, on the system clock; `send` resolves on the next microtask. Prints the median µs per
 * request of each root and shape over the rounds, and each root's ratio to the first.
 * Compare a branch with main: `… phase_runner_bench.ts 200000 6 /path/to/main /path/to/branch`.
 */
import type { PhaseSession, runPhase as RunPhase } from "../../src/engine/phase_runner.ts";
import type { PhaseSpec, shardPhase as ShardPhase } from "../../src/timing/phase_spec.ts";

const requests = Number(Deno.args[0] ?? 200_000);
const rounds = Number(Deno.args[1] ?? 6);
const roots = Deno.args.length > 2 ? Deno.args.slice(2) : [new URL("../../", import.meta.url).pathname];

interface Engine {
  readonly root: string;
  readonly runPhase: typeof RunPhase;
  readonly shardPhase: typeof ShardPhase;
  readonly SystemClock: new () => { now(): number; sleepUntil(t: number, s?: AbortSignal): Promise<void> };
  readonly SeededRandom: new (seed: number) => unknown;
}

async function load(root: string): Promise<Engine> {
  const base = `file://${root.replace(/\/?$/, "/")}src/`;
  const [runner, phase, clock, random] = await Promise.all([
    import(`${base}engine/phase_runner.ts`),
    import(`${base}timing/phase_spec.ts`),
    import(`${base}timing/clock.ts`),
    import(`${base}base/seeded_random.ts`),
  ]);
  return {
    root,
    runPhase: runner.runPhase,
    shardPhase: phase.shardPhase,
    SystemClock: clock.SystemClock,
    SeededRandom: random.SeededRandom,
  };
}

/** µs per request of one run. */
async function measure(engine: Engine, turns: number): Promise<number> {
  const phase: PhaseSpec = {
    name: "profiling",
    strategy: { name: "concurrency", options: { concurrency: 64 } },
    stops: { requestCount: requests, gracePeriodMs: 0 },
  };
  const session: PhaseSession = {
    turnCount: turns,
    delayBefore: () => undefined,
    timestampOf: () => undefined,
    send: () => Promise.resolve(),
  };
  const t0 = performance.now();
  const outcome = await engine.runPhase({
    shard: engine.shardPhase(phase, 0, 1),
    clock: new engine.SystemClock(),
    // deno-lint-ignore no-explicit-any
    rng: new engine.SeededRandom(1) as any,
    signal: new AbortController().signal,
    openSession: () => session,
    yieldToIo: () => Promise.resolve(),
  });
  const elapsed = performance.now() - t0;
  if (outcome.issued !== requests) throw new Error(`${engine.root}: ${outcome.issued} requests, not ${requests}`);
  return elapsed * 1000 / requests;
}

const shapes = [1, 3];
const single = Deno.env.get("PHASE_RUNNER_BENCH_ROOT");
if (single !== undefined) {
  // One process, one checkout: a warm-up run per shape, then one measured run per shape, as JSON.
  const engine = await load(single);
  for (const t of shapes) await measure(engine, t);
  const out: number[] = [];
  for (const t of shapes) out.push(await measure(engine, t));
  console.log(JSON.stringify(out));
} else {
  const samples = new Map<string, number[]>();
  for (let r = 0; r < rounds; r++) {
    for (const root of r % 2 === 0 ? roots : [...roots].reverse()) {
      const child = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", new URL(import.meta.url).pathname, String(requests)],
        env: { PHASE_RUNNER_BENCH_ROOT: root },
        stderr: "inherit",
      }).output();
      const values = JSON.parse(new TextDecoder().decode(child.stdout).trim()) as number[];
      shapes.forEach((t, i) => samples.set(`${root}|${t}`, [...(samples.get(`${root}|${t}`) ?? []), values[i]]));
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const t of shapes) {
    const first = median(samples.get(`${roots[0]}|${t}`)!);
    for (const root of roots) {
      const m = median(samples.get(`${root}|${t}`)!);
      console.log(`${t}-turn sessions  ${root}: ${m.toFixed(3)} µs/request (×${(m / first).toFixed(3)} of the first)`);
    }
  }
}
