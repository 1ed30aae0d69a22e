/**
 * Build the run's dataset: synthetic prompts, or a custom file (`--input-file`) read by one of the registered
 * loaders, chosen by `--custom-dataset-type` or detected from the file's first record (AIPerf §5.3):
 * 1. a record whose `type` names a registered loader uses it (the loader must accept the record);
 * 2. otherwise every loader's `canLoad` is asked; exactly one must accept.
 *
 * Turns of file datasets carry no ISL: it is counted from the endpoint adapter's input text when the requests are
 * prepared (`engine/prepared_conversation.ts`), as is the `--osl` fallback for turns without `output_length`; the
 * OSL options here only shape synthetic data. Synthetic turns always carry their exact `inputTokens`.
 */
import type { LazyTokenizer, Tokenizer } from "../tokenizer/tokenizer.ts";
import type { Dataset } from "./conversation.ts";
import { DatasetError } from "./dataset_error.ts";
import type { DatasetLoader } from "./dataset_loader.ts";
import { readLines } from "./read_lines.ts";
import { describeJson, parseJsonLine } from "./single_turn_loader.ts";
import { DATASET_LOADERS } from "./dataset_loaders.ts";
import { buildSyntheticDataset, type SyntheticDatasetOptions } from "./synthetic_dataset.ts";

export interface LoadDatasetOptions extends Omit<SyntheticDatasetOptions, "tokenizer"> {
  /** Tokenizer for synthetic prompts; required for those, unused otherwise. @default undefined */
  readonly tokenizer?: Tokenizer | LazyTokenizer;
  /** Custom dataset file (`--input-file`); undefined = synthetic. @default undefined */
  readonly inputFile?: string;
  /** Format of `inputFile` (`--custom-dataset-type`); undefined = detect from the first record. @default undefined */
  readonly customDatasetType?: string;
  /** Formats to choose from, in detection order. @default DATASET_LOADERS.entries() */
  readonly loaders?: readonly DatasetLoader[];
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
  if (options.inputFile === undefined) {
    if (tokenizer === undefined) {
      throw new TypeError("loadDataset needs a tokenizer to synthesize prompts; pass options.tokenizer");
    }
    return await buildSyntheticDataset({ ...options, tokenizer });
  }
  const loaders = options.loaders ?? DATASET_LOADERS.entries();
  const file = options.inputFile;
  await assertReadableFile(file);
  const loader = options.customDatasetType === undefined
    ? await detectDatasetLoader(file, loaders)
    : loaderNamed(options.customDatasetType, loaders);
  return await loader.load(file);
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

async function assertReadableFile(file: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(file);
  } catch (error) {
    const reason = error instanceof Deno.errors.NotFound
      ? "no such file"
      : error instanceof Error
      ? error.message
      : String(error);
    throw new DatasetError(file, undefined, `cannot be read (${reason}); check the --input-file path`, {
      cause: error,
    });
  }
  if (info.isDirectory) {
    throw new DatasetError(
      file,
      undefined,
      "is a directory, but the dataset formats read a JSONL file; pass the file itself",
    );
  }
}

/**
 * The loader for `file`, from its first non-empty record.
 *
 * @throws {DatasetError} when the file is empty, its first record is not JSON, or not exactly one loader fits.
 */
export async function detectDatasetLoader(
  file: string,
  loaders: readonly DatasetLoader[] = DATASET_LOADERS.entries(),
): Promise<DatasetLoader> {
  const known = loaders.map((l) => l.name).join(", ");
  let first: { record: unknown; line: number } | undefined;
  try {
    for await (const { number, text } of readLines(file)) {
      const record = parseJsonLine(text, file, number);
      if (record === undefined) continue;
      first = { record, line: number };
      break;
    }
  } catch (error) {
    if (error instanceof DatasetError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new DatasetError(file, undefined, `cannot be read (${reason}); check the --input-file path`, {
      cause: error,
    });
  }
  if (first === undefined) {
    throw new DatasetError(file, undefined, "has no records; write one JSON object per line");
  }
  const { record, line } = first;
  const type = record !== null && typeof record === "object" && !Array.isArray(record)
    ? (record as Record<string, unknown>).type
    : undefined;
  if (typeof type === "string") {
    const named = loaders.find((l) => l.name === type);
    if (named === undefined) {
      throw new DatasetError(
        file,
        line,
        `"type" is ${describeJson(type)}, which is not a dataset type infermeter reads (known: ${known})`,
      );
    }
    if (!named.canLoad(record)) {
      throw new DatasetError(
        file,
        line,
        `"type" says ${type} but the record does not have that format; fix the record or its "type"`,
      );
    }
    return named;
  }
  const matches = loaders.filter((l) => l.canLoad(record));
  if (matches.length === 1) return matches[0];
  if (matches.length === 0) {
    throw new DatasetError(
      file,
      line,
      `the first record matches no dataset format infermeter reads; pass --custom-dataset-type (one of: ${known})`,
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
