/**
 * The endpoint contract: capabilities as data plus pure functions that build request bodies and parse
 * responses. Adapters never touch sockets, clocks or metrics (design §3).
 */
import type { Turn } from "../dataset/conversation.ts";

export type EndpointType = "chat" | "completions";

/** Server-reported token usage, normalized from the vendor's field names. */
export interface Usage {
  readonly promptTokens?: number;
  readonly completionTokens?: number;
  readonly totalTokens?: number;
  readonly reasoningTokens?: number;
}

/**
 * What one SSE event or one non-streaming body carries. A response is a "content response" (counts for
 * TTFT/ITL) when any of `content`, `reasoning` or `toolCalls` is a non-empty string.
 */
export interface Delta {
  readonly content?: string;
  readonly reasoning?: string;
  /** Tool-call function name and argument text; counted as output tokens like AIPerf. */
  readonly toolCalls?: string;
  readonly usage?: Usage;
  readonly finishReason?: string;
  /** Set when the body is an API error object (`{"error": {...}}`) delivered with a 2xx status or in-stream. */
  readonly error?: { readonly message: string; readonly type?: string; readonly code?: number };
}

export interface EndpointCapabilities {
  readonly type: EndpointType;
  /** Default URL path appended to the base URL. */
  readonly path: string;
  readonly supportsStreaming: boolean;
  readonly producesTokens: boolean;
  readonly tokenizesInput: boolean;
  readonly supportsReasoning: boolean;
  /** Console table title suffix: `infermeter | <metricsTitle>`. */
  readonly metricsTitle: string;
  /** AIPerf's service kind, used in `input_config`. */
  readonly serviceKind: "openai";
}

export interface BuildContext {
  readonly model: string;
  readonly streaming: boolean;
  /** Requested output tokens (turn override, else synthetic OSL); undefined = field not sent. */
  readonly maxTokens?: number;
  /** Chat only: send `max_tokens` instead of `max_completion_tokens`. */
  readonly useLegacyMaxTokens: boolean;
  /** Ask for usage in the final streaming chunk (`stream_options.include_usage`). */
  readonly includeUsage: boolean;
  /** `--extra-inputs`, merged after the adapter's fields and before the turn's `extra`. */
  readonly extraInputs: Readonly<Record<string, unknown>>;
  /** System message for chat. */
  readonly systemMessage?: string;
}

export interface EndpointAdapter {
  readonly capabilities: EndpointCapabilities;
  /** The JSON body for one turn (pure; the same inputs give the same body). */
  buildRequest(turn: Turn, ctx: BuildContext): Record<string, unknown>;
  /** Parse one SSE `data:` payload. `[DONE]` and keep-alive payloads return undefined. */
  parseEvent(data: string): Delta | undefined;
  /** Parse a complete non-streaming JSON body. */
  parseBody(json: unknown): Delta;
  /** The text whose token count is the input sequence length of this turn. */
  inputText(turn: Turn, ctx: Pick<BuildContext, "systemMessage">): string;
}
