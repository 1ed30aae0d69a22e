/**
 * Reads a large per-request JSONL in parts at once: the file is cut into equal byte ranges, a Worker reduces the
 * lines that begin in each (`records_worker.ts`), and the caller merges the parts in file order. A bad line is
 * reported with its number in the whole file (the lines of the parts before it are counted first), as a single
 * pass would report it; the parts after it are stopped.
 */
import { spawnWorker } from "../runtime/spawn_worker.ts";
import { LineError, ReportError } from "./report_error.ts";
import type { ByteRange } from "./record_stream.ts";

/** Files at least this large are read by several Workers. */
export const PARALLEL_MIN_BYTES = 64 * 1024 * 1024;
/** Most Workers for one file. */
export const MAX_READ_WORKERS = 8;

/** What a reading Worker is asked to do. */
export interface RangeTask {
  readonly path: string;
  readonly range: ByteRange;
  /** The reduction's own options (plain data). */
  readonly options: unknown;
}

/** What it answers. */
export type RangeResult<S> =
  | { readonly ok: true; readonly state: S; readonly lines: number }
  | {
    readonly ok: false;
    readonly line?: { readonly file: string; readonly line: number; readonly reason: string };
    readonly message: string;
  };

/** Workers for a file of `bytes`: one per core, at most one per {@link PARALLEL_MIN_BYTES}. */
export function readWorkersFor(bytes: number): number {
  return Math.min(navigator.hardwareConcurrency ?? 1, Math.floor(bytes / PARALLEL_MIN_BYTES), MAX_READ_WORKERS);
}

function runPart<S>(task: RangeTask): { worker: Worker; result: Promise<RangeResult<S>> } {
  const worker = spawnWorker("records-reader");
  const result = new Promise<RangeResult<S>>((resolve) => {
    worker.onmessage = (e: MessageEvent<RangeResult<S>>) => resolve(e.data);
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      resolve({ ok: false, message: `${task.path}: cannot read it (${e.message}).` });
    };
  });
  worker.postMessage(task);
  return { worker, result };
}

/**
 * The reductions of the parts of `path`, in file order; undefined when the file is too small to be worth it (or
 * `workers` < 2), and the caller reads it in one pass.
 * @throws {LineError} for a bad line, numbered in the whole file.
 * @throws {ReportError} when a part cannot be read.
 */
export async function readInParts<S>(path: string, options: unknown, workers?: number): Promise<S[] | undefined> {
  let size: number;
  try {
    const stat = await Deno.stat(path);
    if (!stat.isFile) return undefined;
    size = stat.size;
  } catch {
    return undefined; // the one-pass reader reports it
  }
  const count = Math.min(workers ?? readWorkersFor(size), Math.max(1, size));
  if (count < 2) return undefined;
  const parts = Array.from({ length: count }, (_, i) =>
    runPart<S>({
      path,
      range: { start: Math.floor((size * i) / count), end: Math.floor((size * (i + 1)) / count) },
      options,
    }));
  try {
    const states: S[] = [];
    let linesBefore = 0;
    for (let i = 0; i < parts.length; i++) {
      const result = await parts[i].result;
      if (!result.ok) {
        for (const later of parts.slice(i + 1)) later.worker.terminate();
        const bad = result.line;
        throw bad === undefined
          ? new ReportError(result.message)
          : new LineError(bad.file, bad.line + linesBefore, bad.reason);
      }
      states.push(result.state);
      linesBefore += result.lines;
    }
    return states;
  } finally {
    for (const part of parts) part.worker.terminate();
  }
}
