/**
 * Hugging Face tokenizers from local files (`tokenizer.json`, optional `tokenizer_config.json`), run by
 * `@huggingface/tokenizers` (pure JS: BPE, WordPiece, Unigram; normalizers, pre-tokenizers, decoders).
 *
 * Semantics, matching AIPerf's `tokenizer.encode(text, add_special_tokens=False)`:
 * - no template tokens are added (no BOS/EOS from the post-processor);
 * - text that spells an added token (e.g. `<|im_end|>`) is matched as that token, as `transformers` does by
 *   default. This differs from the builtin tokenizer, which always encodes such text as plain text; it is kept
 *   so that counts agree with AIPerf and with the server's own tokenizer.
 * - `decode` skips nothing and does not clean up spaces, so it renders exactly the tokens given.
 *
 * Never touches the network: a hub id must be resolved to local files by the caller (`load_tokenizer.ts`).
 */
import { joinPath as join, parentDir as dirname } from "../runtime/file_path.ts";
import { Tokenizer as HfTokenizerCore } from "@huggingface/tokenizers";
import type { Tokenizer } from "./tokenizer.ts";

const TOKENIZER_FILE = "tokenizer.json";
const CONFIG_FILE = "tokenizer_config.json";

export class HfTokenizer implements Tokenizer {
  readonly name: string;
  readonly #core: HfTokenizerCore;

  /**
   * @param name Reported as {@linkcode Tokenizer.name} (the path it was loaded from).
   * @param tokenizerJson The parsed `tokenizer.json`.
   * @param tokenizerConfig The parsed `tokenizer_config.json`, or `{}`.
   */
  constructor(name: string, tokenizerJson: Record<string, unknown>, tokenizerConfig: Record<string, unknown> = {}) {
    this.name = name;
    this.#core = new HfTokenizerCore(tokenizerJson, tokenizerConfig);
  }

  encode(text: string): number[] {
    if (text.length === 0) return [];
    return this.#core.encode(text, { add_special_tokens: false }).ids;
  }

  decode(ids: readonly number[]): string {
    if (ids.length === 0) return "";
    return this.#core.decode([...ids], { skip_special_tokens: false, clean_up_tokenization_spaces: false });
  }

  count(text: string): number {
    return this.encode(text).length;
  }
}

/**
 * Load a tokenizer from a `tokenizer.json` file, or from a directory holding `tokenizer.json` and optionally
 * `tokenizer_config.json` (a config next to a given file is used too).
 *
 * @throws {Error} naming the path when the file is missing, unreadable, not JSON, or not a tokenizer.
 */
export async function loadHfTokenizer(path: string): Promise<Tokenizer> {
  const info = await Deno.stat(path);
  const dir = info.isDirectory ? path : dirname(path);
  const tokenizerPath = info.isDirectory ? join(path, TOKENIZER_FILE) : path;
  const tokenizerJson = await readJsonObject(tokenizerPath, true);
  if (tokenizerJson === undefined) {
    throw new Error(
      `Tokenizer directory ${path} has no ${TOKENIZER_FILE}; download the model's ${TOKENIZER_FILE} into it or pass --tokenizer builtin.`,
    );
  }
  const config = (await readJsonObject(join(dir, CONFIG_FILE), false)) ?? {};
  try {
    return new HfTokenizer(path, tokenizerJson, config);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `Tokenizer file ${tokenizerPath} is not a tokenizer this build can run (${reason}); use the model's original ${TOKENIZER_FILE} or --tokenizer builtin.`,
      { cause: error },
    );
  }
}

/** Parsed JSON object at `path`, or undefined when the file does not exist. */
async function readJsonObject(path: string, required: boolean): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw new Error(
      `Cannot read ${path} (${error instanceof Error ? error.message : String(error)}); check its permissions.`,
      {
        cause: error,
      },
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `${path} is not valid JSON (${error instanceof Error ? error.message : String(error)}); re-download it.`,
      { cause: error },
    );
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new Error(`${path} must hold a JSON object${required ? " describing a tokenizer" : ""}; re-download it.`);
  }
  return value as Record<string, unknown>;
}
