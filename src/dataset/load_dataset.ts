/**
 * Build the run's dataset: synthetic prompts, or a custom file or directory (`--input-file`) read by one of the
 * registered loaders, chosen by `--custom-dataset-type` or detected (AIPerf §5.3):
 * 1. a directory: every loader that reads directories is asked (`canLoadDirectory`); exactly one must accept;
 * 2. a file whose first non-empty line is not JSON (a CSV header, a pretty-printed `.json`): `canLoadText`;
 * 3. a first record whose `type` names a registered loader uses it (the loader must accept the record); a `type`
 *    that names no format (Bailian's request type "text") is ignored;
 * 4. otherwise every loader's `canLoad` is asked; exactly one must accept.
 *
 * Turns of file datasets carry no ISL: it is counted from the endpoint adapter's input text when the requests are
 * prepared (`engine/prepared_conversation.ts`), as is the `--osl` fallback for turns without `output_length`; the
 * OSL options here only shape synthetic data. Synthetic turns always carry their exact `inputTokens`.
 */
import { asLazyTokenizer, type LazyTokenizer, type Tokenizer } from "../tokenizer/tokenizer.ts";
import type { Dataset } from "./conversation.ts";
import { DatasetError } from "./dataset_error.ts";
import type { DatasetLoader } from "./dataset_loader.ts";
import { readLines } from "./read_lines.ts";
import { describeJson, parseJsonLine, unreadable } from "./json_record.ts";
import type { LoaderContext } from "./dataset_loader.ts";
import { SeededRandom } from "../base/seeded_random.ts";
import { datasetLoaders } from "./dataset_loaders.ts";
import { buildSyntheticDataset, type SyntheticDatasetOptions } from "./synthetic_dataset.ts";
import type { AccuracyOptions } from "./accuracy/load_accuracy_dataset.ts";

export interface LoadDatasetOptions extends Omit<SyntheticDatasetOptions, "tokenizer"> {
  /** Tokenizer for synthetic prompts and trace prompts synthesized to a length. @default undefined */
  readonly tokenizer?: Tokenizer | LazyTokenizer;
  /** Custom dataset file or directory (`--input-file`); undefined = synthetic. @default undefined */
  readonly inputFile?: string;
  /** Format of `inputFile` (`--custom-dataset-type`); undefined = detect. @default undefined */
  readonly customDatasetType?: string;
  /** Formats to choose from. @default every registered format's reader */
  readonly loaders?: readonly DatasetLoader[];
  /** The run's option values by key, for the options a format owns (`DatasetLoader.options`). @default {} */
  readonly loaderOptions?: Readonly<Record<string, unknown>>;
  /** Conversations built from a random pool (`--conversation-num`). */
  readonly conversationNum?: number;
  /** Texts per request from a random pool (`--prompt-batch-size`). */
  readonly batchSize?: number;
  /** Multiplier of every think time between turns (`--conversation-turn-delay-ratio`). @default 1 */
  readonly turnDelayRatio?: number;
  /** Drop every timestamp and delay (`--ignore-trace-delays`). @default false */
  readonly ignoreTraceDelays?: boolean;
  /** Longest think time between turns, in ms (`--inter-turn-delay-cap-seconds`); longer ones are cut to it. */
  readonly turnDelayCapMs?: number;
  /**
   * Verbatim system prompt of every conversation (`--system-prompt`); a dataset's own system message follows it
   * after a blank line (AIPerf joins them, since many servers mishandle two system messages).
   */
  readonly systemPrompt?: string;
  /** An accuracy benchmark's problems (`--accuracy-benchmark`): every other dataset option is then unused. */
  readonly accuracy?: AccuracyOptions;
  /** A public dataset read from its local file (`--public-dataset`, `public_datasets.ts`). */
  readonly publicDataset?: string;
  /** Subset (config name) of a Hugging Face-backed public dataset instead of its own (`--hf-subset`). */
  readonly hfSubset?: string;
  /** At most this many conversations from a public dataset AIPerf streams (`--request-count`, else `--conversation-num`). */
  readonly publicDatasetLimit?: number;
  /** Stops a long load (Ctrl-C): `InterruptedError` is thrown. */
  readonly signal?: AbortSignal;
  /** `--strict-dataset`: a field a line's format does not know is an error. */
  readonly strict?: boolean;
  /** Where loaders' notices go (an unknown field, said once with file:line). */
  readonly warn?: (message: string) => void;
}

/**
 * Load the dataset described by `options`.
 *
 * @throws {DatasetError} for file problems (unreadable, undetectable format, malformed line).
 * @throws {TypeError} when a tokenizer is needed but not given.
 * @throws {RangeError} for invalid synthetic options or an unknown `customDatasetType`.
 */
export async function loadDataset(options: LoadDatasetOptions): Promise<Dataset> {
  const { tokenizer } = options;
  if (options.accuracy !== undefined) {
    // Loaded on use, as the public datasets: the benchmarks' sources read Hugging Face layouts and Parquet.
    const { loadAccuracyDataset } = await import("./accuracy/load_accuracy_dataset.ts");
    return await loadAccuracyDataset(options.accuracy, { info: options.warn, warn: options.warn });
  }
  if (options.publicDataset !== undefined) {
    if (options.inputFile !== undefined) {
      throw new DatasetError("--public-dataset", undefined, "cannot be combined with --input-file; give one of them");
    }
    if (tokenizer === undefined) throw new TypeError("loadDataset needs a tokenizer to read a public dataset");
    const loaded = await asLazyTokenizer(tokenizer).load();
    // Loaded on use: the public datasets' readers (Parquet, Hugging Face layouts) are most of the dataset layer.
    const { loadPublicDataset } = await import("./public_datasets.ts");
    const dataset = await loadPublicDataset(options.publicDataset, {
      tokenizer: loaded,
      outputTokensGiven: options.oslMean !== undefined,
      limit: options.publicDatasetLimit,
      ...(options.hfSubset === undefined ? {} : { subset: options.hfSubset }),
      rng: options.rng ?? new SeededRandom(options.seed ?? 0),
      ...(options.loaderOptions === undefined ? {} : { options: options.loaderOptions }),
      ...(options.numEntries === undefined ? {} : { entries: options.numEntries }),
      ...(options.warn === undefined ? {} : { warn: options.warn }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    return retime(dataset, options);
  }
  if (options.inputFile === undefined) {
    if (tokenizer === undefined) {
      throw new TypeError("loadDataset needs a tokenizer to synthesize prompts; pass options.tokenizer");
    }
    return retime(await buildSyntheticDataset({ ...options, tokenizer, signal: options.signal }), options);
  }
  const loaders = options.loaders ?? await datasetLoaders();
  const file = options.inputFile;
  const isDirectory = await statInput(file);
  let loader: DatasetLoader;
  if (options.customDatasetType === undefined) {
    loader = isDirectory ? await detectDirectoryLoader(file, loaders) : await detectDatasetLoader(file, loaders);
  } else {
    loader = loaderNamed(options.customDatasetType, loaders);
    if (isDirectory && loader.canLoadDirectory === undefined) {
      throw new DatasetError(
        file,
        undefined,
        `is a directory, but ${loader.name} reads one file; pass the file itself (directories: ` +
          `${loaders.filter((l) => l.canLoadDirectory).map((l) => l.name).join(", ")})`,
      );
    }
  }
  const ctx: LoaderContext = {
    rng: options.rng ?? new SeededRandom(options.seed ?? 0),
    tokenizer,
    corpus: options.corpus,
    options: options.loaderOptions,
    conversationNum: options.conversationNum,
    batchSize: options.batchSize,
    signal: options.signal,
    strict: options.strict,
    warn: options.warn,
  };
  const dataset = await loader.load(file, ctx);
  const line = loader.describe?.(dataset) ?? `${dataset.conversations.length} sessions`;
  return retime({ ...dataset, description: `${loader.name}: ${line}` }, options);
}

/**
 * What every dataset gets after it is read: think times scaled by `turnDelayRatio` (AIPerf applies it to every
 * delay) and cut to `turnDelayCapMs`, or every timestamp and delay dropped with `ignoreTraceDelays`; the verbatim
 * system prompt before each conversation's own system message. How many think times were cut is said in the
 * dataset's description.
 */
function retime(dataset: Dataset, options: LoadDatasetOptions): Dataset {
  const ratio = options.turnDelayRatio ?? 1;
  const drop = options.ignoreTraceDelays ?? false;
  // A loader that capped its own idle gaps takes precedence over the per-delay cap.
  const cap = dataset.gapsCapped === true ? undefined : options.turnDelayCapMs;
  const system = options.systemPrompt;
  if (ratio === 1 && !drop && cap === undefined && system === undefined) return dataset;
  let capped = 0;
  const conversations = dataset.conversations.map((c) => ({
    ...c,
    ...(system === undefined ? {} : { systemMessage: c.systemMessage ? `${system}\n\n${c.systemMessage}` : system }),
    // Think times drawn around a median are cut to the cap as well.
    ...(c.thinkTime === undefined || cap === undefined ? {} : {
      thinkTime: {
        ...c.thinkTime,
        maxMs: Math.min(c.thinkTime.maxMs ?? cap, cap),
        ...(c.thinkTime.minMs === undefined ? {} : { minMs: Math.min(c.thinkTime.minMs, cap) }),
      },
    }),
    turns: c.turns.map((t) => {
      if (drop) {
        const { timestampMs: _t, delayMs: _d, ...rest } = t;
        return rest;
      }
      if (t.delayMs === undefined) return t;
      let delayMs = t.delayMs * ratio;
      if (cap !== undefined && delayMs > cap) {
        delayMs = cap;
        capped++;
      }
      return delayMs === t.delayMs ? t : { ...t, delayMs };
    }),
  }));
  const cut = capped === 0 ? undefined : `${capped} think time${capped === 1 ? "" : "s"} cut to ${cap! / 1000} s`;
  const description = cut === undefined
    ? dataset.description
    : dataset.description === undefined
    ? cut
    : `${dataset.description}; ${cut}`;
  return { ...dataset, conversations, ...(description === undefined ? {} : { description }) };
}

/**
 * @throws {RangeError} naming the known types when `name` is not registered.
 */
function loaderNamed(name: string, loaders: readonly DatasetLoader[]): DatasetLoader {
  const loader = loaders.find((l) => l.name === name);
  if (loader === undefined) {
    throw new RangeError(
      `Unknown custom dataset type ${JSON.stringify(name)}; use one of: ${loaders.map((l) => l.name).join(", ")}`,
    );
  }
  return loader;
}

/** Whether the input is a directory. @throws {DatasetError} when it cannot be read. */
/** Whether `file` is a directory. @throws {DatasetError} when it cannot be read or is neither file nor directory. */
async function statInput(file: string): Promise<boolean> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(file);
  } catch (error) {
    throw unreadable(file, error);
  }
  if (!info.isFile && !info.isDirectory) {
    // A device or a FIFO (`/dev/zero`, a named pipe) may never end: refused before a byte is read.
    throw new DatasetError(
      file,
      undefined,
      "is not a regular file (a device, a FIFO or a socket, which may never end); give a dataset file or directory",
    );
  }
  return info.isDirectory;
}

/** The loader for a directory. @throws {DatasetError} unless exactly one format reads it. */
export async function detectDirectoryLoader(
  dir: string,
  loaders?: readonly DatasetLoader[],
): Promise<DatasetLoader> {
  loaders ??= await datasetLoaders();
  const readers = loaders.filter((l) => l.canLoadDirectory !== undefined);
  const matches: DatasetLoader[] = [];
  for (const loader of readers) if (await loader.canLoadDirectory!(dir)) matches.push(loader);
  if (matches.length === 1) return matches[0];
  const names = readers.map((l) => l.name).join(", ");
  if (matches.length === 0) {
    let jsonl = 0;
    for await (const entry of Deno.readDir(dir)) if (entry.isFile && /\.jsonl?$/.test(entry.name)) jsonl++;
    throw new DatasetError(
      dir,
      undefined,
      jsonl === 0
        ? `is a directory with no .jsonl or .json files; directories hold them (${names})`
        : `is a directory whose files match no format that reads directories (${names}); pass --custom-dataset-type`,
    );
  }
  throw new DatasetError(
    dir,
    undefined,
    `is a directory that fits several formats (${matches.map((l) => l.name).join(", ")}); pass --custom-dataset-type`,
  );
}

/**
 * The loader for `file`, from its first non-empty line.
 *
 * @throws {DatasetError} when the file is empty or not exactly one loader fits.
 */
export async function detectDatasetLoader(
  file: string,
  loaders?: readonly DatasetLoader[],
): Promise<DatasetLoader> {
  loaders ??= await datasetLoaders();
  const known = loaders.map((l) => l.name).join(", ");
  let first: { text: string; line: number } | undefined;
  try {
    for await (const { number, text } of readLines(file)) {
      if (text.trim() === "") continue;
      first = { text, line: number };
      break;
    }
  } catch (error) {
    throw unreadable(file, error);
  }
  if (first === undefined) {
    throw new DatasetError(file, undefined, "has no records; write one JSON object per line");
  }
  const { line } = first;
  let record: unknown;
  try {
    record = JSON.parse(first.text);
  } catch {
    const textual = loaders.filter((l) => l.canLoadText?.(first.text, file) ?? false);
    if (textual.length === 1) return textual[0];
    parseJsonLine(first.text, file, line); // throws: invalid JSON, with the parser's reason and the line
    throw new Error("unreachable: the line did not parse before");
  }
  const type = record !== null && typeof record === "object" && !Array.isArray(record)
    ? (record as Record<string, unknown>).type
    : undefined;
  const named = typeof type === "string" ? loaders.find((l) => l.name === type) : undefined;
  if (named !== undefined) {
    if (!named.canLoad(record, file)) {
      throw new DatasetError(
        file,
        line,
        `"type" says ${type} but the record does not have that format; fix the record or its "type"`,
      );
    }
    return named;
  }
  const matches = loaders.filter((l) => l.canLoad(record, file));
  if (matches.length === 1) return matches[0];
  if (matches.length === 0) {
    const typeNote = typeof type === "string"
      ? ` ("type" is ${describeJson(type)}, which names no dataset format)`
      : "";
    throw new DatasetError(
      file,
      line,
      `the first record matches no dataset format infermeter reads${typeNote}; pass --custom-dataset-type ` +
        `(one of: ${known})`,
    );
  }
  throw new DatasetError(
    file,
    line,
    `the first record fits several dataset formats (${
      matches.map((l) => l.name).join(", ")
    }); pass --custom-dataset-type to choose one`,
  );
}
