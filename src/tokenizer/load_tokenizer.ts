/**
 * Resolve a `--tokenizer` value to a {@linkcode Tokenizer}.
 *
 * - `builtin` (or empty) → o200k_base, offline ({@linkcode loadBuiltinTokenizer});
 * - an existing file or directory → a Hugging Face `tokenizer.json` ({@linkcode loadHfTokenizer});
 * - anything else (e.g. a hub id such as `Qwen/Qwen3-0.6B`) → an error: infermeter never downloads.
 *
 * Both implementations are imported dynamically so a run pays only for the one it uses.
 */
import { asLazyTokenizer, type LazyTokenizer, lazyTokenizer, type Tokenizer } from "./tokenizer.ts";

/** The default `--tokenizer` value. */
export const DEFAULT_TOKENIZER_SPEC = "builtin";

export async function loadTokenizer(spec: string = DEFAULT_TOKENIZER_SPEC): Promise<Tokenizer> {
  if (spec === "" || spec === DEFAULT_TOKENIZER_SPEC) {
    const { loadBuiltinTokenizer } = await import("./builtin_tokenizer.ts");
    return await loadBuiltinTokenizer();
  }
  if (await exists(spec)) {
    const { loadHfTokenizer } = await import("./hf_tokenizer.ts");
    return await loadHfTokenizer(spec);
  }
  throw new Error(
    `Tokenizer "${spec}" is not a local file or directory and infermeter does not download from the Hugging Face Hub, so download the model's tokenizer.json (and tokenizer_config.json) and pass their directory with --tokenizer <dir>, or use --tokenizer builtin.`,
  );
}

/**
 * `--tokenizer` for a run: the builtin one is loaded on first use (synthetic prompts from the bundled corpus need
 * none of its tables); a file tokenizer is loaded now, so a bad path fails before anything is sent.
 */
export async function resolveTokenizer(spec: string = DEFAULT_TOKENIZER_SPEC): Promise<LazyTokenizer> {
  if (spec === "" || spec === DEFAULT_TOKENIZER_SPEC) {
    // The name is BUILTIN_TOKENIZER_NAME, spelled out so this module does not import the builtin one eagerly.
    return lazyTokenizer(DEFAULT_TOKENIZER_SPEC, () => loadTokenizer(spec));
  }
  return asLazyTokenizer(await loadTokenizer(spec));
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
