/**
 * What the simulated server generates for one request, whatever API it came through: each route
 * (`src/sim/routes/`) reads its own wire format into this shape, and the shared machinery (length plan, token
 * clock, stream scheduler, stats) acts on nothing else.
 */

export interface GenerationRequest {
  /** `model` as sent, undefined when absent. */
  readonly model: string | undefined;
  readonly stream: boolean;
  /** Output cap; undefined = none sent. 0 = a route that answers without generating (embeddings, rankings). */
  readonly maxTokens: number | undefined;
  /** @default 0 */
  readonly minTokens: number;
  readonly ignoreEos: boolean;
  /** Texts whose token counts sum to `prompt_tokens`. */
  readonly promptTexts: readonly string[];
  /** Prompt tokens sent as ids, counted as they are. */
  readonly promptTokenIds: number;
  /** What the request asks of reasoning; undefined for an API whose answers carry no reasoning text. */
  readonly reasoning: ReasoningRequest | undefined;
  /** Texts of an OpenAI Predicted Outputs `prediction` (`{type: "content", content}`); absent when none. */
  readonly predictionTexts?: readonly string[];
  /** Media parts the request carried, by kind (`image_url`, `input_audio`, `video_url` parts); absent when none. */
  readonly media?: Readonly<Partial<Record<"image" | "audio" | "video", number>>>;
}

export interface ReasoningRequest {
  /** Effort as sent (`low`, `medium`, `high`, …); undefined = none named. */
  readonly effort: string | undefined;
  /** The request turned reasoning off (e.g. vLLM/Qwen `chat_template_kwargs.enable_thinking: false`). */
  readonly disabled: boolean;
}
