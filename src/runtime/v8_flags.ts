/**
 * The V8 settings infermeter's load-generating processes start with: a young generation of 16 MiB from the start,
 * where V8's own default starts at 1 MiB and grows only when most of it survives.
 *
 * Why: a streaming request lives as long as its response (1–2 s in calibrate's 256-stream level), longer than the
 * time between scavenges of a small young generation, so its objects are copied into the old generation and die
 * there. That fills the old generation and costs a mark-compact every ~5 s; on a loaded client core each one held
 * the tokens arriving during it back by 12–24 ms (V8's marking thread takes the core from the event loop), and
 * those were calibrate's 256-stream TTFT p99 outliers. With 16 MiB the scavenges of an 8 s run fall from ~38 to
 * ~26, more requests die young, and the mark-compacts come every ~11 s instead. Measured in `docs/performance.md`
 * §2 (eighth session).
 *
 * V8 reads these only at start-up, so they travel as `--v8-flags`: baked into the compiled binaries
 * (`scripts/release/compile.ts`), passed to the load-generating children started through `clientCommand`, and
 * written into the `deno task` commands. Servers started from source run without them (`selfCommand`); a compiled
 * binary cannot leave them out for its own servers, as Deno bakes one set of flags per binary. A process started
 * without them works the same, with V8's default young generation.
 */

/** The young generation's semi-space size infermeter asks V8 for, MiB. */
export const YOUNG_GENERATION_MIB = 16;

/** The flags, as `--v8-flags` takes them. */
export const V8_FLAGS: readonly string[] = [
  `--min-semi-space-size=${YOUNG_GENERATION_MIB}`,
  `--max-semi-space-size=${YOUNG_GENERATION_MIB}`,
];

/** The Deno CLI argument that applies {@linkcode V8_FLAGS} (`deno run` and `deno compile` take it). */
export const V8_FLAGS_ARG = `--v8-flags=${V8_FLAGS.join(",")}`;
