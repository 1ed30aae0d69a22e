/**
 * The SSE body of one streamed response, produced incrementally: `emit(horizon)` returns every event due by
 * `horizon` (ms after the request arrived) as one string, so the zero-latency path builds the whole body with
 * `emit(Infinity)` and the timed path writes whatever is due at each wake-up in one enqueue.
 *
 * Event sequence (vLLM's shape):
 * - chat: a role chunk (`delta: {role: "assistant", content: ""}`) sent together with the first token chunk;
 * - token chunks of up to `tokensPerChunk` tokens, reasoning (`delta.reasoning_content`, chat only) before
 *   content (`delta.content` / `text`); a chunk never mixes the two; it is due when its last token is due;
 * - the last token chunk carries `finish_reason`;
 * - with `include_usage`, a `"choices": []` chunk with the usage; with `continuous_usage_stats`, every token
 *   chunk also carries the usage so far;
 * - `data: [DONE]`.
 * With `emitSendTimes`, each chunk gets `"sim_sent_at_ms"` = `performance.timeOrigin + performance.now()` taken
 * as the chunk is built, immediately before it is enqueued.
 *
 * Texts are words of lowercase ASCII letters and spaces, so they are spliced into JSON without escaping.
 */
import { finishJson, type ResponseIdentity, usageJson } from "./completion_body.ts";
import type { GenerationPlan } from "./plan_generation.ts";
import type { TokenClock } from "./token_clock.ts";
import type { WordSource } from "./word_source.ts";

export interface SseEmitterOptions {
  readonly identity: ResponseIdentity;
  readonly plan: GenerationPlan;
  readonly words: WordSource;
  readonly clock: TokenClock;
  /** @default 1 */
  readonly tokensPerChunk: number;
  /** @default false */
  readonly includeUsage: boolean;
  /** @default false */
  readonly continuousUsage: boolean;
  /** @default false */
  readonly emitSendTimes: boolean;
}

export class SseEmitter {
  readonly #o: SseEmitterOptions;
  /** `data: {…"choices":[` — everything before the choice object. */
  readonly #head: string;
  /** Everything before a content / reasoning chunk's text (head + choice start). */
  readonly #contentPre: string;
  readonly #reasoningPre: string;
  /** After the text of a chunk that does not finish: closes delta/choice, `"finish_reason":null}]`. */
  readonly #midPost: string;
  /** The same for the last token chunk. */
  readonly #lastPost: string;
  /** No per-chunk extras (usage, send time): chunks are three precomputed pieces plus the text. */
  readonly #plain: boolean;
  readonly #isChat: boolean;
  readonly #total: number;
  #sent = 0;
  #reasoningSent = 0;
  #roleSent = false;
  /** Size and due offset of the next token chunk; size 0 = only the trailer is left. */
  #chunkSize = 0;
  #chunkDue = 0;
  #done = false;

  constructor(options: SseEmitterOptions) {
    this.#o = options;
    const { identity, plan } = options;
    this.#isChat = identity.endpoint === "chat";
    this.#head = `data: {"id":"${identity.id}","object":"${
      this.#isChat ? "chat.completion.chunk" : "text_completion"
    }","created":${identity.created},"model":${JSON.stringify(identity.model)},"choices":[`;
    // Chunk fragments are built once per response: per token only the text is new (and strings stay shallow).
    const textOpen = this.#isChat ? '{"index":0,"delta":{"content":"' : '{"index":0,"text":"';
    this.#contentPre = this.#head + textOpen;
    this.#reasoningPre = this.#head + '{"index":0,"delta":{"reasoning_content":"';
    const close = this.#isChat ? '"},"logprobs":null,"finish_reason":' : '","logprobs":null,"finish_reason":';
    this.#plain = !options.continuousUsage && !options.emitSendTimes;
    const end = this.#plain ? "}\n\n" : "";
    this.#midPost = `${close}null}]${end}`;
    this.#lastPost = `${close}${finishJson(plan.finishReason)}}]${end}`;
    this.#total = plan.reasoningTokens + plan.contentTokens;
    this.#planChunk();
  }

  /** Tokens emitted so far (reasoning included). */
  get tokensSent(): number {
    return this.#sent;
  }

  /** True once `[DONE]` has been emitted. */
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
      if (this.#chunkSize === 0) {
        out += this.#trailer();
        this.#done = true;
        break;
      }
      out += this.#tokenChunk();
      this.#planChunk();
    }
    return out;
  }

  #planChunk(): void {
    const { plan, tokensPerChunk, clock } = this.#o;
    if (this.#sent >= this.#total) {
      this.#chunkSize = 0; // trailer goes out with the last token chunk (same due time)
      return;
    }
    const phaseLeft = this.#sent < plan.reasoningTokens ? plan.reasoningTokens - this.#sent : this.#total - this.#sent;
    this.#chunkSize = Math.min(tokensPerChunk, phaseLeft);
    this.#chunkDue = clock.advance(this.#chunkSize);
  }

  #tokenChunk(): string {
    const o = this.#o;
    let role = "";
    if (this.#isChat && !this.#roleSent) {
      this.#roleSent = true;
      role = `${this.#head}{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,` +
        `"finish_reason":null}]${this.#extras(false)}}\n\n`;
    }
    const n = this.#chunkSize;
    const reasoning = this.#sent < o.plan.reasoningTokens;
    const text = o.words.take(n);
    this.#sent += n;
    if (reasoning) this.#reasoningSent += n;
    let chunk = (reasoning ? this.#reasoningPre : this.#contentPre) + text +
      (this.#sent === this.#total ? this.#lastPost : this.#midPost);
    if (!this.#plain) chunk += this.#extras(o.continuousUsage) + "}\n\n";
    return role.length > 0 ? role + chunk : chunk;
  }

  #trailer(): string {
    const o = this.#o;
    let out = "";
    if (o.includeUsage) {
      out += `${this.#head}],"usage":${usageJson(o.plan, this.#sent, this.#reasoningSent)}${this.#extras(false)}}\n\n`;
    }
    return out + "data: [DONE]\n\n";
  }

  #extras(withUsage: boolean): string {
    const o = this.#o;
    let s = withUsage ? `,"usage":${usageJson(o.plan, this.#sent, this.#reasoningSent)}` : "";
    if (o.emitSendTimes) s += `,"sim_sent_at_ms":${performance.timeOrigin + performance.now()}`;
    return s;
  }
}
