/**
 * Starts the one `serve-sim --fast` instance every client of a bench run talks to, pinned to its own core, and
 * keeps its CPU samples (to tell whether the server was the bottleneck of a measurement); the same for any other
 * single-process server a bench drives (`startServerProcess`).
 */
import { pinned, spawnTracked, stopChild, tail } from "./child_runner.ts";
import { TreeMonitor } from "./tree_monitor.ts";

export interface SimServerOptions {
  /** Repository root (where main.ts is). */
  readonly repoRoot: string;
  /** `taskset -c` value for the server, or undefined for no pinning. */
  readonly cores?: string;
  /** Extra serve-sim flags. @default [] */
  readonly extraArgs?: readonly string[];
  /** Give up waiting for the listening line after this long. @default 30000 */
  readonly startTimeoutMs?: number;
}

export interface SimServer {
  readonly url: string;
  readonly pid: number;
  readonly argv: readonly string[];
  readonly monitor: TreeMonitor;
  /** serve-sim's CPU use between two epoch-ms instants, percent of one core. */
  cpuPercent(from: number, to: number): number | undefined;
  stop(): Promise<void>;
}

const LISTENING = /serve-sim listening on (http:\/\/\S+)/;

export function startSimServer(options: SimServerOptions): Promise<SimServer> {
  return startServerProcess({
    label: "serve-sim",
    argv: [Deno.execPath(), "run", "-A", "main.ts", "serve-sim", "--port", "0", "--host", "127.0.0.1", "--fast"]
      .concat(options.extraArgs ?? []),
    cwd: options.repoRoot,
    cores: options.cores,
    listening: LISTENING,
    startTimeoutMs: options.startTimeoutMs,
  });
}

/** Any single-process loopback server the benches drive: how to start it and how it says where it listens. */
export interface ServerLaunch {
  /** For messages, e.g. `serve-sim`. */
  readonly label: string;
  /** The command, not yet pinned. */
  readonly argv: readonly string[];
  readonly cwd?: string;
  /** `taskset -c` value, or undefined for no pinning. */
  readonly cores?: string;
  /** Matches the line it prints once it listens; group 1 is its URL, or its port on 127.0.0.1. */
  readonly listening: RegExp;
  /** @default 30000 */
  readonly startTimeoutMs?: number;
}

/** Starts a server, waits for its listening line, and polls its CPU until stopped. */
export async function startServerProcess(launch: ServerLaunch): Promise<SimServer> {
  const { label } = launch;
  const argv = pinned(launch.argv, launch.cores);
  const child = spawnTracked({ label, argv, cwd: launch.cwd });
  let stderr = "";
  const stderrDone = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (s) => void (stderr = (stderr + s).slice(-8192)) }),
  ).catch(() => {});

  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const timeoutMs = launch.startTimeoutMs ?? 30_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => timer = setTimeout(() => resolve("timeout"), timeoutMs));
  try {
    while (!launch.listening.test(text)) {
      const next = await Promise.race([reader.read(), timeout]);
      if (next === "timeout") {
        throw new Error(`${label} printed no 'listening' line within ${timeoutMs / 1000} s.\n${tail(stderr)}`);
      }
      if (next.done) {
        await stderrDone;
        throw new Error(`${label} exited before listening:\n${tail(stderr) || "(no output)"}`);
      }
      text += next.value;
    }
  } catch (err) {
    await stopChild(child, 1000);
    throw err;
  } finally {
    clearTimeout(timer);
  }
  // Keep draining stdout so that the server never blocks on a full pipe.
  (async () => {
    try {
      while (!(await reader.read()).done) { /* discard */ }
    } catch { /* closed */ }
  })();

  const where = launch.listening.exec(text)![1];
  const url = /^\d+$/.test(where) ? `http://127.0.0.1:${where}` : where;
  // One process (threads included in its /proc stat): poll the root only.
  const monitor = new TreeMonitor(child.pid, { intervalMs: 100, rootOnly: true }).start();
  return {
    url,
    pid: child.pid,
    argv,
    monitor,
    cpuPercent: (from, to) => {
      const cpu = monitor.cpuBetween(from, to);
      return cpu === undefined || to <= from ? undefined : 100 * cpu / ((to - from) / 1000);
    },
    stop: async () => {
      monitor.stop();
      await stopChild(child);
      await stderrDone;
    },
  };
}
