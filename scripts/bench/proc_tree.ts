/**
 * Linux `/proc` readers for the bench harness: the process tree under a pid, its CPU ticks and resident memory.
 *
 * Why `/proc` and not rusage: AIPerf is a tree of Python processes (controller, workers, record processors) and
 * some are not reaped by the time the tree is measured; polling every process's own `utime + stime` (all its
 * threads) and `VmHWM` covers them all. Without `/proc` (not Linux) every reader returns nothing.
 */

export interface ProcStat {
  readonly pid: number;
  readonly ppid: number;
  /** utime + stime of all the process's threads, in clock ticks. */
  readonly cpuTicks: number;
  /** Start time after boot in clock ticks: with the pid, identifies a process across pid reuse. */
  readonly startTicks: number;
}

export interface ProcMemory {
  /** Current resident set, KiB. */
  readonly rssKb: number;
  /** Peak resident set (high-water mark), KiB. */
  readonly hwmKb: number;
}

/** `sysconf(_SC_CLK_TCK)`; 100 on every Linux this runs on, read once from `getconf` to be sure. */
let clockTicks = 100;

export async function initClockTicks(): Promise<number> {
  try {
    const out = await new Deno.Command("getconf", { args: ["CLK_TCK"], stdout: "piped", stderr: "null" }).output();
    const n = Number(new TextDecoder().decode(out.stdout).trim());
    if (out.success && Number.isFinite(n) && n > 0) clockTicks = n;
  } catch {
    // keep 100
  }
  return clockTicks;
}

export function ticksToSeconds(ticks: number): number {
  return ticks / clockTicks;
}

export function hasProcFs(): boolean {
  try {
    return Deno.statSync("/proc/self/stat").isFile;
  } catch {
    return false;
  }
}

/** Parses `/proc/<pid>/stat`; undefined when the process is gone. */
export function readStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may contain spaces and ')': split after the last ')'.
  const close = text.lastIndexOf(")");
  if (close < 0) return undefined;
  const f = text.slice(close + 2).split(" ");
  // f[0] is field 3 (state); field n is f[n - 3].
  const utime = Number(f[11]);
  const stime = Number(f[12]);
  return { pid, ppid: Number(f[1]), cpuTicks: utime + stime, startTicks: Number(f[19]) };
}

/** VmRSS and VmHWM from `/proc/<pid>/status`; undefined when gone (or a zombie, which has neither). */
export function readMemory(pid: number): ProcMemory | undefined {
  let text: string;
  try {
    text = Deno.readTextFileSync(`/proc/${pid}/status`);
  } catch {
    return undefined;
  }
  const rss = /^VmRSS:\s+(\d+) kB/m.exec(text);
  const hwm = /^VmHWM:\s+(\d+) kB/m.exec(text);
  if (!rss || !hwm) return undefined;
  return { rssKb: Number(rss[1]), hwmKb: Number(hwm[1]) };
}

/** Every process now alive, as ppid links. */
export function listProcesses(): ProcStat[] {
  const out: ProcStat[] = [];
  try {
    for (const entry of Deno.readDirSync("/proc")) {
      const c = entry.name.charCodeAt(0);
      if (c < 48 || c > 57) continue;
      const stat = readStat(Number(entry.name));
      if (stat) out.push(stat);
    }
  } catch {
    // no /proc: empty
  }
  return out;
}

/** `root` and all its descendants among `processes` (root first). */
export function treeOf(root: number, processes: readonly ProcStat[]): ProcStat[] {
  const children = new Map<number, ProcStat[]>();
  let rootStat: ProcStat | undefined;
  for (const p of processes) {
    if (p.pid === root) rootStat = p;
    let list = children.get(p.ppid);
    if (!list) children.set(p.ppid, list = []);
    list.push(p);
  }
  if (!rootStat) return [];
  const out: ProcStat[] = [rootStat];
  for (let i = 0; i < out.length; i++) {
    for (const c of children.get(out[i].pid) ?? []) out.push(c);
  }
  return out;
}

/**
 * Sends `signal` to `root` and every descendant (children first, so a parent cannot respawn them). Only pids in
 * the tree of a process this harness spawned are signalled. Returns how many were signalled.
 */
export function signalTree(root: number, signal: Deno.Signal): number {
  const tree = treeOf(root, listProcesses());
  const pids = tree.length > 0 ? tree.map((p) => p.pid).reverse() : [root];
  let n = 0;
  for (const pid of pids) {
    try {
      Deno.kill(pid, signal);
      n++;
    } catch {
      // already gone
    }
  }
  return n;
}
