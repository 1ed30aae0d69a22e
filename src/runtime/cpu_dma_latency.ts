/**
 * Linux's limit on how long an idle CPU may take to wake up (PM QoS, `/dev/cpu_dma_latency`), held for a run.
 *
 * Why: between tokens an idle client core sleeps — HLT in a VM (a VM exit, the host's scheduler), a deep C-state
 * on bare metal — and waking it when a packet arrives takes tens of µs. At low load that wake-up is most of
 * the error in TTFT and request latency, and no client code can remove it (calibrate's floor client pays it
 * too). A process that writes a limit to this file and keeps it open makes the kernel keep every core in
 * idle states that wake within the limit; 0 means they poll. It is machine-wide and costs power, so it is
 * opt-in (`--cpu-dma-latency`). The kernel drops the request when the file is closed, so a crash or a kill
 * restores the machine's setting by itself.
 */

/** The outcome of asking for a limit. */
export interface CpuDmaLatencyHold {
  /** The limit asked for, µs. */
  readonly requestedUs: number;
  /** Whether the kernel holds it now. */
  readonly held: boolean;
  /** Why it is not held (platform, permissions). */
  readonly reason?: string;
  /** Drops the request (idempotent). */
  release(): void;
}

export const CPU_DMA_LATENCY_PATH = "/dev/cpu_dma_latency";

/**
 * Asks the kernel to keep idle CPUs within `us` µs of waking, until `release()` or the process ends. Never
 * throws: the run goes on with the machine's own setting and the reason says why. `path` is for tests.
 */
export function holdCpuDmaLatency(us: number, path = CPU_DMA_LATENCY_PATH): CpuDmaLatencyHold {
  const requestedUs = Math.max(0, Math.floor(us));
  const notHeld = (reason: string): CpuDmaLatencyHold => ({ requestedUs, held: false, reason, release() {} });
  if (Deno.build.os !== "linux") return notHeld(`${CPU_DMA_LATENCY_PATH} exists only on Linux`);
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(path, { write: true });
  } catch (err) {
    const why = err instanceof Deno.errors.PermissionDenied
      ? "permission denied (it needs root, or write access to the file)"
      : err instanceof Deno.errors.NotFound
      ? "the file does not exist (kernel without PM QoS)"
      : (err as Error).message;
    return notHeld(`cannot open ${path}: ${why}`);
  }
  // The kernel reads a native-endian signed 32-bit value (or a hex string); every Linux target is little-endian.
  const value = new Uint8Array(4);
  new DataView(value.buffer).setInt32(0, requestedUs, true);
  try {
    if (file.writeSync(value) !== 4) throw new Error("short write");
  } catch (err) {
    file.close();
    return notHeld(`cannot write ${path}: ${(err as Error).message}`);
  }
  let open = true;
  return {
    requestedUs,
    held: true,
    release() {
      if (!open) return;
      open = false;
      try {
        file.close();
      } catch {
        // already closed by the runtime at exit
      }
    },
  };
}

/** The limit the kernel applies now (the smallest request held), µs; undefined where it cannot be read. */
export function currentCpuDmaLatency(path = CPU_DMA_LATENCY_PATH): number | undefined {
  try {
    const bytes = Deno.readFileSync(path);
    if (bytes.length < 4) return undefined;
    return new DataView(bytes.buffer, bytes.byteOffset, 4).getInt32(0, true);
  } catch {
    return undefined;
  }
}
