/**
 * Peak resident memory of this process in bytes (Linux `VmHWM`; elsewhere the current RSS, the best we can
 * read without Node compatibility), reported with every run so memory use is measured, not guessed.
 */
export function peakRssBytes(): number {
  try {
    const status = Deno.readTextFileSync("/proc/self/status");
    const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(status);
    if (m) return Number(m[1]) * 1024;
  } catch {
    // not Linux
  }
  return Deno.memoryUsage().rss;
}
