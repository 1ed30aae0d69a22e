/**
 * Starts the one `serve-sim --fast` instance every client of a bench run talks to, pinned to its own core, and
 * keeps its CPU samples (to tell whether the server was the bottleneck of a measurement).
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

export async function startSimServer(options: SimServerOptions): Promise<SimServer> {
  const argv = pinned(
    [Deno.execPath(), "run", "-A", "main.ts", "serve-sim", "--port", "0", "--host", "127.0.0.1", "--fast"]
      .concat(options.extraArgs ?? []),
    options.cores,
  );
  const child = spawnTracked({ label: "serve-sim", argv, cwd: options.repoRoot });
  let stderr = "";
  const stderrDone = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (s) => void (stderr = (stderr + s).slice(-8192)) }),
  ).catch(() => {});

  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const timeoutMs = options.startTimeoutMs ?? 30_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => timer = setTimeout(() => resolve("timeout"), timeoutMs));
  try {
    while (!LISTENING.test(text)) {
      const next = await Promise.race([reader.read(), timeout]);
      if (next === "timeout") {
        throw new Error(`serve-sim printed no 'listening' line within ${timeoutMs / 1000} s.\n${tail(stderr)}`);
      }
      if (next.done) {
        await stderrDone;
        throw new Error(`serve-sim exited before listening:\n${tail(stderr) || "(no output)"}`);
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

  const url = LISTENING.exec(text)![1];
  // serve-sim is one process (threads included in its /proc stat): poll the root only.
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
