/**
 * Hugging Face tokenizers from local files (`tokenizer.json`, optional `tokenizer_config.json`).
 *
 * Two paths, with the same ids (tests/tokenizer/hf_bpe_tokenizer_test.ts compares them on a varied corpus;
 * scripts/bench/hf_bpe_parity_bench.ts on Qwen3's and Llama 3's real files):
 * - byte-level BPE files (Qwen, Llama 3, GPT-2…) run on our own tables ({@linkcode HfBpeTokenizer}), built once
 *   and cached on disk (hf_bpe_cache.ts), so a later load takes milliseconds and little memory;
 * - every other shape (WordPiece, Unigram, SentencePiece-style BPE…) runs on `@huggingface/tokenizers`
 *   ({@linkcode HfTokenizer}), imported only then.
 * The tokenizer's `engine` says which path was taken, for the start-up notice.
 *
 * Semantics of both, matching AIPerf's `tokenizer.encode(text, add_special_tokens=False)`: no template tokens
 * (BOS/EOS) are added, and text that spells an added token (e.g. `<|im_end|>`) is matched as that token.
 *
 * Never touches the network: a hub id must be resolved to local files by the caller (`load_tokenizer.ts`).
 */
import { joinPath as join, parentDir as dirname } from "../runtime/file_path.ts";
import type { Tokenizer } from "./tokenizer.ts";
import { type HfBpeSpec, readHfBpeSpec } from "./hf_bpe_spec.ts";
import { scanTokenizerJson } from "./hf_bpe_scan.ts";
import { hfBpeCacheKey, readHfBpeCache, writeHfBpeCache } from "./hf_bpe_cache.ts";
import { cacheDir } from "./rank_cache.ts";
import { buildHfBpeTables } from "./hf_bpe_tables.ts";
import { buildVocabTable, MergeChainer, SymbolResolver } from "./hf_bpe_resolved_merges.ts";
import { HfBpeTokenizer } from "./hf_bpe_tokenizer.ts";

const TOKENIZER_FILE = "tokenizer.json";
const CONFIG_FILE = "tokenizer_config.json";

/** Options of {@linkcode loadHfTokenizer}. */
export interface LoadHfTokenizerOptions {
  /** Table cache directory; null: never read or write one. @default rank_cache.ts's cacheDir() */
  readonly cacheDir?: string | null;
  /** Use `@huggingface/tokenizers` even for files the fast path runs (for comparisons). @default false */
  readonly forceLibrary?: boolean;
  /** Wait for the table cache to be written before resolving (tests); else it is written in the background. */
  readonly awaitCacheWrite?: boolean;
  /**
   * Without a table cache, build only what encoding needs to start (merges chained by the token they join into,
   * pairs resolved as they are met) instead of the full tables: a fraction of the first load's time and memory,
   * the same ids, slower counting until its pair cache is warm, and nothing written to the cache (the
   * tokenizer's `persist()` does a full load that writes it). For a run's main thread. @default false
   */
  readonly quickStart?: boolean;
}

/**
 * Load a tokenizer from a `tokenizer.json` file, or from a directory holding `tokenizer.json` and optionally
 * `tokenizer_config.json` (a config next to a given file is used too).
 *
 * @throws {Error} naming the path when the file is missing, unreadable, not JSON, or not a tokenizer.
 */
export async function loadHfTokenizer(path: string, options: LoadHfTokenizerOptions = {}): Promise<Tokenizer> {
  const info = await Deno.stat(path);
  const dir = info.isDirectory ? path : dirname(path);
  const tokenizerPath = info.isDirectory ? join(path, TOKENIZER_FILE) : path;
  const configPath = join(dir, CONFIG_FILE);
  const cacheKey = options.forceLibrary ? undefined : await cacheKeyOf(tokenizerPath, configPath);
  if (cacheKey !== undefined) {
    const cached = readHfBpeCache(cacheKey, options.cacheDir);
    if (cached !== undefined) return new HfBpeTokenizer(path, cached);
  }
  // Started before the big read so that they overlap it: the config's read, and the library module whose regex
  // translation a table build uses (a rejection is seen where each is awaited).
  const configRead = readJsonObject(configPath, false);
  configRead.catch(() => {});
  const library = options.forceLibrary ? undefined : import("@huggingface/tokenizers");
  library?.catch(() => {});
  const tokenizerBytes = await readFileBytes(tokenizerPath);
  if (tokenizerBytes === undefined) {
    throw new Error(
      `Tokenizer directory ${path} has no ${TOKENIZER_FILE}; download the model's ${TOKENIZER_FILE} into it or pass --tokenizer builtin.`,
    );
  }
  const config = (await configRead) ?? {};
  // The byte scanner reads the two big parts without building ~150 MB of JSON values; anything it does not read
  // (other model shapes, the library path) takes the whole-document parse.
  // The merges are resolved against the vocabulary's table as they are read (the vocabulary comes first in
  // these files), so their strings are never stored: chained by token for a quick start, else to symbols.
  const scan = (quick: boolean) =>
    scanTokenizerJson(tokenizerBytes, {
      onVocab: (vocab, bytesLeft) => {
        const table = buildVocabTable(vocab);
        const capacity = Math.floor(bytesLeft / 3) + 1; // a merge takes at least three bytes (`"",`)
        return quick ? new MergeChainer(table, capacity) : new SymbolResolver(table, capacity);
      },
    });
  let scanned = options.forceLibrary ? undefined : scan(options.quickStart === true);
  if (scanned !== undefined && "complete" in scanned.merges && !scanned.merges.complete) scanned = scan(false);
  const tokenizerJson = scanned?.json ?? parseJsonObject(tokenizerPath, tokenizerBytes, true);
  try {
    const read = options.forceLibrary ? { unsupported: "" } : readHfBpeSpec(tokenizerJson, config, scanned);
    if ("spec" in read) {
      const tables = buildHfBpeTables(read.spec, await compilePreTokenizerRegex(read.spec, library!));
      // Not awaited by default: the write runs on the runtime's I/O threads while this run goes on. Chained
      // merges are not cached; the full tables are, by a full load of the same files (persist()).
      const written = cacheKey !== undefined ? writeHfBpeCache(cacheKey, tables, options.cacheDir) : undefined;
      if (options.awaitCacheWrite) await written;
      const cacheOn = options.cacheDir === undefined ? cacheDir() !== undefined : options.cacheDir !== null;
      const persist = tables.pairs === undefined && cacheKey !== undefined && cacheOn
        ? () => loadHfTokenizer(path, { cacheDir: options.cacheDir, awaitCacheWrite: true }).then(() => {})
        : undefined;
      return new HfBpeTokenizer(path, tables, persist);
    }
    const { HfTokenizer } = await import("./hf_library_tokenizer.ts");
    const why = read.unsupported && `not the byte-level BPE fast path: ${read.unsupported}`;
    // The scanned document lacks the vocabulary and merges the library needs.
    const whole = scanned === undefined ? tokenizerJson : parseJsonObject(tokenizerPath, tokenizerBytes, true);
    return new HfTokenizer(path, whole, config, why);
  } catch (error) {
    throw notRunnable(tokenizerPath, error);
  }
}

function notRunnable(tokenizerPath: string, error: unknown): Error {
  const reason = error instanceof Error ? error.message : String(error);
  return new Error(
    `Tokenizer file ${tokenizerPath} is not a tokenizer this build can run (${reason}); use the model's original ${TOKENIZER_FILE} or --tokenizer builtin.`,
    { cause: error },
  );
}

/**
 * The pre-tokenizer regex in JavaScript syntax, translated by `@huggingface/tokenizers` itself (Oniguruma's
 * `(?i:…)`, `\p{…}` names and quantifier forms differ from JavaScript's), so both paths split text the same way.
 * Only paid when the tables are built; the cache stores the result.
 */
async function compilePreTokenizerRegex(
  spec: HfBpeSpec,
  library: Promise<typeof import("@huggingface/tokenizers")>,
): Promise<RegExp> {
  const { ByteLevelPreTokenizer, SplitPreTokenizer } = await library;
  const regex = spec.preTokenizer.splitRegex;
  if (regex === undefined) return new ByteLevelPreTokenizer({ type: "ByteLevel" } as never).pattern;
  const split = new SplitPreTokenizer(
    { type: "Split", pattern: { Regex: regex }, behavior: "Isolated", invert: false } as never,
  );
  if (split.pattern === null) throw new Error(`the pre-tokenizer regex ${JSON.stringify(regex)} does not compile`);
  return split.pattern;
}

/** Names the two files' current versions; undefined when the tokenizer file cannot be found. */
async function cacheKeyOf(tokenizerPath: string, configPath: string): Promise<string | undefined> {
  const parts: string[] = [];
  for (const p of [tokenizerPath, configPath]) {
    try {
      const real = await Deno.realPath(p);
      const s = await Deno.stat(real);
      parts.push(real, String(s.size), String(s.mtime?.getTime() ?? 0));
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) return undefined;
      if (p === tokenizerPath) return undefined;
      parts.push("none");
    }
  }
  return hfBpeCacheKey(parts);
}

/**
 * The bytes of the file at `path`, or undefined when it does not exist. Read into one buffer of the file's size
 * (for a ~10 MB tokenizer.json, faster than `Deno.readFile`; docs/performance_history.md §14), and read on if the
 * file grew since its stat.
 */
async function readFileBytes(path: string): Promise<Uint8Array | undefined> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw cannotRead(path, error);
  }
  try {
    let bytes = new Uint8Array((await file.stat()).size + 1);
    let at = 0;
    for (;;) {
      if (at === bytes.length) {
        const grown = new Uint8Array(2 * bytes.length);
        grown.set(bytes);
        bytes = grown;
      }
      const n = await file.read(bytes.subarray(at));
      if (n === null) return bytes.subarray(0, at);
      at += n;
    }
  } catch (error) {
    throw cannotRead(path, error);
  } finally {
    file.close();
  }
}

function cannotRead(path: string, error: unknown): Error {
  return new Error(
    `Cannot read ${path} (${error instanceof Error ? error.message : String(error)}); check its permissions.`,
    { cause: error },
  );
}

/** Parsed JSON object at `path`, or undefined when the file does not exist. */
async function readJsonObject(path: string, required: boolean): Promise<Record<string, unknown> | undefined> {
  const bytes = await readFileBytes(path);
  return bytes === undefined ? undefined : parseJsonObject(path, bytes, required);
}

function parseJsonObject(path: string, bytes: Uint8Array, required: boolean): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
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
