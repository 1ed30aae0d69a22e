/**
 * End-to-end harness: runs the real CLI the way a user does (`deno run -A main.ts …` in a fresh directory) and
 * the real simulated server (`serve-sim --port 0 …`), with timeouts, so a hang fails one test instead of the
 * suite. Every helper cleans up after itself: processes are awaited and their pipes drained, temp dirs removed
 * (set `INFERMETER_E2E_KEEP=1` to keep them for a post-mortem; their paths are then printed).
 *
 * Use with `await using`: `await using sim = await startSim(["--ttft", "5"])` stops the server (SIGTERM, then
 * await its exit status) when the test scope ends, failed assertions included.
 */
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The CLI entry point of this checkout. */
export const MAIN_TS: string = fileURLToPath(new URL("../../main.ts", import.meta.url));

/** Generous default: a CLI run that takes longer than this on a loaded 2-core machine is a hang. */
const DEFAULT_CLI_TIMEOUT_MS = 30_000;
/** serve-sim loads its tokenizer before listening; allow for a cold cache on a slow machine. */
const DEFAULT_SIM_START_TIMEOUT_MS = 20_000;

/** Environment for every child: the caller's, minus INFERMETER_* (they would change the flags under test). */
function childEnv(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(Deno.env.toObject())) {
    if (!k.startsWith("INFERMETER_")) env[k] = v;
  }
  // No 2 s wait for a final server-metrics scrape after each run (AIPerf's flush period; tested on its own).
  return { ...env, NO_COLOR: "1", AIPERF_SERVER_METRICS_COLLECTION_FLUSH_PERIOD: "0", ...extra };
}

/** A finished CLI process. */
export interface CliResult {
  readonly code: number;
  readonly signal: Deno.Signal | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Wall time from spawn to exit, in ms. */
  readonly wallMs: number;
  /** True when the harness killed it after `timeoutMs`. */
  readonly timedOut: boolean;
  /** The arguments after `main.ts`, for failure messages. */
  readonly args: readonly string[];
}

export interface CliOptions {
  /** Working directory (artifacts land under it). */
  readonly cwd: string;
  /** Kill the process (SIGKILL) after this many ms. @default 30000 */
  readonly timeoutMs?: number;
  /** Extra environment variables. @default {} */
  readonly env?: Readonly<Record<string, string>>;
}

/** A CLI process still running: signal it, watch its files, await its result. Disposing it kills it (SIGKILL)
 * if it still runs and awaits its exit, so a failed assertion never leaks the process. */
export interface RunningCli extends AsyncDisposable {
  readonly child: Deno.ChildProcess;
  readonly result: Promise<CliResult>;
  /** Sends `signal` unless the process already exited. */
  kill(signal: Deno.Signal): void;
  /** Whether the process has exited (its result is then ready). */
  hasExited(): boolean;
  /** What the process wrote to stderr so far. */
  stderrSoFar(): string;
}

/** Spawns `deno run -A main.ts ...args` in `options.cwd`; stdout and stderr are collected in full. */
export function spawnCli(args: readonly string[], options: CliOptions): RunningCli {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN_TS, ...args],
    cwd: options.cwd,
    env: childEnv(options.env),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let exited = false;
  let timedOut = false;
  const kill = (signal: Deno.Signal) => {
    if (exited) return;
    try {
      child.kill(signal);
    } catch {
      // It exited between the check and the kill.
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill("SIGKILL");
  }, options.timeoutMs ?? DEFAULT_CLI_TIMEOUT_MS);
  const stdout = collectText(child.stdout);
  const stderr = collectText(child.stderr);
  const result = (async (): Promise<CliResult> => {
    try {
      const status = await child.status;
      exited = true;
      // A grandchild that inherited a pipe (e.g. the demo's server after the demo was killed) would hold it open
      // forever: give the pipes a moment to reach EOF after the exit, then stop reading.
      await settleWithin(Promise.all([stdout.done, stderr.done]), 2000, () => {
        stdout.cancel();
        stderr.cancel();
      });
      return {
        code: status.code,
        signal: status.signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        wallMs: performance.now() - started,
        timedOut,
        args,
      };
    } finally {
      clearTimeout(timer);
    }
  })();
  return {
    child,
    result,
    kill,
    hasExited: () => exited,
    stderrSoFar: () => stderr.text(),
    [Symbol.asyncDispose]: async () => {
      kill("SIGKILL");
      await result;
    },
  };
}

/** Reads a child's pipe to EOF as text; `cancel()` stops early. */
function collectText(stream: ReadableStream<Uint8Array>) {
  let text = "";
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  const done = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      text += value;
    }
  })().catch(() => {});
  return { done, text: () => text, cancel: () => void reader.cancel().catch(() => {}) };
}

/** Waits for `promise` up to `ms`; on timeout calls `onTimeout` and waits for `promise` to settle after that. */
async function settleWithin(promise: Promise<unknown>, ms: number, onTimeout: () => void): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<true>((resolve) => timer = setTimeout(() => resolve(true), ms));
  try {
    if (await Promise.race([promise.then(() => false), timedOut])) {
      onTimeout();
      await promise;
    }
  } finally {
    clearTimeout(timer);
  }
}

/** Runs the CLI to completion (see {@link spawnCli}). */
export function runCli(args: readonly string[], options: CliOptions): Promise<CliResult> {
  return spawnCli(args, options).result;
}

/** Asserts the exit code, showing the command, stdout and stderr when it differs (or when the run hung). */
export function assertExit(run: CliResult, expected: number): void {
  if (run.code === expected && !run.timedOut) return;
  assert.fail(
    `main.ts ${run.args.join(" ")}\n` +
      `expected exit ${expected}, got ${run.code}${run.signal ? ` (${run.signal})` : ""}` +
      `${run.timedOut ? " after the harness killed it for hanging" : ""} in ${run.wallMs.toFixed(0)} ms\n` +
      `--- stdout ---\n${tail(run.stdout)}\n--- stderr ---\n${tail(run.stderr)}`,
  );
}

function tail(text: string, chars = 4000): string {
  return text.length <= chars ? text : `…${text.slice(-chars)}`;
}

/** A running `serve-sim`. Disposing it stops it (SIGTERM) and awaits its exit. */
export interface Sim extends AsyncDisposable {
  /** `http://127.0.0.1:<port>` as printed by the server. */
  readonly url: string;
  readonly port: number;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  /** Stops the server (SIGTERM, or `signal`) and resolves with its exit status; idempotent. */
  stop(signal?: Deno.Signal): Promise<Deno.CommandStatus>;
}

const LISTENING = /^serve-sim listening on (http:\/\/127\.0\.0\.1:(\d+))$/;

/** Starts `serve-sim --port 0 ...args` and resolves once it printed its listening line. */
export async function startSim(
  args: readonly string[] = [],
  options: { readonly startTimeoutMs?: number } = {},
): Promise<Sim> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN_TS, "serve-sim", "--port", "0", ...args],
    env: childEnv(),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();

  let stderrText = "";
  const stderrDone = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (chunk) => void (stderrText += chunk) }),
  );
  // The first stdout line is the address; everything after it is drained so the server never blocks on a pipe.
  let stdoutText = "";
  let resolveLine!: (line: string | undefined) => void;
  const firstLine = new Promise<string | undefined>((resolve) => resolveLine = resolve);
  const stdoutDone = child.stdout.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({
      write: (chunk) => {
        stdoutText += chunk;
        const nl = stdoutText.indexOf("\n");
        if (nl >= 0) resolveLine(stdoutText.slice(0, nl));
      },
      close: () => resolveLine(undefined),
    }),
  );

  let stopped: Promise<Deno.CommandStatus> | undefined;
  const stop = (signal: Deno.Signal = "SIGTERM"): Promise<Deno.CommandStatus> => {
    stopped ??= (async () => {
      try {
        child.kill(signal);
      } catch {
        // Already exited.
      }
      const [status] = await Promise.all([child.status, stdoutDone, stderrDone]);
      return status;
    })();
    return stopped;
  };

  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), options.startTimeoutMs ?? DEFAULT_SIM_START_TIMEOUT_MS);
  });
  const line = await Promise.race([firstLine, timeout]);
  clearTimeout(timer);
  const match = typeof line === "string" ? LISTENING.exec(line) : null;
  if (match === null) {
    await stop("SIGKILL");
    throw new Error(
      `serve-sim ${args.join(" ")} did not print its listening line ` +
        `(${line === "timeout" ? "timed out" : `got ${JSON.stringify(line)}`}); stderr:\n${stderrText}`,
    );
  }
  return {
    url: match[1],
    port: Number(match[2]),
    stderr: () => stderrText,
    stop: (signal?: Deno.Signal) => stop(signal),
    [Symbol.asyncDispose]: async () => {
      await stop();
    },
  };
}

/** A fresh temporary directory, removed when disposed (kept when INFERMETER_E2E_KEEP=1). */
export interface TempDir extends AsyncDisposable {
  readonly path: string;
}

export async function tempDir(): Promise<TempDir> {
  const path = await Deno.makeTempDir({ prefix: "infermeter_e2e_" });
  return {
    path,
    [Symbol.asyncDispose]: async () => {
      if (Deno.env.get("INFERMETER_E2E_KEEP") === "1") {
        console.error(`kept ${path}`);
        return;
      }
      await Deno.remove(path, { recursive: true });
    },
  };
}

/** A TCP port on 127.0.0.1 that nothing listens on (it was free a moment ago). */
export function unusedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

// ---------------------------------------------------------------------------------------------------------
// Artifacts

/** Parsed JSON of a file. */
export async function readJson<T = Record<string, unknown>>(path: string): Promise<T> {
  return JSON.parse(await Deno.readTextFile(path)) as T;
}

/** A `profile_export.jsonl` line: the raw text (exact integers) and its parse. */
export interface JsonlLine {
  readonly raw: string;
  readonly record: ExportRecord;
}

/** The parts of a JSONL record the tests look at. */
export interface ExportRecord {
  readonly metadata: Record<string, unknown> & {
    readonly x_request_id: string;
    readonly conversation_id: string;
    readonly benchmark_phase: string;
    readonly was_cancelled: boolean;
  };
  readonly metrics: Record<string, { readonly value: number | number[]; readonly unit: string }>;
  /** Present for failed requests only (AIPerf leaves the key out for a success). */
  readonly error?: { readonly code?: number; readonly type: string; readonly message: string };
}

export async function readJsonl(path: string): Promise<JsonlLine[]> {
  const text = await Deno.readTextFile(path);
  assert.ok(text === "" || text.endsWith("\n"), `${path} does not end with a newline`);
  return text.split("\n").filter((l) => l !== "").map((raw) => ({ raw, record: JSON.parse(raw) as ExportRecord }));
}

/** The value of an integer field as written in the raw JSON text (not through a float). */
export function rawInteger(raw: string, field: string): bigint {
  const m = new RegExp(`"${field}":(-?[0-9]+)[,}]`).exec(raw);
  assert.ok(m, `"${field}" is not written as plain integer digits in: ${raw.slice(0, 300)}`);
  return BigInt(m[1]);
}

/** A metric record value as a number (asserting it is not a list). */
export function recordValue(record: ExportRecord, tag: string): number {
  const m = record.metrics[tag];
  assert.ok(m, `record ${record.metadata.x_request_id} has no ${tag}`);
  assert.equal(typeof m.value, "number");
  return m.value as number;
}

/** A summary metric block of `profile_export_aiperf.json`. */
export interface MetricBlock {
  readonly unit: string;
  readonly avg: number;
  readonly min?: number;
  readonly max?: number;
  readonly p50?: number;
  readonly std?: number;
  readonly count?: number;
  readonly sum?: number;
}

/** The summary metric `tag`, asserting it exists. */
export function metric(summary: Record<string, unknown>, tag: string): MetricBlock {
  const m = summary[tag] as MetricBlock | undefined;
  assert.ok(m && typeof m.avg === "number", `summary JSON has no metric '${tag}'`);
  return m;
}

/** Every regular file under `dir`, recursively, as paths relative to `dir`. */
export async function walkFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const visit = async (d: string) => {
    for await (const e of Deno.readDir(d)) {
      const p = join(d, e.name);
      if (e.isDirectory) await visit(p);
      else if (e.isFile) out.push(relative(dir, p));
    }
  };
  await visit(dir);
  return out.sort();
}

export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

/**
 * Rows of the console's metrics table (`│ label │ avg │ …`), keyed by label; the first table printed only
 * (the error summary follows it).
 */
export function consoleTableRows(stdout: string, title = "infermeter | LLM Metrics"): Map<string, string[]> {
  const lines = stdout.split("\n");
  const start = lines.findIndex((l) => l.trim() === title);
  assert.ok(start >= 0, `stdout has no '${title}' table:\n${stdout}`);
  const rows = new Map<string, string[]>();
  let last: [string, string[]] | undefined;
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith("└")) break;
    if (!line.startsWith("│")) continue;
    const cells = line.split("│").slice(1, -1).map((c) => c.trim());
    // A row whose other cells are empty continues the previous row's wrapped name (AIPerf puts the unit of a
    // long name on its own line).
    if (last !== undefined && cells.slice(1).every((c) => c === "")) {
      rows.delete(last[0]);
      last = [`${last[0]} ${cells[0]}`, last[1]];
    } else last = [cells[0], cells.slice(1)];
    rows.set(last[0], last[1]);
  }
  return rows;
}

/** Parses `profile_export_aiperf.csv`: its sections (separated by blank lines), each a header and rows. */
export function parseCsvSections(text: string): { header: string[]; rows: string[][] }[] {
  return text.trim().split(/\n\s*\n/).map((block) => {
    const [header, ...rows] = block.split("\n").map((l) => l.split(","));
    for (const r of rows) {
      assert.equal(r.length, header.length, `CSV row '${r.join(",")}' has ${r.length} cells, header ${header.length}`);
    }
    return { header, rows };
  });
}
