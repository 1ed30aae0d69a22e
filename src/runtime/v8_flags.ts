/**
 * The V8 settings infermeter's load-generating processes start with: a young generation of 16 MiB from the start,
 * where V8's own default starts at 1 MiB and grows only when most of it survives, and an old generation that may
 * grow to 128 MiB before its first full collection, where V8 sets a small heap's limit a few tens of MiB above what
 * is live.
 *
 * Why: a streaming request lives as long as its response (1.35 s in calibrate's 256-stream level), longer than the
 * time between scavenges, so what it keeps for that long (its state, its read promises, its record) is copied into
 * the old generation and dies there: ~1.2 MB/s at 256 streams. V8 starts an incremental mark-compact once the old
 * generation, or the whole heap with external memory, comes within a young generation's size of its limit; with
 * limits set from a live heap of ~9 MB that was every ~4 s. On a loaded client core each one held the tokens
 * arriving during it back by 8–24 ms (V8's marking thread takes the core from the event loop): calibrate's
 * 256-stream p99 outliers. The young generation alone cut an 8 s run's scavenges by a third but not the
 * mark-compacts; with the old generation's starting limit a 60 s run at that load had none (~100 s to reach it).
 * Marking costs what is live (~9 MB), not what is dead, so a later one costs no more, and the limit stayed at 128
 * MiB after it. The price is up to ~128 MiB more resident memory per isolate that promotes that much. Measured in
 * `docs/performance_history.md` 5.4 and 5.5.
 *
 * V8 reads these only at start-up, so they travel as `--v8-flags`: baked into the compiled binaries
 * (`scripts/release/compile.ts`), passed to the load-generating children started through `clientCommand`, and
 * written into the `deno task` commands. Servers started from source run without them (`selfCommand`); a compiled
 * binary cannot leave them out for its own servers, as Deno bakes one set of flags per binary. A process started
 * without them works the same, with V8's default heap sizing.
 */

/** The young generation's semi-space size infermeter asks V8 for, MiB. */
export const YOUNG_GENERATION_MIB = 16;

/** How far the old generation may grow before V8's first full collection, MiB. */
export const OLD_GENERATION_START_MIB = 128;

/** The flags, as `--v8-flags` takes them. */
export const V8_FLAGS: readonly string[] = [
  `--min-semi-space-size=${YOUNG_GENERATION_MIB}`,
  `--max-semi-space-size=${YOUNG_GENERATION_MIB}`,
  `--initial-old-space-size=${OLD_GENERATION_START_MIB}`,
];

/** The Deno CLI argument that applies {@linkcode V8_FLAGS} (`deno run` and `deno compile` take it). */
export const V8_FLAGS_ARG = `--v8-flags=${V8_FLAGS.join(",")}`;
