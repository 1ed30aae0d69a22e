/** How a profile run ended, and what it leaves for the caller (exit code, sweeps, aggregation). */
import type { RunSummary } from "../metrics/run_summary.ts";
import type { UnwrittenFile } from "./unwritten_file.ts";

/** How a profile run ended; the CLI maps each to an exit code. */
export type ProfileEnd =
  /** Ran to completion and at least one request succeeded. */
  | "completed"
  /** Ran, but no request succeeded. */
  | "all_failed"
  /** `--failed-request-threshold` stopped it. */
  | "threshold_exceeded"
  /** Ran, but a `--threshold` failed (or `--threshold-abort` stopped it at one). */
  | "thresholds_failed"
  /** Stopped by the caller's signal (Ctrl-C); partial results written. */
  | "cancelled"
  /** Stopped before anything was sent. */
  | "interrupted_before_start"
  /** A server could not be reached; nothing was sent. */
  | "unreachable"
  /** The server went away mid-run (a run of connection failures); the records up to then were written. */
  | "server_gone"
  /** A warm-up that must succeed (agentic replay) had a failed request: stopped before measuring. */
  | "warmup_failed"
  /** Some engine shards were lost (killed, crashed): what they streamed is kept, the run is partial. */
  | "shards_lost"
  /** Ran, but some result files could not be written (a full disk); the rest and the console summary were. */
  | "results_unwritten";

export interface ProfileOutcome {
  readonly end: ProfileEnd;
  /** The console tables and footer (also in the console export), when the run produced a summary. */
  readonly consoleText?: string;
  /** Where the artifacts are. */
  readonly artifactDir: string;
  /** The profiling phase's metrics, when the run produced a summary (for aggregation across runs). */
  readonly summary?: RunSummary;
  /** Result files a write failure left missing or incomplete (a full disk). */
  readonly unwritten?: readonly UnwrittenFile[];
}
