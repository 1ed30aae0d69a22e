/**
 * The stream framing of the OpenAI-style APIs (vLLM's shape): `data: {"id", "object", "created", "model",
 * "choices": [one choice]}` events; the last token chunk carries `finish_reason`; with `include_usage`, a
 * `"choices": []` chunk with the usage; with `continuous_usage_stats`, every token chunk also carries the usage so
 * far; then `data: [DONE]`. Each route gives the shape of its choice (its object name, how a text opens and closes,
 * an optional opening choice such as chat's role delta).
 *
 * Per response the fragments around a chunk's text are built once, so a token costs one concatenation (and strings
 * stay shallow): the throughput benchmark's server spends most of its time here.
 */
import type { ReplyContext, StreamFraming } from "../sim_route.ts";
import { finishJson, usageJson } from "./openai_fields.ts";
import { specDecodeMetricsField } from "../spec_decode_plan.ts";

export interface OpenAiChunkShape {
  /** `object` of every chunk (`chat.completion.chunk`, `text_completion`). */
  readonly object: string;
  /** Choice JSON up to the opening quote of a content text. */
  readonly contentOpen: string;
  /** The same for a reasoning text. */
  readonly reasoningOpen: string;
  /** From the closing quote of a text up to the value of `finish_reason`. */
  readonly textClose: string;
  /** A whole choice sent alone before the first token (chat's role delta); undefined = none. */
  readonly opening?: string;
}

export interface OpenAiStreamOptions {
  readonly includeUsage: boolean;
  readonly continuousUsage: boolean;
}

export class OpenAiChunkStream implements StreamFraming {
  readonly #reply: ReplyContext;
  readonly #options: OpenAiStreamOptions;
  readonly #opening: string | undefined;
  /** `data: {…"choices":[` — everything before the choice object. */
  readonly #head: string;
  /** Everything before a content / reasoning chunk's text (head + choice start). */
  readonly #contentPre: string;
  readonly #reasoningPre: string;
  /** After the text of a chunk that does not finish: closes the choice, `"finish_reason":null}]`. */
  readonly #midPost: string;
  /** The same for the last token chunk. */
  readonly #lastPost: string;
  /** No per-chunk extras (usage, send time): chunks are three precomputed pieces plus the text. */
  readonly #plain: boolean;
  readonly #total: number;
  /** When the first token chunk was built (llama.cpp timings only). */
  #firstTokenAt: number | undefined;

  constructor(reply: ReplyContext, shape: OpenAiChunkShape, options: OpenAiStreamOptions) {
    this.#reply = reply;
    this.#options = options;
    this.#opening = shape.opening;
    this.#head = `data: {"id":"${reply.id}","object":"${shape.object}","created":${reply.created},"model":${
      JSON.stringify(reply.model)
    },"choices":[`;
    this.#contentPre = this.#head + shape.contentOpen;
    this.#reasoningPre = this.#head + shape.reasoningOpen;
    this.#plain = !options.continuousUsage && !reply.emitSendTimes;
    const end = this.#plain ? "}\n\n" : "";
    this.#midPost = `${shape.textClose}null}]${end}`;
    this.#lastPost = `${shape.textClose}${finishJson(reply.plan.finishReason)}}]${end}`;
    this.#total = reply.plan.reasoningTokens + reply.plan.contentTokens;
  }

  open(): string {
    if (this.#opening === undefined) return "";
    return `${this.#head}${this.#opening}]${this.#extras(false, 0, 0)}}\n\n`;
  }

  chunk(text: string, reasoning: boolean, sent: number, reasoningSent: number): string {
    if (this.#reply.llamaCppTimings !== undefined) this.#firstTokenAt ??= performance.now();
    const chunk = (reasoning ? this.#reasoningPre : this.#contentPre) + text +
      (sent === this.#total ? this.#lastPost : this.#midPost);
    if (this.#plain) return chunk;
    return chunk + this.#extras(this.#options.continuousUsage, sent, reasoningSent) + "}\n\n";
  }

  close(sent: number, reasoningSent: number): string {
    const timings = this.#timings(sent);
    if (!this.#options.includeUsage) {
      // llama.cpp sends its timings in a last chunk even without usage.
      return timings === "" ? "data: [DONE]\n\n" : `${this.#head}]${timings}}\n\ndata: [DONE]\n\n`;
    }
    const usage = usageJson(this.#reply.plan, sent, reasoningSent);
    // vLLM sends its per-request statistics (speculative decoding) on the usage chunk only.
    const spec = specDecodeMetricsField(this.#reply.plan.specDecode);
    return `${this.#head}],"usage":${usage}${spec}${timings}${
      this.#extras(false, sent, reasoningSent)
    }}\n\ndata: [DONE]\n\n`;
  }

  /**
   * llama.cpp's `,"timings":{…}`, measured: prompt processing from the request's arrival to the first token,
   * generation from the first token to this last event; "" when not asked for.
   */
  #timings(sent: number): string {
    const t = this.#reply.llamaCppTimings;
    if (t === undefined) return "";
    const now = performance.now();
    const first = this.#firstTokenAt ?? now;
    const promptMs = first - t.arrival;
    const predictedMs = now - first;
    const promptN = this.#reply.plan.promptTokens;
    return `,"timings":{"cache_n":0,"prompt_n":${promptN},"prompt_ms":${promptMs},"prompt_per_token_ms":${
      promptN > 0 ? promptMs / promptN : 0
    },"predicted_n":${sent},"predicted_ms":${predictedMs},"predicted_per_token_ms":${
      sent > 0 ? predictedMs / sent : 0
    }}`;
  }

  #extras(withUsage: boolean, sent: number, reasoningSent: number): string {
    let s = withUsage ? `,"usage":${usageJson(this.#reply.plan, sent, reasoningSent)}` : "";
    if (this.#reply.emitSendTimes) s += `,"sim_sent_at_ms":${performance.timeOrigin + performance.now()}`;
    return s;
  }
}
