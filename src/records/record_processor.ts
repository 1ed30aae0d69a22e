/**
 * Turns RequestRecords into ProcessedRecords by adding token counts, off the request path: records are
 * batched and their texts counted by a TokenCounter (normally in a Worker), then handed on in completion
 * order. With `--use-server-token-count` nothing is tokenized: counts come from the server's `usage`.
 *
 * Counting rules (AIPerf §2.3): output tokens = tokens of the concatenated answer text (tool-call text
 * included), reasoning tokens = tokens of the concatenated reasoning text; both encoded once per request,
 * never per chunk. Server counts: OSL = `completion_tokens`, reasoning = `completion_tokens_details.
 * reasoning_tokens`, output = OSL − reasoning, ISL = `prompt_tokens`; missing usage → counts undefined.
 */
import type { ProcessedRecord, RequestRecord } from "./request_record.ts";
import type { TokenCounter } from "../tokenizer/token_counter.ts";

export interface RecordProcessorOptions {
  /** Undefined only with server token counts. */
  readonly counter?: TokenCounter;
  readonly useServerTokenCount: boolean;
  /** Called once per record, in the order records were pushed. */
  readonly onProcessed: (record: ProcessedRecord) => void;
  /** Records per counting batch. @default 256 */
  readonly batchSize?: number;
  /** Longest a record waits for its batch to fill, ms. @default 20 */
  readonly maxDelayMs?: number;
}

export class RecordProcessor {
  readonly #opts: RecordProcessorOptions;
  #pending: RequestRecord[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Serializes batches so records are handed on in order. */
  #chain: Promise<void> = Promise.resolve();
  #failure: Error | undefined;

  constructor(opts: RecordProcessorOptions) {
    if (!opts.useServerTokenCount && !opts.counter) {
      throw new TypeError("a RecordProcessor needs a token counter unless server token counts are used");
    }
    this.#opts = opts;
  }

  push(record: RequestRecord): void {
    if (this.#opts.useServerTokenCount || record.error !== undefined) {
      // Nothing to count: hand it on now, but behind any batch still being counted, to keep the order.
      if (this.#pending.length === 0) {
        const processed = this.#opts.useServerTokenCount ? withServerCounts(record) : record;
        this.#chain = this.#chain.then(() => this.#opts.onProcessed(processed));
        return;
      }
    }
    this.#pending.push(record);
    if (this.#pending.length >= (this.#opts.batchSize ?? 256)) this.#flush();
    else if (this.#timer === undefined) this.#timer = setTimeout(() => this.#flush(), this.#opts.maxDelayMs ?? 20);
  }

  /** Resolves when every pushed record has been handed on; rejects if counting failed. */
  async drain(): Promise<void> {
    this.#flush();
    await this.#chain;
    if (this.#failure) throw this.#failure;
  }

  #flush(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#pending.length === 0) return;
    const batch = this.#pending;
    this.#pending = [];
    const counted = this.#opts.useServerTokenCount
      ? Promise.resolve(batch.map(withServerCounts))
      : this.#count(batch);
    this.#chain = this.#chain.then(async () => {
      let processed: ProcessedRecord[];
      try {
        processed = await counted;
      } catch (err) {
        this.#failure ??= new Error(`counting output tokens failed: ${(err as Error).message}`, { cause: err });
        processed = batch; // keep the records (without counts) rather than lose them
      }
      for (const r of processed) this.#opts.onProcessed(r);
    });
  }

  async #count(batch: readonly RequestRecord[]): Promise<ProcessedRecord[]> {
    const texts: string[] = [];
    for (const r of batch) {
      if (r.error === undefined) texts.push(r.content, r.reasoning);
    }
    const counts = texts.length > 0 ? await this.#opts.counter!.count(texts) : [];
    let i = 0;
    return batch.map((r) => {
      if (r.error !== undefined) return r;
      const outputTokens = counts[i++];
      const reasoningTokens = counts[i++];
      return { ...r, outputTokens, reasoningTokens, isl: r.inputTokens };
    });
  }
}

function withServerCounts(r: RequestRecord): ProcessedRecord {
  if (r.error !== undefined) return r;
  const u = r.usage;
  if (!u) return { ...r, isl: undefined };
  const reasoningTokens = u.reasoningTokens ?? 0;
  const outputTokens = u.completionTokens !== undefined ? Math.max(0, u.completionTokens - reasoningTokens) : undefined;
  return { ...r, outputTokens, reasoningTokens, isl: u.promptTokens };
}
