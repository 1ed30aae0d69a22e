/**
 * Where generated code runs (the `code_execution` grader): `python3` in new user, network, mount and PID namespaces
 * (`unshare`), so it has no network at all (only a down loopback), sees every file system read-only but a private
 * 64 MiB tmpfs it starts in, cannot signal or outlive this process's other children, runs with an empty environment
 * (no secrets), under CPU-time, memory and file-size limits, and is killed with its whole PID namespace at a
 * wall-clock limit. Before a run uses it, `sandboxProblem()` checks on this machine that all of this holds — the
 * network namespace has only `lo`, the working directory of infermeter cannot be written — and otherwise says why
 * generated code will not be run.
 */

/** The shell that prepares the namespaces, then runs Python with the given arguments. */
const SETUP = [
  "set -e",
  // Every mount read-only (deepest first), then a fresh tmpfs to work in.
  `awk '{print $5}' /proc/self/mountinfo | sort -r | while read -r m; do mount -o remount,bind,ro "$m" 2>/dev/null || true; done`,
  "mount -t tmpfs -o size=64m,mode=700 tmpfs /tmp",
  "cd /tmp",
  'exec python3 -I -S "$@"',
].join("\n");

export interface SandboxRun {
  readonly stdout: string;
  readonly stderr: string;
  /** Killed at the wall-clock limit. */
  readonly timedOut: boolean;
  readonly code: number;
}

export interface SandboxLimits {
  /** Wall-clock limit, ms. */
  readonly wallMs: number;
  /** CPU seconds (RLIMIT_CPU). @default wall-clock seconds + 1 */
  readonly cpuSeconds?: number;
  /** Address-space bytes (RLIMIT_AS). @default 4 GiB */
  readonly memoryBytes?: number;
}

/** Runs `python3 -I -S <args>` in the sandbox with `stdin` as its input. */
export async function runSandboxed(args: readonly string[], stdin: string, limits: SandboxLimits): Promise<SandboxRun> {
  const cpu = limits.cpuSeconds ?? Math.ceil(limits.wallMs / 1000) + 1;
  const memory = limits.memoryBytes ?? 4 * 1024 ** 3;
  const command = new Deno.Command("unshare", {
    args: [
      "--user",
      "--map-root-user",
      "--net",
      "--mount",
      "--pid",
      "--fork",
      "--kill-child",
      "--",
      "prlimit",
      `--cpu=${cpu}`,
      `--as=${memory}`,
      "--fsize=16777216",
      "--core=0",
      "--",
      "sh",
      "-c",
      SETUP,
      "sandbox",
      ...args,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    clearEnv: true,
    env: { PATH: "/usr/local/bin:/usr/bin:/bin", LANG: "C.UTF-8", PYTHONDONTWRITEBYTECODE: "1" },
  });
  const child = command.spawn();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  }, limits.wallMs);
  try {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(stdin)).catch(() => {});
    await writer.close().catch(() => {});
    const out = await child.output();
    const decoder = new TextDecoder();
    return { stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr), timedOut, code: out.code };
  } finally {
    clearTimeout(timer);
  }
}

const PROBE = String.raw`
import os, socket, sys
names = [n for _, n in socket.if_nameindex()]
target = sys.argv[1]
try:
    open(os.path.join(target, ".infermeter-sandbox-probe"), "w").close()
    os.remove(os.path.join(target, ".infermeter-sandbox-probe"))
    writable = True
except OSError:
    writable = False
print("interfaces=" + ",".join(names))
print("writable=" + str(writable))
`;

let checked: Promise<string | undefined> | undefined;

/** Why generated code cannot be run safely here, or undefined when the sandbox holds (checked once per process). */
export function sandboxProblem(): Promise<string | undefined> {
  checked ??= probe();
  return checked;
}

async function probe(): Promise<string | undefined> {
  const cwd = Deno.cwd();
  let run: SandboxRun;
  try {
    run = await runSandboxed(["-c", PROBE, cwd], "", { wallMs: 20_000 });
  } catch (err) {
    return `it needs the unshare, prlimit and python3 commands (${(err as Error).message})`;
  }
  if (run.timedOut) return "the sandbox did not start within 20 s";
  const interfaces = /interfaces=(.*)/.exec(run.stdout)?.[1];
  const writable = /writable=(\w+)/.exec(run.stdout)?.[1];
  if (run.code !== 0 || interfaces === undefined) {
    const why = run.stderr.trim().split("\n").pop() ?? `exit ${run.code}`;
    return `it needs python3 and unprivileged user, network and mount namespaces (unshare), which failed here: ${why}`;
  }
  if (interfaces !== "lo") return `the sandbox still sees network interfaces (${interfaces})`;
  if (writable !== "False") return `the sandbox could not make ${cwd} read-only`;
  return undefined;
}
