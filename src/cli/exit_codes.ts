/**
 * The one exit-code table (documented in README "Exit codes"). Only src/cli turns outcomes into these.
 */
export const EXIT = {
  /** The benchmark ran to completion and at least one request succeeded. */
  OK: 0,
  /**
   * The benchmark ran but no request succeeded, or `--failed-request-threshold` was exceeded, or some shards did
   * not run to their end (a partial run), or agentic replay's warm-up had a failed request (stopped before measuring).
   */
  REQUESTS_FAILED: 1,
  /** Bad command line, YAML, input file or tokenizer: nothing was sent. */
  USAGE: 2,
  /**
   * The server could not be reached before the benchmark started, or went away during it (a run of connection
   * failures: the run stops, its records up to then written).
   */
  UNREACHABLE: 3,
  /** The benchmark ran, but some result files could not be written (a full disk); the console says which. */
  RESULTS_UNWRITTEN: 4,
  /** A threshold failed: `profile --threshold` (the run's results are written), `compare --fail-on`. */
  THRESHOLD_CROSSED: 5,
  /** An unexpected internal error (a bug: please report it with the log file). */
  INTERNAL: 70,
  /** Interrupted with Ctrl-C: partial results were written. */
  INTERRUPTED: 130,
} as const;

export type ExitCode = typeof EXIT[keyof typeof EXIT];
