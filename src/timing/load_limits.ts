/**
 * Upper bounds of the load a run may be asked for, checked when options are parsed (exit 2 before anything
 * starts): far above what any machine drives today, far below what would exhaust one by planning alone (a
 * `--concurrency 1e12` once planned fifty million shard processes). Why each value is what it is:
 * `docs/reliability.md`.
 */

/** Sessions in flight: a million sockets is beyond every open-file limit we have met; above it is a typo. */
export const MAX_CONCURRENCY = 1_000_000;

/** Requests of one run (and of its warmup): a billion records is weeks of sending at today's fastest rates. */
export const MAX_REQUESTS = 1_000_000_000;

/** Requests per second: a million is ~10× what one client machine sends over loopback. */
export const MAX_REQUEST_RATE = 1_000_000;

/** Any duration option (seconds): a week, the longest schedule a run may span (`schedule_limits.ts`). */
export const MAX_DURATION_SECONDS = 7 * 24 * 3600;
