/**
 * Open-file limit of this process: every connection is a file descriptor, and the usual soft limit (1024)
 * stops a run long before 20k streams. We raise the soft limit up to the hard limit (allowed without
 * privileges), and the hard limit too where the process may (root with CAP_SYS_RESOURCE). Linux and macOS,
 * through libc `getrlimit`/`setrlimit` (Deno has no API for it); elsewhere nothing is changed.
 */
export interface FdLimit {
  readonly soft: number;
  readonly hard: number;
}

const RLIMIT_NOFILE: Partial<Record<string, number>> = { linux: 7, darwin: 8 };
const LIBC: Partial<Record<string, string>> = { linux: "libc.so.6", darwin: "libSystem.B.dylib" };

/**
 * Ensures the soft limit is at least `wanted` when possible; returns the limits in force afterwards, or
 * undefined when they cannot be read on this platform.
 */
export function ensureFdLimit(wanted: number): FdLimit | undefined {
  const resource = RLIMIT_NOFILE[Deno.build.os];
  const libName = LIBC[Deno.build.os];
  if (resource === undefined || libName === undefined) return undefined;
  let lib;
  try {
    lib = Deno.dlopen(
      libName,
      {
        getrlimit: { parameters: ["i32", "buffer"], result: "i32" },
        setrlimit: { parameters: ["i32", "buffer"], result: "i32" },
      } as const,
    );
  } catch {
    return undefined; // no FFI permission, or an unusual libc
  }
  try {
    const lim = new BigUint64Array(2);
    if (lib.symbols.getrlimit(resource, lim) !== 0) return undefined;
    const want = BigInt(Math.ceil(wanted));
    if (lim[0] < want) {
      // First try to lift the hard limit too (privileged); if refused, go as high as the hard limit allows.
      const both = new BigUint64Array([want, lim[1] > want ? lim[1] : want]);
      if (lib.symbols.setrlimit(resource, both) !== 0) {
        const soft = new BigUint64Array([lim[1] < want ? lim[1] : want, lim[1]]);
        lib.symbols.setrlimit(resource, soft);
      }
      lib.symbols.getrlimit(resource, lim);
    }
    return { soft: Number(lim[0]), hard: Number(lim[1]) };
  } finally {
    lib.close();
  }
}
