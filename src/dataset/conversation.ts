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
   * When the trace recorded this request (ms, one origin per trace; an agent trace's sub-agents share it). Not a
   * schedule: agentic replay samples its mid-trace start points from it (timing/trajectory.ts).
   */
  readonly recordedAtMs?: number;
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
  /**
   * In `deltas_with_responses`, the earlier turns are not sent before this one: it holds the whole context again
   * (the recorded context was edited, not only extended).
   */
  readonly resetContext?: boolean;
  /**
   * Child conversations this turn starts once it is answered (an agent's sub-agents): they run concurrently with
   * the rest of this conversation, and a later turn may wait for them (`joinAt`).
   */
  readonly spawns?: readonly Spawn[];
  /**
   * The turn sends nothing (a request-free orchestrator step): it only waits (its delay, its joins) and starts its
   * children. `texts` is then empty.
   */
  readonly requestFree?: boolean;
}

/**
 * Children started together by a turn (or, in `Conversation.spawnsFirst`, before the first turn). Each child is a
 * conversation of the same dataset (marked `child`); it runs on its own virtual user with its own correlation id,
 * holds no session slot of its own (its root's slot is held until the whole tree has ended), and its turns follow
 * its think times rather than an open-loop schedule. A child's first-turn `delayMs` is its start offset after the
 * spawning answer.
 */
export interface Spawn {
  /** Ids of the child conversations, started in this order. */
  readonly children: readonly string[];
  /**
   * The children start with the parent's conversation so far, the answers received included (a fork); otherwise
   * with none (a spawn). @default false
   */
  readonly inheritContext?: boolean;
  /**
   * Index of the parent's later turn that waits until every child (and everything it started) has ended; undefined
   * when no turn waits for them (fire-and-forget, or started by the last turn). The tree's end always does.
   */
  readonly joinAt?: number;
}

/** Lognormal think times for a request-free conversation's turns: the turn's `delayMs` is the median. */
export interface ThinkTimeSpread {
  /** Standard deviation of the delay's natural logarithm. */
  readonly sigma: number;
  readonly minMs?: number;
  readonly maxMs?: number;
}

/**
 * How a conversation's earlier turns reach the server (AIPerf's context modes):
 * - `deltas_without_responses`: each turn holds only the new user input; the earlier turns and the server's real
 *   replies are sent before it (the default);
 * - `deltas_with_responses`: each turn holds only what is new in the context, the recorded answers included (a
 *   reconstructed trace); the earlier turns are sent before it and the server's live replies are not (a turn with
 *   `resetContext` starts the context over);
 * - `message_array_with_responses`: each turn is complete as written and is sent as is (no history added).
 */
export type ContextMode = "deltas_without_responses" | "deltas_with_responses" | "message_array_with_responses";

export interface Conversation {
  /** Stable id, exported as `session_id` in inputs.json and `conversation_id` in records. */
  readonly id: string;
  readonly turns: readonly Turn[];
  /** System message prepended to chat requests. */
  readonly systemMessage?: string;
  /** @default "deltas_without_responses" */
  readonly contextMode?: ContextMode;
  /** Started only by a parent's `spawns`, never sampled as a session of its own. */
  readonly child?: boolean;
  /** Children started before the first turn is sent (not waited for by any turn; the tree's end waits). */
  readonly spawnsFirst?: readonly Spawn[];
  /** Think times of request-free turns drawn around their `delayMs` (seeded per session and turn). */
  readonly thinkTime?: ThinkTimeSpread;
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
  /**
   * The loader already capped the dataset's idle gaps its own way (`--trace-idle-gap-cap-seconds` on agent traces,
   * which takes precedence over `--inter-turn-delay-cap-seconds`, as in AIPerf).
   */
  readonly gapsCapped?: boolean;
}
