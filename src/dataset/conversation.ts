/**
 * The conversation model every dataset loader produces and the engine consumes.
 *
 * A single-turn request is a one-turn conversation, so multi-turn sessions (roadmap 2) need no new shape.
 */

/** One request's worth of user input. */
export interface Turn {
  /** Prompt texts; chat sends them as content parts of one user message (one text → a plain string). */
  readonly texts: readonly string[];
  /** Message role for chat (`user` when absent). */
  readonly role?: string;
  /** Requested output tokens for this turn (overrides the synthetic OSL); undefined = server decides. */
  readonly maxTokens?: number;
  /** Fields merged into the request body after `--extra-inputs` (dataset `extra`). */
  readonly extra?: Readonly<Record<string, unknown>>;
  /** Model override for this turn. */
  readonly model?: string;
  /** Absolute send time in ms from the start of the phase (fixed schedule traces). */
  readonly timestampMs?: number;
  /** Delay in ms after the previous turn of the same session completes. */
  readonly delayMs?: number;
  /**
   * Token count of the prompt text (ISL), computed once when the dataset is built so the hot path never
   * tokenizes inputs. Undefined when the endpoint does not tokenize input.
   */
  readonly inputTokens?: number;
}

export interface Conversation {
  /** Stable id, exported as `session_id` in inputs.json and `conversation_id` in records. */
  readonly id: string;
  readonly turns: readonly Turn[];
  /** System message prepended to chat requests. */
  readonly systemMessage?: string;
}

export type SamplingStrategy = "sequential" | "random" | "shuffle";

export interface Dataset {
  readonly conversations: readonly Conversation[];
  /** Sampling used when `--dataset-sampling-strategy` is not given (AIPerf: synthetic → shuffle, files → sequential). */
  readonly defaultSampling: SamplingStrategy;
  /** Where it came from, for logs and `input_config`. */
  readonly source: "synthetic" | "file";
}
