/**
 * Resolve a `--tokenizer` value to a {@linkcode Tokenizer}.
 *
 * - `builtin` (or empty) → o200k_base, offline ({@linkcode loadBuiltinTokenizer});
 * - an existing file or directory → a Hugging Face `tokenizer.json` ({@linkcode loadHfTokenizer});
 * - a hub id such as `Qwen/Qwen3-0.6B` → its `tokenizer.json` in the local Hugging Face cache (`hf_hub_cache.ts`);
 * - anything else → an error saying where to put the files: infermeter never downloads.
 *
 * Both implementations are imported dynamically so a run pays only for the one it uses.
 */
import { asLazyTokenizer, type LazyTokenizer, lazyTokenizer, type Tokenizer } from "./tokenizer.ts";
import { findCachedTokenizer, type HubEnv, looksLikeHubId, tokenizerPlacementHint } from "./hf_hub_cache.ts";

/** The default `--tokenizer` value. */
export const DEFAULT_TOKENIZER_SPEC = "builtin";

/** Options of {@linkcode loadTokenizer}. */
export interface LoadTokenizerOptions {
  /** A `tokenizer.json` without a table cache builds only what encoding needs to start (hf_tokenizer.ts). */
  readonly quickStart?: boolean;
}

export async function loadTokenizer(
  spec: string = DEFAULT_TOKENIZER_SPEC,
  env?: HubEnv,
  options: LoadTokenizerOptions = {},
): Promise<Tokenizer> {
  if (spec === "" || spec === DEFAULT_TOKENIZER_SPEC) {
    const { loadBuiltinTokenizer } = await import("./builtin_tokenizer.ts");
    return await loadBuiltinTokenizer();
  }
  const path = locateTokenizer(spec, env ?? Deno.env.toObject());
  const { loadHfTokenizer } = await import("./hf_tokenizer.ts");
  return await loadHfTokenizer(path, { quickStart: options.quickStart });
}

/**
 * The local path a non-builtin `--tokenizer` value names: the value itself when it exists on disk, else the
 * snapshot of that hub id in the Hugging Face cache.
 * @throws {Error} saying where to put the files when neither exists.
 */
export function locateTokenizer(spec: string, env: HubEnv): string {
  if (existsSync(spec)) return spec;
  const cached = looksLikeHubId(spec) ? findCachedTokenizer(spec, env) : undefined;
  if (cached !== undefined) return cached;
  throw new Error(
    `Tokenizer "${spec}" is neither a local file or directory nor in the Hugging Face cache, and infermeter never ` +
      `downloads: ${tokenizerPlacementHint(spec, env)}; or use --tokenizer builtin.`,
  );
}

/**
 * The tokenizer a `--tokenizer` value names, as a spec every thread loads the same way: `builtin` and existing
 * paths as given, a hub id as its snapshot in the local cache — of `revision` when one is given
 * (`--tokenizer-revision`), so the counting Worker reads the very files this thread read.
 * @throws {Error} saying where to put the files when the cache has no such snapshot.
 */
export function resolveTokenizerSpec(spec: string, env: HubEnv, revision?: string): string {
  if (spec === "" || spec === DEFAULT_TOKENIZER_SPEC || existsSync(spec)) return spec;
  if (revision === undefined) return spec;
  const cached = looksLikeHubId(spec) ? findCachedTokenizer(spec, env, revision) : undefined;
  if (cached !== undefined) return cached;
  throw new Error(
    `Tokenizer "${spec}" at revision "${revision}" is not in the local Hugging Face cache, and infermeter never ` +
      `downloads: ${tokenizerPlacementHint(spec, env)} (snapshots/<commit>/, with refs/${revision} naming it).`,
  );
}

/** What to count tokens with when `--tokenizer` was not given. */
export interface DefaultTokenizer {
  /** A spec for {@linkcode loadTokenizer}: the model's cached snapshot, or `builtin`. */
  readonly spec: string;
  /** Said once at start-up, one line of at most 120 characters: which tokenizer counts tokens. */
  readonly notice: string;
  /** For the log: how to count with the model's own tokenizer when it was not found. */
  readonly details?: string;
}

/**
 * Without `--tokenizer`, AIPerf counts with the model's own tokenizer: use it when the local Hugging Face cache
 * has it (`--model` as a hub id), else the builtin one — saying which, so counts never differ silently.
 */
export function defaultTokenizerFor(model: string | undefined, env: HubEnv, revision?: string): DefaultTokenizer {
  const cached = model !== undefined && looksLikeHubId(model) ? findCachedTokenizer(model, env, revision) : undefined;
  if (cached !== undefined) return { spec: cached, notice: `Tokenizer: ${model}'s own, from ${cached}` };
  const about = model === undefined ? "the model" : revision === undefined ? model : `${model} (revision ${revision})`;
  const short = `Tokenizer: builtin (o200k_base), ${about}'s own not in the HF cache; token counts may differ ` +
    "(--help tokenizer)";
  return {
    spec: DEFAULT_TOKENIZER_SPEC,
    notice: short.length <= 120
      ? short
      : "Tokenizer: builtin (o200k_base), the model's own not in the HF cache; counts may differ (--help tokenizer)",
    details: `${about}'s own tokenizer was not found in the local Hugging Face cache, so ISL, OSL and token ` +
      "throughputs may differ from the server's counts. To count with it, " +
      (model === undefined ? "pass --tokenizer <dir>." : `${tokenizerPlacementHint(model, env)}.`),
  };
}
/**
 * `--tokenizer` for a run: the builtin one is loaded on first use (synthetic prompts from the bundled corpus need
 * none of its tables); a file tokenizer is loaded now, so a bad path fails before anything is sent. A first load
 * of a `tokenizer.json` here is a quick start (it stands between the command and the first request); the run
 * caches the full tables once its results are written (`Tokenizer.persist`), for every later run.
 */
export async function resolveTokenizer(spec: string = DEFAULT_TOKENIZER_SPEC): Promise<LazyTokenizer> {
  if (spec === "" || spec === DEFAULT_TOKENIZER_SPEC) {
    // The name is BUILTIN_TOKENIZER_NAME, spelled out so this module does not import the builtin one eagerly.
    return lazyTokenizer(DEFAULT_TOKENIZER_SPEC, () => loadTokenizer(spec));
  }
  return asLazyTokenizer(await loadTokenizer(spec, undefined, { quickStart: true }));
}

function existsSync(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
