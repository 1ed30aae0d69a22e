/**
 * The event stream of one streamed response, produced incrementally: `emit(horizon)` returns every event due by
 * `horizon` (ms after the request arrived) as one string, so the zero-latency path builds the whole body with
 * `emit(Infinity)` and the timed path writes whatever is due at each wake-up in one enqueue.
 *
 * This decides WHEN and HOW MUCH: chunks of up to `tokensPerChunk` tokens, reasoning before content, a chunk
 * never mixing the two, each due when its last token is due (`TokenClock`); the closing events are due with the
 * last chunk. The route's {@link StreamFraming} decides the bytes: the opening events (written with the first
 * chunk), each chunk, the closing events.
 */
import type { GenerationPlan } from "./plan_generation.ts";
import type { StreamFraming } from "./sim_route.ts";
import type { TokenClock } from "./token_clock.ts";
import type { WordSource } from "./word_source.ts";

export interface SseEmitterOptions {
  readonly framing: StreamFraming;
  readonly plan: GenerationPlan;
  readonly words: WordSource;
  readonly clock: TokenClock;
  /** @default 1 */
  readonly tokensPerChunk: number;
}

export class SseEmitter {
  readonly #framing: StreamFraming;
  readonly #words: WordSource;
  readonly #clock: TokenClock;
  readonly #tokensPerChunk: number;
  readonly #reasoningTokens: number;
  readonly #total: number;
  #sent = 0;
  #reasoningSent = 0;
  #opened = false;
  /** Size and due offset of the next chunk; size 0 = only the closing events are left. */
  #chunkSize = 0;
  #chunkDue = 0;
  #done = false;

  constructor(options: SseEmitterOptions) {
    this.#framing = options.framing;
    this.#words = options.words;
    this.#clock = options.clock;
    this.#tokensPerChunk = options.tokensPerChunk;
    this.#reasoningTokens = options.plan.reasoningTokens;
    this.#total = options.plan.reasoningTokens + options.plan.contentTokens;
    this.#planChunk();
  }

  /** Tokens emitted so far (reasoning included). */
  get tokensSent(): number {
    return this.#sent;
  }

  /** True once the closing events have been emitted. */
  get done(): boolean {
    return this.#done;
  }

  /** Due offset (ms after arrival) of the next event; meaningless once `done`. */
  get nextDue(): number {
    return this.#chunkDue;
  }

  /** All events due at or before `horizon` ms after arrival, concatenated ("" when none is due). */
  emit(horizon: number): string {
    let out = "";
    while (!this.#done && this.#chunkDue <= horizon) {
      if (!this.#opened) {
        this.#opened = true;
        out += this.#framing.open();
      }
      if (this.#chunkSize === 0) {
        out += this.#framing.close(this.#sent, this.#reasoningSent);
        this.#done = true;
        break;
      }
      out += this.#chunk();
      this.#planChunk();
    }
    return out;
  }

  #planChunk(): void {
    if (this.#sent >= this.#total) {
      this.#chunkSize = 0; // the closing events go out with the last chunk (same due time)
      return;
    }
    const phaseLeft = this.#sent < this.#reasoningTokens
      ? this.#reasoningTokens - this.#sent
      : this.#total - this.#sent;
    this.#chunkSize = Math.min(this.#tokensPerChunk, phaseLeft);
    this.#chunkDue = this.#clock.advance(this.#chunkSize);
  }

  #chunk(): string {
    const n = this.#chunkSize;
    const reasoning = this.#sent < this.#reasoningTokens;
    const text = this.#words.take(n);
    this.#sent += n;
    if (reasoning) this.#reasoningSent += n;
    return this.#framing.chunk(text, reasoning, this.#sent, this.#reasoningSent);
  }
}
