/**
 * Levelled logging to stderr (stdout is for results) and, once the artifact directory exists, to a log
 * file. Lines look like AIPerf's: `14:03:07.512345 INFO     message`. Callers never pass secrets: the
 * config keeps them out of everything that is logged (the command line is logged in redacted form).
 */
import { writeAll } from "../runtime/write_all.ts";
import { printable } from "../base/printable.ts";

/** AIPerf's log levels. */
export type LogLevel = "TRACE" | "DEBUG" | "INFO" | "NOTICE" | "WARNING" | "SUCCESS" | "ERROR" | "CRITICAL";

const LEVELS: Readonly<Record<LogLevel, number>> = {
  TRACE: 5,
  DEBUG: 10,
  INFO: 20,
  NOTICE: 25,
  WARNING: 30,
  SUCCESS: 35,
  ERROR: 40,
  CRITICAL: 50,
};

export interface LogSink {
  write(line: string): void;
}

/** Lines kept for the first sink at most. */
const EARLY_LINES = 1000;

export class Logger {
  #threshold: number;
  readonly #sinks: { sink: LogSink; threshold: number }[] = [];
  /**
   * Lines logged before the first sink was added (what a run says while it plans, before its log file exists),
   * handed to that sink so the log file is complete; bounded.
   */
  #early: { readonly n: number; readonly line: string }[] | undefined = [];
  /** Called before a console line is written (the progress bar clears its line). */
  beforeConsoleWrite: (() => void) | undefined;
  readonly #console: LogSink;

  constructor(level: LogLevel, console: LogSink) {
    this.#threshold = LEVELS[level];
    this.#console = console;
  }

  /** Adds a sink (e.g. the run's log file) that receives every line at `level` or above. */
  addSink(sink: LogSink, level: LogLevel = "DEBUG"): void {
    this.#sinks.push({ sink, threshold: LEVELS[level] });
    for (const { n, line } of this.#early ?? []) if (n >= LEVELS[level]) sink.write(line);
    this.#early = undefined;
  }

  /** Stops sending lines to `sink` (a closed log file). */
  removeSink(sink: LogSink): void {
    const i = this.#sinks.findIndex((s) => s.sink === sink);
    if (i >= 0) this.#sinks.splice(i, 1);
  }

  enabled(level: LogLevel): boolean {
    return LEVELS[level] >= this.#threshold;
  }

  log(level: LogLevel, message: string): void {
    const n = LEVELS[level];
    const needsConsole = n >= this.#threshold;
    const early = this.#early !== undefined && this.#early.length < EARLY_LINES;
    if (!needsConsole && !early && !this.#sinks.some((s) => n >= s.threshold)) return;
    // Messages quote dataset lines and server answers: no control character of theirs reaches the terminal.
    const line = `${timestamp()} ${level.padEnd(8)} ${printable(message)}\n`;
    if (early) this.#early!.push({ n, line });
    if (needsConsole) {
      this.beforeConsoleWrite?.();
      this.#console.write(line);
    }
    for (const s of this.#sinks) if (n >= s.threshold) s.sink.write(line);
  }

  trace(message: string): void {
    this.log("TRACE", message);
  }
  debug(message: string): void {
    this.log("DEBUG", message);
  }
  info(message: string): void {
    this.log("INFO", message);
  }
  warning(message: string): void {
    this.log("WARNING", message);
  }
  error(message: string): void {
    this.log("ERROR", message);
  }
}

/** `(+N ms since start)`: milliseconds since the process started, for startup tracing in debug logs. */
export function sinceStart(): string {
  return `(+${performance.now().toFixed(0)} ms since start)`;
}

function timestamp(): string {
  const d = new Date();
  const us = Math.floor((performance.timeOrigin + performance.now()) * 1000) % 1_000_000;
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(us, 6)}`;
}

/** A sink writing synchronously to stderr (log lines are rare; ordering with the table matters more). */
export const STDERR_SINK: LogSink = {
  write(line: string): void {
    Deno.stderr.writeSync(new TextEncoder().encode(line));
  },
};

/** A sink that appends to a file through one open handle, flushing asynchronously. */
export class FileSink implements LogSink {
  readonly #file: Deno.FsFile;
  #chain: Promise<unknown> = Promise.resolve();
  readonly #encoder = new TextEncoder();

  constructor(file: Deno.FsFile) {
    this.#file = file;
  }

  static async open(path: string): Promise<FileSink> {
    return new FileSink(await Deno.open(path, { create: true, write: true, truncate: true }));
  }

  #failure: unknown;

  /** The first failed write (a full disk): later lines are dropped, and the run says the log is incomplete. */
  get failure(): unknown {
    return this.#failure;
  }

  write(line: string): void {
    if (this.#failure !== undefined) return;
    const bytes = this.#encoder.encode(line);
    this.#chain = this.#chain.then(() => this.#failure === undefined ? writeAll(this.#file, bytes) : undefined)
      .catch((err) => void (this.#failure ??= err));
  }

  async close(): Promise<void> {
    await this.#chain;
    this.#file.close();
  }
}
