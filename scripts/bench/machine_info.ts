/**
 * The machine a bench ran on, and how its cores are split between server, clients and this harness.
 */
import type { JsonValue } from "./bench_types.ts";
import { quickCommand } from "./child_runner.ts";
import { hasCommand } from "./tool_setup.ts";

export interface CoreLayout {
  /** Cores this process may use (its affinity list), in order. */
  readonly allowed: readonly number[];
  readonly pinned: boolean;
  /** `taskset -c` values; undefined when not pinned. */
  readonly server?: string;
  readonly client?: string;
  readonly harness?: string;
  readonly note: string;
}

/** Parses a cpu list such as `0-3,8,10-11`. */
export function parseCpuList(text: string): number[] {
  const out: number[] = [];
  for (const part of text.trim().split(",")) {
    if (part === "") continue;
    const [a, b] = part.split("-").map(Number);
    for (let c = a; c <= (b ?? a); c++) out.push(c);
  }
  return out;
}

export function allowedCores(): number[] {
  try {
    const m = /^Cpus_allowed_list:\s*(\S+)/m.exec(Deno.readTextFileSync("/proc/self/status"));
    if (m) return parseCpuList(m[1]);
  } catch {
    // not Linux
  }
  return Array.from({ length: navigator.hardwareConcurrency }, (_, i) => i);
}

/**
 * Client on the first allowed core, server on the second; the harness (which only polls /proc) on a third when
 * there is one, else beside the server, so that it never takes time from the measured client.
 */
export async function coreLayout(wantPin: boolean): Promise<CoreLayout> {
  const allowed = allowedCores();
  if (!wantPin) return { allowed, pinned: false, note: "not pinned (--no-pin)" };
  if (allowed.length < 2) return { allowed, pinned: false, note: "not pinned: fewer than 2 cores" };
  if (!(await hasCommand("taskset"))) return { allowed, pinned: false, note: "not pinned: taskset not found" };
  const [client, server, harness] = allowed.map(String);
  return {
    allowed,
    pinned: true,
    client,
    server,
    harness: harness ?? server,
    note: `server on core ${server}, clients on core ${client}, harness on core ${harness ?? server}`,
  };
}

/** Moves this process (all its threads) to `cores`. */
export async function pinSelf(cores: string): Promise<void> {
  await quickCommand(["taskset", "-a", "-p", "-c", cores, String(Deno.pid)], 5000);
}

export async function machineInfo(layout: CoreLayout): Promise<{ [k: string]: JsonValue }> {
  let cpuModel = "unknown";
  try {
    cpuModel = /^model name\s*:\s*(.+)$/m.exec(Deno.readTextFileSync("/proc/cpuinfo"))?.[1] ?? cpuModel;
  } catch {
    // not Linux
  }
  const nproc = await quickCommand(["nproc"], 5000);
  return {
    date: new Date().toISOString(),
    hostname: Deno.hostname(),
    os: `${Deno.build.os} ${Deno.build.arch}`,
    kernel: Deno.osRelease(),
    cpu_model: cpuModel,
    cores_online: navigator.hardwareConcurrency,
    nproc: nproc.code === 0 ? Number(nproc.stdout.trim()) : null,
    cores_allowed: [...layout.allowed],
    memory_gib: Math.round(Deno.systemMemoryInfo().total / 2 ** 30 * 10) / 10,
    load_average: Deno.loadavg(),
    deno: Deno.version.deno,
    v8: Deno.version.v8,
    pinning: layout.note,
  };
}
