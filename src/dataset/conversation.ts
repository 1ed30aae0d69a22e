/**
 * The conversation model every dataset loader produces and the engine consumes.
 *
 * A single-turn request is a one-turn conversation. A conversation's turns are sent in order by one virtual user;
 * how its earlier turns reach the server is its context mode.
 */

import type { AccuracyGold } from "./accuracy/accuracy_gold.ts";

/** Kinds of media a turn may carry. */
export type MediaKind = "image" | "audio" | "video";

/**
 * One media input of a turn, endpoint-neutral: a remote `url` the server fetches, or the content inline as a
 * `dataUrl` (`data:<mime>;base64,<…>`). Endpoint adapters render it in their API's shape.
 */
export interface MediaItem {
  readonly kind: MediaKind;
  readonly url?: string;
  readonly dataUrl?: string;
}

/** One request's worth of user input. */
export interface Turn {
  /** Prompt texts; chat sends them as content parts of one user message (one text → a plain string). */
  readonly texts: readonly string[];
  /**
   * Texts by name, for APIs whose inputs have roles (rankings: `query` and `passages`); `texts` then holds the same
   * texts in order, so APIs that do not name them still see every one.
   */
  readonly named?: Readonly<Record<string, readonly string[]>>;
  /** Images, audio and video sent with the texts, in this order by kind (as AIPerf: images, audios, videos). */
  readonly media?: readonly MediaItem[];
  /** Message role for chat (`user` when absent). */
  readonly role?: string;
  /** Requested output tokens for this turn (overrides the synthetic OSL); undefined = server decides. */
  readonly maxTokens?: number;
  /** Fields merged into the request body after `--extra-inputs` (dataset `extra`). */
  readonly extra?: Readonly<Record<string, unknown>>;
  /** Model override for this turn. */
  readonly model?: string;
  /** Send time in ms from the start of the phase (trace replay): the first turn's starts the conversation. */
  readonly timestampMs?: number;
  /** Think time in ms between the previous turn's answer and this turn (ignored on a first turn). */
  readonly delayMs?: number;
  /**
   * Token count of the prompt text (ISL), computed once when the dataset is built so the hot path never
   * tokenizes inputs. Undefined when the endpoint does not tokenize input.
   */
  readonly inputTokens?: number;
  /**
   * Messages sent as written (captured traffic: role, content parts, tool calls, tool results), in place of the user
   * message built from `texts`; `texts` then holds their text, for the ISL. Only chat-style APIs take them.
   */
  readonly messages?: readonly Readonly<Record<string, unknown>>[];
  /** Tool definitions sent with `messages`, as written. */
  readonly tools?: readonly unknown[];
  /**
   * A complete request body, sent byte for byte as written (raw_payload, inputs_json, a trace's `payload`): the
   * endpoint builds nothing, `--extra-inputs` are not merged, and `texts` are unused.
   */
  readonly rawPayload?: string;
}

/**
 * How a conversation's earlier turns reach the server (AIPerf's context modes):
 * - `deltas_without_responses`: each turn holds only the new user input; the earlier turns and the server's real
 *   replies are sent before it (the default);
 * - `message_array_with_responses`: each turn is complete as written and is sent as is (no history added).
 */
export type ContextMode = "deltas_without_responses" | "message_array_with_responses";

export interface Conversation {
  /** Stable id, exported as `session_id` in inputs.json and `conversation_id` in records. */
  readonly id: string;
  readonly turns: readonly Turn[];
  /** System message prepended to chat requests. */
  readonly systemMessage?: string;
  /** @default "deltas_without_responses" */
  readonly contextMode?: ContextMode;
}

export type SamplingStrategy = "sequential" | "random" | "shuffle";

export interface Dataset {
  readonly conversations: readonly Conversation[];
  /** Sampling used when `--dataset-sampling-strategy` is not given (AIPerf: synthetic → shuffle, files → sequential). */
  readonly defaultSampling: SamplingStrategy;
  /** Where it came from, for logs and `input_config`. */
  readonly source: "synthetic" | "file";
  /** The custom dataset format that read the file (`--custom-dataset-type` or detected). */
  readonly format?: string;
  /** One line said at start about what was read: the format's own `describe`, or its size. */
  readonly description?: string;
  /** An accuracy benchmark's sessions: how their answers are graded (`--accuracy-benchmark`). */
  readonly accuracy?: AccuracyGold;
}
