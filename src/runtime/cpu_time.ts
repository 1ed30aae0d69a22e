/**
 * CPU time used by this process (all threads), for the client-CPU figure every run reports.
 *
 * Linux: `/proc/self/stat` fields 14–15 (utime, stime) in clock ticks of 1/100 s (USER_HZ is 100 on every
 * Linux ABI Deno supports), read synchronously in microseconds of wall time. Elsewhere: `node:process`,
 * imported only then — on Linux its ~15 ms import would sit on the startup path.
 */
/** Client CPU above this share of one core per engine thread makes timestamps unreliable (the loop lags behind the socket). */
export const CPU_WARN_PERCENT = 70;

export interface CpuTime {
  readonly userMs: number;
  readonly systemMs: number;
}

const USER_HZ = 100;

function fromProc(): CpuTime | undefined {
  try {
    const stat = Deno.readTextFileSync("/proc/self/stat");
    // The command name (field 2) may contain spaces; fields after the closing parenthesis are space-separated.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
    return { userMs: utime * 1000 / USER_HZ, systemMs: stime * 1000 / USER_HZ };
  } catch {
    return undefined;
  }
}

/** A reader of the process CPU time, chosen once per platform. */
export async function cpuTimeReader(): Promise<() => CpuTime> {
  if (Deno.build.os === "linux" && fromProc() !== undefined) return () => fromProc()!;
  const { default: process } = await import("node:process");
  return () => {
    const u = process.cpuUsage();
    return { userMs: u.user / 1000, systemMs: u.system / 1000 };
  };
}
