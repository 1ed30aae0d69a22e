/**
 * Per-core busy time from `/proc/stat`, sampled like {@linkcode TreeMonitor}, to catch noisy neighbours: the
 * busy time of the client's core minus the client's own CPU is what other processes took from it during the
 * measured window (a `deno test` or a build running beside the bench makes every figure meaningless).
 *
 * Busy = user + nice + system; interrupt and softirq time are left out because loopback networking of the
 * measured processes themselves is accounted there, not in their own utime/stime.
 */
import { ticksToSeconds } from "./proc_tree.ts";
import { interpolateAt } from "./interpolate_samples.ts";

interface CoreSample {
  readonly at: number;
  /** Busy ticks per core id. */
  readonly busy: ReadonlyMap<number, number>;
}

export function readCoreBusy(): Map<number, number> {
  const out = new Map<number, number>();
  let text: string;
  try {
    text = Deno.readTextFileSync("/proc/stat");
  } catch {
    return out;
  }
  for (const line of text.split("\n")) {
    const m = /^cpu(\d+)\s+(\d+)\s+(\d+)\s+(\d+)/.exec(line);
    if (m) out.set(Number(m[1]), Number(m[2]) + Number(m[3]) + Number(m[4]));
  }
  return out;
}

export class CoreMonitor {
  readonly #samples: CoreSample[] = [];
  readonly #intervalMs: number;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(intervalMs = 100) {
    this.#intervalMs = intervalMs;
  }

  start(): this {
    this.sample();
    this.#timer = setInterval(() => this.sample(), this.#intervalMs);
    return this;
  }

  sample(): void {
    this.#samples.push({ at: Date.now(), busy: readCoreBusy() });
    // A bench lasts minutes: ~2k samples at 10/s; keep at most an hour's worth.
    if (this.#samples.length > 36_000) this.#samples.shift();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Busy seconds of `core` at epoch ms `at`, interpolated; undefined outside the sampled span. */
  #busyAt(core: number, at: number): number | undefined {
    const s = this.#samples;
    return interpolateAt(s, (i) => ticksToSeconds(s[i].busy.get(core) ?? 0), at, this.#intervalMs);
  }

  /** Busy seconds of `core` between two epoch-ms instants. */
  busyBetween(core: number, from: number, to: number): number | undefined {
    const a = this.#busyAt(core, from);
    const b = this.#busyAt(core, to);
    return a === undefined || b === undefined ? undefined : Math.max(0, b - a);
  }
}
