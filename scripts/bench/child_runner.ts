/**
 * Spawning for the bench harness: CPU pinning with `taskset`, a time limit per child, polling of the child's
 * process tree, and cleanup — every child (and its descendants) is killed when the harness exits, is
 * interrupted (SIGINT/SIGTERM) or throws.
 */
import { signalTree } from "./proc_tree.ts";
import { TreeMonitor, type TreeUsage } from "./tree_monitor.ts";

const live = new Map<number, string>();
let handlersInstalled = false;

/** Kills every live child tree: SIGTERM, then SIGKILL for what is left after `graceMs`. */
export async function killAllChildren(graceMs = 2000): Promise<void> {
  const pids = [...live.keys()];
  for (const pid of pids) signalTree(pid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && [...live.keys()].length > 0) await delay(50);
  for (const pid of live.keys()) signalTree(pid, "SIGKILL");
}

function killAllNow(): void {
  for (const pid of live.keys()) signalTree(pid, "SIGKILL");
}

let interrupted: Deno.Signal | undefined;

/** The signal that interrupted the run, once Ctrl-C / SIGTERM arrived; no new child starts after that. */
export function interruptedBy(): Deno.Signal | undefined {
  return interrupted;
}

function refuseWhenInterrupted(label: string): void {
  if (interrupted !== undefined) throw new Error(`${label}: not started, the bench was interrupted (${interrupted}).`);
}

/**
 * First Ctrl-C / SIGTERM: no new child starts, every running child tree is killed, and the harness finishes
 * with what it has (partial results). A second one exits at once (130 / 143). On unload: SIGKILL what is left.
 */
export function installExitHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  const handle = (signal: Deno.Signal, code: number) => () => {
    if (interrupted !== undefined) {
      killAllNow();
      Deno.exit(code);
    }
    interrupted = signal;
    console.error(`\nbench: ${signal}: stopping ${live.size} child process(es); press Ctrl-C again to quit at once.`);
    killAllChildren(1500);
  };
  Deno.addSignalListener("SIGINT", handle("SIGINT", 130));
  Deno.addSignalListener("SIGTERM", handle("SIGTERM", 143));
  globalThis.addEventListener("unload", killAllNow);
}

/** Wraps argv with `taskset -c <cores>` when `cores` is given. */
export function pinned(argv: readonly string[], cores: string | undefined): string[] {
  return cores === undefined ? [...argv] : ["taskset", "-c", cores, ...argv];
}

export interface ChildSpec {
  /** For messages: `ours`, `wrk`, `serve-sim`, … */
  readonly label: string;
  /** argv[0] and its arguments, wrappers included. */
  readonly argv: readonly string[];
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
  /** Kill the tree after this long. */
  readonly timeoutMs: number;
  /** Poll the whole process tree (true) or the root only (false). @default true */
  readonly tree?: boolean;
  /** Poll interval. @default 100 */
  readonly pollMs?: number;
  /** Write stdout / stderr here too. */
  readonly stdoutPath?: string;
  readonly stderrPath?: string;
  /**
   * Put GNU time (`/usr/bin/time`) in front of the command, writing to this file: exact user + system CPU of the
   * command and every descendant it waited for, which polling can miss by up to one interval at exit.
   */
  readonly gnuTimePath?: string;
}

/** What GNU time reported (`%e %U %S %M`). */
export interface GnuTime {
  readonly wallSec: number;
  readonly userSec: number;
  readonly systemSec: number;
  /** Largest single-process peak RSS (not a sum), KiB. */
  readonly maxRssKb: number;
}

export const GNU_TIME = "/usr/bin/time";

export function hasGnuTime(): boolean {
  try {
    return Deno.statSync(GNU_TIME).isFile;
  } catch {
    return false;
  }
}

export interface ChildRun {
  readonly code: number;
  readonly timedOut: boolean;
  readonly stdout: string;
  readonly stderr: string;
  /** Epoch ms at spawn and at exit. */
  readonly startedAt: number;
  readonly endedAt: number;
  readonly usage: TreeUsage;
  /** The tree's CPU samples, to read the CPU used inside a window afterwards. */
  readonly monitor: TreeMonitor;
  readonly gnuTime?: GnuTime;
}

/** Runs a child to completion (or its time limit) while polling its process tree. Never throws for exit codes. */
export async function runChild(spec: ChildSpec): Promise<ChildRun> {
  const argv = spec.gnuTimePath === undefined ? spec.argv : withGnuTime(spec.argv, spec.gnuTimePath);
  const [cmd, ...args] = argv;
  refuseWhenInterrupted(spec.label);
  const startedAt = Date.now();
  let child: Deno.ChildProcess;
  try {
    child = spawnPiped(cmd, args, spec);
  } catch (err) {
    throw new Error(`${spec.label}: cannot start '${cmd}': ${(err as Error).message}`);
  }
  live.set(child.pid, spec.label);
  const monitor = new TreeMonitor(child.pid, {
    intervalMs: spec.pollMs,
    rootOnly: spec.tree === false,
    skipRootMemory: spec.gnuTimePath !== undefined,
  }).start();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    console.error(`bench: ${spec.label} ran past its ${Math.round(spec.timeoutMs / 1000)} s limit; killing it.`);
    signalTree(child.pid, "SIGTERM");
    setTimeout(() => signalTree(child.pid, "SIGKILL"), 3000);
  }, spec.timeoutMs);
  try {
    const out = await child.output();
    const endedAt = Date.now();
    const usage = monitor.stop();
    const stdout = new TextDecoder().decode(out.stdout);
    const stderr = new TextDecoder().decode(out.stderr);
    if (spec.stdoutPath) await Deno.writeTextFile(spec.stdoutPath, stdout);
    if (spec.stderrPath) await Deno.writeTextFile(spec.stderrPath, stderr);
    const gnuTime = spec.gnuTimePath === undefined ? undefined : await readGnuTime(spec.gnuTimePath);
    return { code: out.code, timedOut, stdout, stderr, startedAt, endedAt, usage, monitor, gnuTime };
  } finally {
    clearTimeout(timer);
    monitor.stop();
    // Descendants that outlived their parent (a Python worker, say) go too.
    signalTree(child.pid, "SIGKILL");
    live.delete(child.pid);
  }
}

/** Inserts GNU time after a leading `taskset -c N` (so time itself runs pinned too). */
function withGnuTime(argv: readonly string[], path: string): string[] {
  const time = [GNU_TIME, "-o", path, "-f", "%e %U %S %M"];
  return argv[0] === "taskset" ? [...argv.slice(0, 3), ...time, ...argv.slice(3)] : [...time, ...argv];
}

async function readGnuTime(path: string): Promise<GnuTime | undefined> {
  try {
    // The last line: earlier ones may be "Command exited with non-zero status N".
    const line = (await Deno.readTextFile(path)).trim().split("\n").at(-1) ?? "";
    const [wall, user, system, rss] = line.split(" ").map(Number);
    if ([wall, user, system, rss].some((n) => !Number.isFinite(n))) return undefined;
    return { wallSec: wall, userSec: user, systemSec: system, maxRssKb: rss };
  } catch {
    return undefined;
  }
}

/** A long-lived child (the server): spawned, tracked for cleanup, stopped with {@linkcode stopChild}. */
export function spawnTracked(spec: Omit<ChildSpec, "timeoutMs" | "stdoutPath" | "stderrPath">): Deno.ChildProcess {
  const [cmd, ...args] = spec.argv;
  refuseWhenInterrupted(spec.label);
  const child = spawnPiped(cmd, args, spec);
  live.set(child.pid, spec.label);
  return child;
}

/** SIGTERM, wait up to `graceMs`, then SIGKILL; resolves once the child has exited. */
export async function stopChild(child: Deno.ChildProcess, graceMs = 3000): Promise<Deno.CommandStatus> {
  signalTree(child.pid, "SIGTERM");
  const timer = setTimeout(() => signalTree(child.pid, "SIGKILL"), graceMs);
  try {
    return await child.status;
  } finally {
    clearTimeout(timer);
    live.delete(child.pid);
  }
}

/** Runs a short helper command (no tree polling); `undefined` stdout when it cannot start. */
export async function quickCommand(
  argv: readonly string[],
  timeoutMs = 30_000,
  options: { cwd?: string; env?: Readonly<Record<string, string>> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const [cmd, ...args] = argv;
  if (interrupted !== undefined) return { code: 130, stdout: "", stderr: `interrupted (${interrupted})` };
  try {
    const child = new Deno.Command(cmd, {
      args,
      cwd: options.cwd,
      env: options.env ? { ...options.env } : undefined,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    live.set(child.pid, cmd);
    const timer = setTimeout(() => signalTree(child.pid, "SIGKILL"), timeoutMs);
    try {
      const out = await child.output();
      const d = new TextDecoder();
      return { code: out.code, stdout: d.decode(out.stdout), stderr: d.decode(out.stderr) };
    } finally {
      clearTimeout(timer);
      live.delete(child.pid);
    }
  } catch (err) {
    return { code: 127, stdout: "", stderr: (err as Error).message };
  }
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The last `lines` non-empty lines of a text, for error messages. */
export function tail(text: string, lines = 8): string {
  return text.split("\n").filter((l) => l.trim() !== "").slice(-lines).join("\n");
}

/** Every child the harness starts: no stdin, stdout and stderr captured. */
function spawnPiped(cmd: string, args: string[], spec: Pick<ChildSpec, "cwd" | "env">): Deno.ChildProcess {
  return new Deno.Command(cmd, {
    args,
    cwd: spec.cwd,
    env: spec.env ? { ...spec.env } : undefined,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}
