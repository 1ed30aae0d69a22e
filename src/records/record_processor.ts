/**
 * Turns RequestRecords into ProcessedRecords by adding token counts, off the request path: records are
 * batched and their texts counted by a TokenCounter (normally in a Worker), then handed on in completion
 * order. With `--use-server-token-count` nothing is tokenized: counts come from the server's `usage`.
 *
 * When: a batch goes once completions pause (`quietMs` without a new record, checked every `quietMs` by a
 * running `Ticker`, so 1–2× `quietMs` after the last one), when it is full, or after `maxDelayMs` at the latest.
 * Why not a fixed delay after the first record (20 ms before): counting and handing on take the engine's core for
 * a few ms where the client has one core, and a fixed delay puts that work at one fixed offset after a burst of
 * completions. A batching server answers the re-issued requests together, one TTFT later, so with a TTFT near
 * that offset every first token landed on the work: `calibrate --ttft 20 --itl 5` read TTFT error p50 0.45–1.5 ms
 * at 16 streams and 2.3–3.3 ms at 64 (p99 4.3–16 ms), against 0.06–0.20 ms (p99 0.5–7.7) then. The work now
 * follows the end of a burst, earlier than any but the shortest TTFTs (the same run at `--ttft 7` read 0.2 ms at 16
 * streams, 1.5 at 64; with the ticker, 0.06 at both, docs/performance_history.md §2). The default calibration, 10
 * interleaved pairs, against before: TTFT p99 at 256 streams ≤ 10 ms in 10 of 10 runs against 7 of 10; the price,
 * request-latency p50 at 256 streams 0.84 against 0.68 ms (medians; 2 of 10 runs above 1 ms against 1 of 10), as
 * a 5 ms pause inside a long completion wave now starts the work there; latency p99 and everything at 16 streams
 * within the spread.
 *
 * Handing on (metrics, JSONL) happens in slices of at most `sliceMs`, with a yield in between that lets the
 * thread's pending socket reads complete (`yieldToIo`, runtime/io_yield.ts): a burst of hundreds of requests
 * finishing together (a decode step of a batching server) must not hold up the socket reads, and therefore the
 * timestamps, of the streams still running on this thread.
 *
 * Huge answers: a record whose texts reach {@linkcode BIG_TEXT_CHARS} is counted in a batch of its own, so the
 * counting Workers take big answers side by side and progress can be told; when the end-of-run `drain` has waited
 * {@linkcode NOTICE_AFTER_MS} for counts it says how far it is (records, MiB of text) every
 * {@linkcode NOTICE_EVERY_MS}, and its signal (Ctrl-C) stops the wait: the records not yet counted are handed on
 * without token counts, so the results are written within a second.
 *
 * Counting rules (AIPerf §2.3): output tokens = tokens of the concatenated answer text (tool-call text
 * included), reasoning tokens = tokens of the concatenated reasoning text; both encoded once per request,
 * never per chunk. Server counts: OSL = `completion_tokens`, reasoning = `completion_tokens_details.
 * reasoning_tokens`, output = OSL − reasoning, ISL = `prompt_tokens`; missing usage → counts undefined.
 * ISL of a body built at send time (a later turn with the conversation so far): the tokens of the prompt it
 * carried (`RequestRecord.inputPrompt`: its texts joined by one space, or with `renderInput` the chat template over
 * its messages), counted in the same batch, failed requests included; otherwise the precounted `inputTokens`.
 */
import type { ProcessedRecord, RequestRecord } from "./request_record.ts";
import type { ChatMessage } from "../tokenizer/chat_template.ts";
import { promptText } from "../dataset/payload_text.ts";
import type { TokenCounter } from "../tokenizer/token_counter.ts";
import { nextMacrotask } from "../runtime/next_macrotask.ts";
import type { YieldToIo } from "../runtime/io_yield.ts";
import { Ticker } from "../timing/ticker.ts";

export interface RecordProcessorOptions {
  /** Undefined only with server token counts. */
  readonly counter?: TokenCounter;
  readonly useServerTokenCount: boolean;
  /**
   * `--apply-chat-template` on an API with chat messages: the text the server tokenizes for a prompt's messages.
   * Absent: a built-at-send-time prompt counts its texts joined by one space (AIPerf's bare-text rule).
   */
  readonly renderInput?: (messages: readonly ChatMessage[]) => string;
  /** Called once per record, in the order records were pushed. */
  readonly onProcessed: (record: ProcessedRecord) => void;
  /** Records per counting batch. @default 256 */
  readonly batchSize?: number;
  /** A batch goes once no record has been pushed for this long, ms. @default 5 */
  readonly quietMs?: number;
  /** Longest a record waits for its batch whatever the arrivals, ms. @default 50 */
  readonly maxDelayMs?: number;
  /** Longest stretch of `onProcessed` calls before yielding to the event loop, ms. @default 1 */
  readonly sliceMs?: number;
  /**
   * Awaited between slices. Pass an `IoYield`'s `wait` where sockets share this thread: the default message
   * round trip does not let their reads in (runtime/io_yield.ts). @default nextMacrotask
   */
  readonly yieldToIo?: YieldToIo;
  /** Told how far counting is when the end-of-run drain waits long for it (see above). @default none */
  readonly onNotice?: (message: string) => void;
  /** First notice after this long in the drain, then every `noticeEveryMs`. @default NOTICE_AFTER_MS, NOTICE_EVERY_MS */
  readonly noticeAfterMs?: number;
  readonly noticeEveryMs?: number;
}

/** One batch: its records as pushed, and as counted (in order). */
interface Batch {
  readonly records: readonly RequestRecord[];
  readonly counted: Promise<ProcessedRecord[]>;
}

export class RecordProcessor {
  readonly #opts: RecordProcessorOptions;
  #pending: RequestRecord[] = [];
  /** Checks for a pause every `quietMs` while records come (see `Ticker` for why not a timer per batch). */
  readonly #ticker: Ticker;
  #firstPushAt = 0;
  #lastPushAt = 0;
  readonly #quietMs: number;
  readonly #maxDelayMs: number;
  /** Counted batches in push order; each resolves to its processed records. */
  #batches: Batch[] = [];
  #draining: Promise<void> | undefined;
  #failure: Error | undefined;
  /** Records and text characters sent to the counter, and how many of them are counted. */
  #sentRecords = 0;
  #sentChars = 0;
  #doneRecords = 0;
  #doneChars = 0;
  /** Resolves when counts are no longer awaited (the drain's signal aborted). */
  #abandoned = false;
  /** Wakes the hand-on loop when it waits for a batch's counts and the drain gives up on them. */
  #wakeOnAbandon: ((records: undefined) => void) | undefined;
  /**
   * Token counts of short texts already counted, by text (see {@linkcode KNOWN_TEXT_CHARS}). Answers of a token or
   * two repeat a few hundred texts, and sending each to the counting Worker cost more than the request's parsing.
   */
  readonly #known = new Map<string, number>();

  constructor(opts: RecordProcessorOptions) {
    if (!opts.useServerTokenCount && !opts.counter) {
      throw new TypeError("a RecordProcessor needs a token counter unless server token counts are used");
    }
    this.#opts = opts;
    this.#quietMs = opts.quietMs ?? DEFAULT_QUIET_MS;
    this.#maxDelayMs = opts.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
    this.#ticker = new Ticker(this.#quietMs, this.#onTick);
  }

  readonly #onTick = (): boolean => {
    if (this.#pending.length === 0) return false;
    const now = performance.now();
    if (now - this.#lastPushAt >= this.#quietMs || now - this.#firstPushAt >= this.#maxDelayMs) this.#flush();
    return true;
  };

  push(record: RequestRecord): void {
    const now = performance.now();
    this.#lastPushAt = now;
    if (record.error === undefined && record.content.length + record.reasoning.length >= BIG_TEXT_CHARS) {
      this.#flush();
      this.#pending.push(record);
      this.#flush();
      return;
    }
    if (this.#pending.push(record) === 1) this.#firstPushAt = now;
    if (this.#pending.length >= (this.#opts.batchSize ?? 256)) this.#flush();
    else if (!this.#ticker.running) this.#ticker.start();
  }

  /**
   * Resolves when every pushed record has been handed on; rejects if counting failed. When `signal` aborts during
   * the drain, the records still being counted are handed on without their counts instead of waited for; when it
   * had aborted before (the run was interrupted), counting gets {@linkcode ABANDON_AFTER_MS} to finish first.
   */
  async drain(signal?: AbortSignal): Promise<void> {
    this.#flush();
    this.#ticker.stop();
    const started = performance.now();
    const tell = this.#opts.onNotice;
    let notice: ReturnType<typeof setTimeout> | undefined;
    const schedule = (ms: number) => {
      notice = setTimeout(() => {
        if (this.#doneRecords < this.#sentRecords) tell?.(this.#progress(started));
        schedule(this.#opts.noticeEveryMs ?? NOTICE_EVERY_MS);
      }, ms);
    };
    if (tell !== undefined) schedule(this.#opts.noticeAfterMs ?? NOTICE_AFTER_MS);
    const abandon = () => {
      this.#abandoned = true;
      this.#wakeOnAbandon?.(undefined);
    };
    let late: ReturnType<typeof setTimeout> | undefined;
    if (signal?.aborted) late = setTimeout(abandon, ABANDON_AFTER_MS);
    else signal?.addEventListener("abort", abandon, { once: true });
    try {
      while (this.#draining) await this.#draining;
    } finally {
      clearTimeout(notice);
      clearTimeout(late);
      signal?.removeEventListener("abort", abandon);
    }
    if (this.#failure) throw this.#failure;
  }

  #progress(started: number): string {
    const mib = (chars: number) => (chars / (1024 * 1024)).toFixed(chars < 10 * 1024 * 1024 ? 1 : 0);
    return `Counting output tokens: ${this.#doneRecords} of ${this.#sentRecords} records counted ` +
      `(${mib(this.#doneChars)} of ${mib(this.#sentChars)} MiB of text), ` +
      `${((performance.now() - started) / 1000).toFixed(0)} s so far; Ctrl-C writes the results without the rest.`;
  }

  #flush(): void {
    if (this.#pending.length === 0) return;
    const batch = this.#pending;
    this.#pending = [];
    this.#batches.push({
      records: batch,
      counted: this.#opts.useServerTokenCount ? Promise.resolve(batch.map(withServerCounts)) : this.#count(batch),
    });
    this.#draining ??= this.#handOn().finally(() => this.#draining = undefined);
  }

  /** Hands batches on in order, in time slices. */
  async #handOn(): Promise<void> {
    const sliceMs = this.#opts.sliceMs ?? 1;
    const yieldToIo = this.#opts.yieldToIo ?? nextMacrotask;
    while (this.#batches.length > 0) {
      const batch = this.#batches[0];
      // Abandoned (Ctrl-C during the end-of-run drain): handed on without the counts still to come.
      const records = (this.#abandoned ? undefined : await this.#counted(batch)) ?? batch.records;
      this.#batches.shift();
      let sliceStart = performance.now();
      for (let i = 0; i < records.length; i++) {
        this.#opts.onProcessed(records[i]);
        // The clock is read every 8th record: a read costs a few percent of handling one, and 8 records fit a slice.
        if ((i & 7) === 7 && i + 1 < records.length && performance.now() - sliceStart > sliceMs) {
          await yieldToIo();
          sliceStart = performance.now();
        }
      }
      await yieldToIo();
    }
  }

  /**
   * A batch's counted records, or undefined once the drain gives up on counts. Not `Promise.race` with a promise
   * that lives as long as the processor: every race leaves a reaction on that promise holding its own result, so
   * every batch's records stayed reachable for the whole run (~1.5 KB per request; a 5-minute soak at 256 streams
   * grew by 270 MiB a minute).
   */
  #counted(batch: Batch): Promise<ProcessedRecord[] | undefined> {
    return new Promise((resolve) => {
      this.#wakeOnAbandon = resolve;
      batch.counted.then(resolve);
    }).finally(() => this.#wakeOnAbandon = undefined) as Promise<ProcessedRecord[] | undefined>;
  }

  async #count(batch: readonly RequestRecord[]): Promise<ProcessedRecord[]> {
    const texts: string[] = [];
    let chars = 0;
    for (const r of batch) {
      if (r.error === undefined) {
        texts.push(r.content, r.reasoning);
        chars += r.content.length + r.reasoning.length;
      }
      if (r.inputPrompt !== undefined) texts.push(this.#inputText(r.inputPrompt));
    }
    this.#sentRecords += batch.length;
    this.#sentChars += chars;
    let counts: number[];
    try {
      counts = await this.#countTexts(texts);
    } catch (err) {
      if (this.#abandoned) return [...batch]; // the counter was closed after the drain gave up on it
      this.#failure ??= new Error(`counting output tokens failed: ${(err as Error).message}`, { cause: err });
      return [...batch]; // keep the records (without counts) rather than lose them
    } finally {
      this.#doneRecords += batch.length;
      this.#doneChars += chars;
    }
    let i = 0;
    const out = batch as Counted[];
    for (const r of out) {
      const prompt = r.inputPrompt;
      if (r.error === undefined) {
        r.outputTokens = counts[i++];
        r.reasoningTokens = counts[i++];
      }
      if (prompt !== undefined) {
        r.isl = counts[i++];
        r.inputPrompt = undefined;
      } else if (r.error === undefined) r.isl = r.inputTokens;
    }
    return out;
  }

  /**
   * The token count of each text: short texts counted before are taken from `#known`, the others counted by the
   * counter (and the short ones among them remembered). A batch whose texts were all counted before does not go to
   * the counter at all.
   */
  async #countTexts(texts: readonly string[]): Promise<number[]> {
    const known = this.#known;
    const counts: number[] = new Array(texts.length);
    let missing: string[] | undefined;
    let missingAt: number[] | undefined;
    for (let i = 0; i < texts.length; i++) {
      const text = texts[i];
      const count = text.length <= KNOWN_TEXT_CHARS ? known.get(text) : undefined;
      if (count !== undefined) counts[i] = count;
      else {
        (missing ??= []).push(text);
        (missingAt ??= []).push(i);
      }
    }
    if (missing === undefined) return counts;
    const got = await this.#opts.counter!.count(missing);
    if (known.size + missing.length > KNOWN_TEXTS) known.clear();
    for (let k = 0; k < missing.length; k++) {
      counts[missingAt![k]] = got[k];
      if (missing[k].length <= KNOWN_TEXT_CHARS) known.set(missing[k], got[k]);
    }
    return counts;
  }

  #inputText(prompt: NonNullable<RequestRecord["inputPrompt"]>): string {
    const render = this.#opts.renderInput;
    return render !== undefined && prompt.messages !== undefined ? render(prompt.messages) : promptText(prompt);
  }
}

/** Texts (answer plus reasoning, UTF-16 units) from which a record is counted in a batch of its own. */
export const BIG_TEXT_CHARS = 1024 * 1024;
/** The end-of-run drain says how far counting is once it has waited this long, ms… */
export const NOTICE_AFTER_MS = 2000;
/** …and again this often, ms. */
export const NOTICE_EVERY_MS = 5000;
/** After an interrupted run, how long the drain waits for counts before handing the rest on without, ms. */
export const ABANDON_AFTER_MS = 700;
/** Texts of at most this many UTF-16 units have their counts remembered… */
const KNOWN_TEXT_CHARS = 32;
/** …up to this many of them (then the table starts over). */
const KNOWN_TEXTS = 4096;
const DEFAULT_QUIET_MS = 5;
const DEFAULT_MAX_DELAY_MS = 50;

/**
 * A record being turned into a processed one. Counts are set on the engine's own object rather than on a copy:
 * copying a record of some fifty fields (and the rest-destructuring that dropped its prompt) was ~14 % of what the
 * engine thread allocated per 1-token request (V8 sampling heap profile), and allocation sets how often the
 * young-generation collector pauses the thread that stamps reads. A record's prompt is dropped once counted.
 */
type Counted = { -readonly [K in keyof ProcessedRecord]: ProcessedRecord[K] };

function withServerCounts(record: RequestRecord): ProcessedRecord {
  const r = record as Counted;
  r.inputPrompt = undefined;
  if (r.error !== undefined) return r;
  const u = r.usage;
  if (!u) {
    r.isl = undefined;
    return r;
  }
  const reasoningTokens = u.reasoningTokens ?? 0;
  r.outputTokens = u.completionTokens !== undefined ? Math.max(0, u.completionTokens - reasoningTokens) : undefined;
  r.reasoningTokens = reasoningTokens;
  r.isl = u.promptTokens;
  return r;
}
