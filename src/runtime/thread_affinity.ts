/**
 * CPU affinity of the calling thread (Linux): `sched_setaffinity(0, …)` through Deno FFI applies to the thread that
 * calls it, so an engine shard's Worker calls it from inside itself and keeps its core, instead of the scheduler
 * moving it between cores (cold caches, and a shard landing on a core another shard is busy on). Needs FFI
 * (`--allow-ffi`, included in `-A`); without it, or on other systems, nothing is changed and the reason is returned.
 */
export type PinResult = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** Bytes of the CPU mask passed to the kernel: 1024 CPUs, glibc's `cpu_set_t`. */
const MASK_BYTES = 128;

function openLibc() {
  return Deno.dlopen(
    "libc.so.6",
    {
      sched_setaffinity: { parameters: ["i32", "usize", "buffer"], result: "i32" },
      sched_getaffinity: { parameters: ["i32", "usize", "buffer"], result: "i32" },
    } as const,
  );
}

/** Pins the calling thread to `core`. */
export function pinThreadToCore(core: number): PinResult {
  return pinThreadToCores([core]);
}

/** Pins the calling thread to a set of CPUs. */
export function pinThreadToCores(cores: readonly number[]): PinResult {
  if (Deno.build.os !== "linux") return { ok: false, reason: `thread affinity is not available on ${Deno.build.os}` };
  if (cores.length === 0 || cores.some((c) => !Number.isInteger(c) || c < 0 || c >= MASK_BYTES * 8)) {
    return { ok: false, reason: `no valid CPU in [${cores.join(",")}]` };
  }
  let lib;
  try {
    lib = openLibc();
  } catch (err) {
    return { ok: false, reason: `FFI unavailable (${(err as Error).message.split("\n")[0]})` };
  }
  try {
    const mask = new Uint8Array(MASK_BYTES);
    for (const c of cores) mask[c >> 3] |= 1 << (c & 7);
    return lib.symbols.sched_setaffinity(0, BigInt(MASK_BYTES), mask) === 0
      ? { ok: true }
      : { ok: false, reason: "sched_setaffinity refused (the CPU is outside this process's allowed set?)" };
  } finally {
    lib.close();
  }
}

/**
 * The CPUs this thread may run on (its affinity mask), or undefined where it cannot be read. Linux reads
 * `/proc/thread-self/status` (no FFI needed); a `taskset -c 2-5` parent shows here as [2, 3, 4, 5].
 */
export function allowedCores(): number[] | undefined {
  if (Deno.build.os !== "linux") return undefined;
  try {
    const status = Deno.readTextFileSync("/proc/thread-self/status");
    const m = /^Cpus_allowed_list:\s*(\S+)/m.exec(status);
    return m ? parseCpuList(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** `0-3,8,10-11` → [0, 1, 2, 3, 8, 10, 11]. */
export function parseCpuList(text: string): number[] {
  const cores: number[] = [];
  for (const part of text.split(",")) {
    const [a, b] = part.split("-").map(Number);
    if (!Number.isInteger(a)) continue;
    for (let c = a; c <= (Number.isInteger(b) ? b : a); c++) cores.push(c);
  }
  return cores;
}

/** [0, 1, 2, 3, 8] → `0-3,8` (for taskset and reports). */
export function formatCpuList(cores: readonly number[]): string {
  const sorted = [...new Set(cores)].sort((x, y) => x - y);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(",");
}
