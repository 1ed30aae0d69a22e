/**
 * A run's per-request values for the noise of a comparison, read by streaming its per-request JSONL (found by its
 * manifest, else by AIPerf's name; ours and AIPerf 0.13's) in bounded memory:
 *
 * - the asked-for scalar metrics of its profiling records, one column per metric: every record up to
 *   {@link SAMPLE_RECORDS}, then a uniform sample of that many whole records (`bottom_k.ts`, keyed by a hash of each
 *   record's times, so a file always gives the same sample), with the file's record count as `population` so the
 *   bootstrap can scale its spread to the whole run (`compare_noise.ts`). Failed requests are records without
 *   values, as the exported statistics leave them out; list metrics (inter-chunk gaps) are not columns: their
 *   exported statistics are over every gap, not one value per request;
 * - the completions that throughputs count, as sums per time bucket (`completion_windows.ts`).
 *
 * A large file is read in parts by Workers at once (`parallel_records.ts`), and the parts merge into what one pass
 * gives.
 */
import type { RecordColumns } from "../metrics/bootstrap_stats.ts";
import { BottomK, type BottomKState, recordHash } from "./bottom_k.ts";
import { CompletionWindows, type CompletionWindowsState } from "./completion_windows.ts";
import { type ByteRange, type RecordQuery, scanRecords, type StreamedRecord } from "./record_stream.ts";
import { recordsPathOf } from "./run_files.ts";
import { readInParts } from "./parallel_records.ts";

/** Records kept for the bootstrap: all of a run's up to this many, then a uniform sample of this many (~10 MB). */
export const SAMPLE_RECORDS = 100_000;

export interface RecordSamples extends RecordColumns {
  /** The file the records came from. */
  readonly path: string;
  /** Profiling records in the file; `size` of them are in the columns (all of them, or a uniform sample). */
  readonly population: number;
  /** The successful requests' completion times and tokens, for throughputs. */
  readonly completions: CompletionWindows;
}

/** What a sampler reads: the columns' tags, and how many records it keeps. */
export interface SamplerOptions {
  readonly tags: readonly string[];
  readonly capacity?: number;
}

/** A sampler as plain data (what a Worker posts back). */
export interface RecordSamplerState {
  readonly keys: BottomKState;
  /** `keys.hashes.length` rows of `tags.length` values, slot by slot. */
  readonly values: Float64Array;
  readonly completions: CompletionWindowsState;
}

const ISL = "input_sequence_length";
const OSL = "output_sequence_length";

/** The running sample of one file's records. */
export class RecordSampler {
  readonly tags: readonly string[];
  readonly capacity: number;
  readonly completions = new CompletionWindows();
  /** What the reader is asked for: the tags, then the token counts the completions need. */
  readonly metrics: readonly string[];
  readonly #keys: BottomK;
  readonly #values: Float64Array;
  readonly #isl: number;
  readonly #osl: number;

  constructor(options: SamplerOptions) {
    this.tags = [...new Set(options.tags)];
    this.capacity = options.capacity ?? SAMPLE_RECORDS;
    this.#keys = new BottomK(this.capacity);
    this.#values = new Float64Array(this.capacity * this.tags.length);
    const metrics = [...this.tags];
    for (const tag of [ISL, OSL]) if (!metrics.includes(tag)) metrics.push(tag);
    this.metrics = metrics;
    this.#isl = metrics.indexOf(ISL);
    this.#osl = metrics.indexOf(OSL);
  }

  /**
   * What to read of each record: the token counts of every one (for the completions), the columns' values only of
   * those the sample will keep — once it is full, a few in a hundred.
   */
  query(): RecordQuery {
    return {
      metrics: this.metrics,
      always: [ISL, OSL],
      metricsOf: (startNs, endNs) => this.#keys.wouldKeep(recordHash(startNs, endNs)),
    };
  }

  add(r: StreamedRecord): void {
    const slot = this.#keys.offer(recordHash(r.startNs, r.endNs));
    const width = this.tags.length;
    if (slot >= 0) {
      for (let t = 0; t < width; t++) this.#values[slot * width + t] = r.failed ? NaN : r.values[t] ?? NaN;
    }
    if (!r.failed) this.completions.add(r.endNs / 1e6, r.values[this.#isl] ?? 0, r.values[this.#osl] ?? 0);
  }

  state(): RecordSamplerState {
    const keys = this.#keys.state();
    return {
      keys,
      values: this.#values.slice(0, keys.hashes.length * this.tags.length),
      completions: this.completions.state(),
    };
  }

  /** Adds the sample of the records that came after this one's in the file. */
  merge(later: RecordSamplerState): void {
    const width = this.tags.length;
    const offset = this.#keys.seen;
    for (let i = 0; i < later.keys.hashes.length; i++) {
      const slot = this.#keys.offerAt(later.keys.hashes[i], offset + later.keys.positions[i]);
      if (slot >= 0) this.#values.set(later.values.subarray(i * width, (i + 1) * width), slot * width);
    }
    this.#keys.seen = offset + later.keys.seen;
    this.completions.merge(later.completions);
  }

  /** The samples, in file order. */
  finish(path: string): RecordSamples {
    const order = this.#keys.slotsInOrder();
    const width = this.tags.length;
    const columns = new Map<string, Float64Array>();
    this.tags.forEach((tag, t) => {
      const column = Float64Array.from(order, (slot) => this.#values[slot * width + t]);
      if (column.some((v) => !Number.isNaN(v))) columns.set(tag, column);
    });
    return { path, size: order.length, population: this.#keys.seen, columns, completions: this.completions };
  }
}

/** Samples the records of a part of a file (or of the whole source). */
export async function sampleRange(
  path: string,
  options: SamplerOptions,
  range?: ByteRange,
): Promise<{ sampler: RecordSampler; lines: number }> {
  const sampler = new RecordSampler(options);
  const lines = await scanRecords(path, sampler.query(), (r) => sampler.add(r), range);
  return { sampler, lines };
}

/**
 * The samples of `tags` of the run in `dir`, or undefined when it has no per-request file (AIPerf's summary only,
 * `--export-level summary`).
 * @throws {ReportError} for a file that exists but cannot be read or parsed (naming its line).
 */
export async function readRecordSamples(
  dir: string,
  tags: readonly string[],
  options: { readonly capacity?: number; readonly workers?: number } = {},
): Promise<RecordSamples | undefined> {
  const path = await recordsPathOf(dir);
  const sampler: SamplerOptions = { tags, capacity: options.capacity };
  try {
    const parts = await readInParts<RecordSamplerState>(path, { job: "samples", sampler }, options.workers);
    if (parts !== undefined) {
      const merged = new RecordSampler(sampler);
      for (const part of parts) merged.merge(part);
      return merged.finish(path);
    }
    return (await sampleRange(path, sampler)).sampler.finish(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
}
