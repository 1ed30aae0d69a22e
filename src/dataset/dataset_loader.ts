/**
 * The shape every custom dataset format implements, so formats register in one list (`dataset_loaders.ts`) and
 * auto-detection asks each of them. A format owns what is about it: when it is selected (`--custom-dataset-type`
 * names it, or `canLoad` recognises the file), the `profile` options only it reads (parsed, typed and listed in
 * `--help` with the others; set for another format, an input error), its checks, and the one line said at start.
 */
import type { OptionReader, OptionSpec } from "../base/option_spec.ts";
import type { RegistryEntry } from "../base/registry.ts";
import type { SeededRandom } from "../base/seeded_random.ts";
import type { LazyTokenizer, Tokenizer } from "../tokenizer/tokenizer.ts";
import type { Dataset } from "./conversation.ts";

/** What a loader may need besides the file: the run's seeded randomness and, for formats that synthesize text, a
 * tokenizer and corpus. */
export interface LoaderContext {
  /** Root generator (`--random-seed`); loaders derive named streams from it and never advance it. */
  readonly rng: SeededRandom;
  /** Defines "token" for text synthesized to a length (trace formats); loaded only when used. */
  readonly tokenizer?: Tokenizer | LazyTokenizer;
  /** Text synthesized prompts are cut from. @default the bundled corpus */
  readonly corpus?: string;
  /** The run's option values by key: a format reads its own options (`options`) here. @default {} */
  readonly options?: Readonly<Record<string, unknown>>;
  /** Conversations to build from a pool (`--conversation-num`, random_pool). */
  readonly conversationNum?: number;
  /** Texts per request drawn from a pool (`--prompt-batch-size`, random_pool). @default 1 */
  readonly batchSize?: number;
  /** Stops a long load (Ctrl-C): checked per chunk of the file and per record built; `InterruptedError` thrown. */
  readonly signal?: AbortSignal;
  /** `--strict-dataset`: a field a line's format does not know is an error (`unknown_fields.ts`). */
  readonly strict?: boolean;
  /** Where a loader's notices go (an unknown field, said once with file:line); none when absent. */
  readonly warn?: (message: string) => void;
}

/**
 * A format as declared (`dataset_formats.ts`), without its reader: what option parsing, `--help`, the configuration's
 * checks and listings need.
 */
export interface DatasetFormat extends RegistryEntry {
  /** `--custom-dataset-type` value, and the `type` field a record may carry to name its format. */
  readonly name: string;
  /** The `profile` options only this format reads (declared like any other option). */
  readonly options?: readonly OptionSpec[];
  /** Keys of other formats' options this one reads too (formats that share a reader). */
  readonly reads?: readonly string[];
  /** Checks of its options beyond their declared relations, when `--custom-dataset-type` names this format. */
  validate?(values: OptionReader): { readonly problems?: readonly string[]; readonly warnings?: readonly string[] };
}

/** A format's reader: its declaration, auto-detection and loading. */
export interface DatasetLoader extends DatasetFormat {
  /** One line said at start about what was read ("42 sessions, 120 requests over 35.2 s"). */
  describe?(dataset: Dataset): string;
  /**
   * Whether the first non-empty record of a file (already JSON-parsed) looks like this format. Structural only:
   * a record this accepts may still fail `load()` with a precise error. `path` is the file's, for a format known by
   * its file name too (SPEED-Bench splits).
   */
  canLoad(firstRecord: unknown, path?: string): boolean;
  /**
   * Whether a directory given as `--input-file` holds this format; absent when the format reads files only.
   */
  canLoadDirectory?(dir: string): Promise<boolean>;
  /**
   * Whether a file that is not JSON lines (its first line given) is this format, e.g. a CSV header; absent when
   * the format is JSON.
   */
  canLoadText?(firstLine: string, path: string): boolean;
  /**
   * Read the file (or directory) into a dataset, streaming JSONL line by line.
   *
   * @throws {DatasetError} for unreadable files and malformed records, naming file and line.
   */
  load(path: string, ctx?: LoaderContext): Promise<Dataset>;
}
