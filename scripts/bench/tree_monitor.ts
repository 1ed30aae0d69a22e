/**
 * Polls the CPU time and resident memory of a process tree, so that the CPU a client used inside its own
 * measured window (known only after it exits, from its export file) can be read off afterwards.
 *
 * CPU of the tree at a sample = sum over every process ever seen in it of its last seen `utime + stime`
 * (a process that exits keeps its last value; it loses at most one poll interval). Between samples the
 * CPU is interpolated linearly.
 */
import { listProcesses, readMemory, readStat, ticksToSeconds, treeOf } from "./proc_tree.ts";
import { interpolateAt } from "./interpolate_samples.ts";

export interface TreeSample {
  /** Epoch milliseconds. */
  readonly at: number;
  /** Cumulative CPU seconds of the tree. */
  readonly cpuSec: number;
  /** Sum of VmRSS over the live tree, KiB. */
  readonly rssKb: number;
}

/** One process of the tree, as last seen. */
export interface ProcessUsage {
  readonly pid: number;
  /** Its command line (first 120 characters). */
  readonly command: string;
  readonly cpuSec: number;
  readonly hwmMb: number;
}

export interface TreeUsage {
  readonly samples: number;
  /** CPU seconds of the tree at the last sample. */
  readonly cpuSec: number;
  /** Sum over the processes of each one's VmHWM (its own peak), KiB. */
  readonly sumHwmKb: number;
  /** Largest sampled sum of VmRSS, KiB. */
  readonly peakRssKb: number;
  readonly processes: number;
  /** Every process seen, most CPU first. */
  readonly perProcess: readonly ProcessUsage[];
}

export interface TreeMonitorOptions {
  /** @default 100 */
  readonly intervalMs?: number;
  /** Only the root process (no /proc scan for children): cheaper, for single-process servers. @default false */
  readonly rootOnly?: boolean;
  /** Leave the root out of the memory figures (it is a wrapper such as GNU time). @default false */
  readonly skipRootMemory?: boolean;
}

interface Seen {
  readonly pid: number;
  command: string;
  cpuTicks: number;
  hwmKb: number;
}

function commandLine(pid: number): string {
  try {
    return Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0").join(" ").trim().slice(0, 120);
  } catch {
    return "";
  }
}

export class TreeMonitor {
  readonly root: number;
  readonly #intervalMs: number;
  readonly #rootOnly: boolean;
  readonly #skipRootMemory: boolean;
  readonly #seen = new Map<string, Seen>();
  readonly #samples: TreeSample[] = [];
  #timer: ReturnType<typeof setInterval> | undefined;
  #peakRssKb = 0;

  constructor(root: number, options: TreeMonitorOptions = {}) {
    this.root = root;
    this.#intervalMs = options.intervalMs ?? 100;
    this.#rootOnly = options.rootOnly ?? false;
    this.#skipRootMemory = options.skipRootMemory ?? false;
  }

  start(): this {
    this.sample();
    this.#timer = setInterval(() => this.sample(), this.#intervalMs);
    return this;
  }

  /** Takes one sample now; returns false once the root is gone. */
  sample(): boolean {
    const root = this.#rootOnly ? readStat(this.root) : undefined;
    const tree = this.#rootOnly ? (root ? [root] : []) : treeOf(this.root, listProcesses());
    let rssKb = 0;
    for (const p of tree) {
      const key = `${p.pid}:${p.startTicks}`;
      let seen = this.#seen.get(key);
      if (!seen) this.#seen.set(key, seen = { pid: p.pid, command: "", cpuTicks: 0, hwmKb: 0 });
      // Re-read every time: a forked child shows its parent's command line until it sets its own title.
      seen.command = commandLine(p.pid) || seen.command;
      seen.cpuTicks = Math.max(seen.cpuTicks, p.cpuTicks);
      const mem = this.#skipRootMemory && p.pid === this.root ? undefined : readMemory(p.pid);
      if (mem) {
        rssKb += mem.rssKb;
        seen.hwmKb = Math.max(seen.hwmKb, mem.hwmKb);
      }
    }
    let ticks = 0;
    for (const s of this.#seen.values()) ticks += s.cpuTicks;
    if (tree.length > 0) {
      this.#samples.push({ at: Date.now(), cpuSec: ticksToSeconds(ticks), rssKb });
      this.#peakRssKb = Math.max(this.#peakRssKb, rssKb);
    }
    return tree.length > 0;
  }

  stop(): TreeUsage {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    return this.usage();
  }

  usage(): TreeUsage {
    let hwm = 0;
    for (const s of this.#seen.values()) hwm += s.hwmKb;
    const last = this.#samples.at(-1);
    return {
      samples: this.#samples.length,
      cpuSec: last?.cpuSec ?? 0,
      sumHwmKb: hwm,
      peakRssKb: this.#peakRssKb,
      processes: this.#seen.size,
      perProcess: [...this.#seen.values()]
        .map((p) => ({
          pid: p.pid,
          command: p.command,
          cpuSec: ticksToSeconds(p.cpuTicks),
          hwmMb: Math.round(p.hwmKb / 102.4) / 10,
        }))
        .sort((a, b) => b.cpuSec - a.cpuSec),
    };
  }

  /** Cumulative CPU seconds at epoch ms `at`, interpolated; undefined outside the sampled span. */
  cpuAt(at: number): number | undefined {
    const s = this.#samples;
    return interpolateAt(s, (i) => s[i].cpuSec, at, this.#intervalMs);
  }

  /** CPU seconds used between two epoch-ms instants, or undefined when they were not both sampled. */
  cpuBetween(from: number, to: number): number | undefined {
    const a = this.cpuAt(from);
    const b = this.cpuAt(to);
    return a === undefined || b === undefined ? undefined : Math.max(0, b - a);
  }
}
