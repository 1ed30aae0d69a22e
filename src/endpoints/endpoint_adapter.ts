/**
 * The endpoint contract: everything specific to one API lives in its adapter — path, method, headers, the request
 * body built from a turn (and the conversation so far), response parsing into a normalized `Delta`, the ISL rule,
 * which metrics apply (capabilities), the table title, and sample responses for the hot-path warm-up and the
 * conformance suite. Adapters are data plus pure functions: they never touch sockets, clocks or metrics (design §3).
 *
 * Adding an endpoint type: its declaration (name, help line, capabilities) in `endpoint_declarations.ts`, one adapter
 * file that starts from it (e.g. `openai/chat.ts`), its line in `endpoint_registry.ts` (the declaration and the
 * adapter's import), a simulator route beside it (`src/sim/routes/`), and its tests; the conformance suite in
 * `tests/endpoints/` runs over every registered adapter.
 */
import type { RegistryEntry } from "../base/registry.ts";
import type { MediaKind, Turn } from "../dataset/conversation.ts";
import type { ChatMessage } from "../tokenizer/chat_template.ts";
import type { ServerTiming } from "./server_timing.ts";

/** Registered endpoint type names (`--endpoint-type`); the registry is the list of valid ones. */
export type EndpointType = string;

/**
 * Server-reported token usage, normalized from the vendor's field names (`usage_fields.ts`, AIPerf 0.13's `Usage`):
 * each field is absent when the server did not report it, so 0 and "not reported" stay apart.
 */
export interface Usage {
  /** Every prompt token the server processed (cached ones included, whatever the vendor's accounting). */
  readonly promptTokens?: number;
  readonly completionTokens?: number;
  readonly totalTokens?: number;
  readonly reasoningTokens?: number;
  /** Prompt tokens served from the prompt cache (OpenAI `prompt_tokens_details.cached_tokens`, …). */
  readonly promptCacheReadTokens?: number;
  /** Prompt tokens written to the cache (Anthropic `cache_creation_input_tokens`). */
  readonly promptCacheWriteTokens?: number;
  /** Prompt tokens that missed the cache (DeepSeek `prompt_cache_miss_tokens`). */
  readonly promptCacheMissTokens?: number;
  /** Predicted-output tokens that appeared in the answer (`completion_tokens_details.accepted_prediction_tokens`). */
  readonly acceptedPredictionTokens?: number;
  /** Predicted-output tokens that did not (`completion_tokens_details.rejected_prediction_tokens`). */
  readonly rejectedPredictionTokens?: number;
  /** Audio tokens of the prompt (`prompt_tokens_details.audio_tokens`). */
  readonly promptAudioTokens?: number;
  /** Audio tokens of the answer (`completion_tokens_details.audio_tokens`). */
  readonly completionAudioTokens?: number;
  /** Tokens of the tool declarations (Gemini `toolUsePromptTokenCount`). */
  readonly toolUsePromptTokens?: number;
  /** Seconds of prompt audio (Mistral `prompt_audio_seconds`). */
  readonly promptAudioSeconds?: number;
}

/** Every field of `Usage`, in one list (merging, encoding). */
export const USAGE_FIELDS = [
  "promptTokens",
  "completionTokens",
  "totalTokens",
  "reasoningTokens",
  "promptCacheReadTokens",
  "promptCacheWriteTokens",
  "promptCacheMissTokens",
  "acceptedPredictionTokens",
  "rejectedPredictionTokens",
  "promptAudioTokens",
  "completionAudioTokens",
  "toolUsePromptTokens",
  "promptAudioSeconds",
] as const satisfies readonly (keyof Usage)[];

/**
 * What one SSE event or one non-streaming body carries. A response is a "content response" (counts for
 * TTFT/ITL) when any of `content`, `reasoning` or `toolCalls` is a non-empty string.
 */
export interface Delta {
  readonly content?: string;
  readonly reasoning?: string;
  /** Tool-call function name and argument text; counted as output tokens like AIPerf. */
  readonly toolCalls?: string;
  /**
   * The whole text of an answer part sent after its deltas (Responses `response.output_text.done`): it is content
   * only when no content delta came before it (a server that sends text only there); otherwise it is a content
   * response without text, so the answer's last content time is the same as AIPerf's.
   */
  readonly finalContent?: string;
  readonly usage?: Usage;
  readonly finishReason?: string;
  /** What a finished video job reports about itself (server-measured). */
  readonly video?: { readonly inferenceTimeS?: number; readonly peakMemoryMb?: number };
  /** vLLM's per-request speculative-decoding statistics (`metrics.speculative_decoding`), as sent (`spec_decode.ts`). */
  readonly specDecode?: Readonly<Record<string, unknown>>;
  /** Set when the body is an API error object (`{"error": {...}}`) delivered with a 2xx status or in-stream. */
  readonly error?: { readonly message: string; readonly type?: string; readonly code?: number };
  /** The server's own timing of the request (llama.cpp `timings`, SGLang `meta_info`), usually on the last chunk. */
  readonly serverTiming?: ServerTiming;
}

/** What an endpoint type is, as data: the engine, the metric registry and the console read only this. */
export interface EndpointCapabilities {
  /**
   * Default URL path appended to the base URL (`--endpoint` overrides it); "" for an API with no usual path, whose
   * requests go to the URL as given (or to `--endpoint`).
   */
  readonly path: string;
  /** Path of streamed requests where the API uses another one (TGI `/generate_stream`). @default path */
  readonly streamingPath?: string;
  readonly method: "POST" | "GET";
  readonly supportsStreaming: boolean;
  /** Responses carry generated tokens (TTFT, ITL, OSL and token throughput apply). */
  readonly producesTokens: boolean;
  /** The prompt is text whose tokens are counted (ISL applies). */
  readonly tokenizesInput: boolean;
  readonly supportsReasoning: boolean;
  /**
   * What a synthetic dataset entry holds for this API: `prompts` (one prompt, or `--prompt-batch-size` of them) or
   * `rankings` (a text named `query` and texts named `passages`, sized by the `--rankings-*` options).
   * @default "prompts"
   */
  readonly syntheticInput?: "prompts" | "rankings";
  /** Console table title suffix: `infermeter | <metricsTitle>` (AIPerf's `metrics_title`). */
  readonly metricsTitle: string;
  /** AIPerf's service kind, used in `input_config`. */
  readonly serviceKind: string;
  /** Media kinds a turn may carry to this API (none when absent); a dataset with others is refused. */
  readonly media?: readonly MediaKind[];
  /** Why `--use-legacy-max-tokens` does not apply to this API (it has one output-cap field); the run is refused. */
  readonly refusesLegacyMaxTokens?: string;
  /** Turns may carry messages written in the dataset (`Turn.messages`, `Turn.tools`), sent as they are. */
  readonly literalMessages?: boolean;
  /** Every turn must carry one input of this kind (the audio to transcribe, the image to edit). */
  readonly requiresMedia?: MediaKind;
  /** Media must be inline (a data URL): the API takes no URL to fetch (AIPerf's `requires_inline_media`). */
  readonly inlineMediaOnly?: boolean;
  /**
   * Bodies go as multipart/form-data (`encodeBody`), the only content type the API takes (AIPerf's
   * `requires_form_data`).
   */
  readonly formData?: boolean;
  /** Answers carry no token usage (the output is counted by the client tokenizer only). @default true */
  readonly reportsUsage?: boolean;
  /** Answers are generated videos (the video metrics apply). */
  readonly producesVideos?: boolean;
}

/** A job's state as one submission or status answer says it. */
export interface JobState {
  /** The job id, where the answer names it. */
  readonly id?: string;
  readonly status: "pending" | "completed" | "failed";
  /** Why the job failed, for `failed`. */
  readonly error?: string;
}

/**
 * An API that answers a submission with a job to poll (AIPerf's `requires_polling`: `POST <path>` answers a job id,
 * `GET <path>/<id>` its status until it is completed or failed). The record spans from the submission to the status
 * answer that says completed, whose body is the one `parseBody` reads.
 */
export interface JobProtocol {
  /** Reads a submission or status body; undefined when it is not a job object. */
  readJob(json: unknown): JobState | undefined;
}

/** What an adapter may read from the run's options when it is configured ({@link EndpointAdapter.configure}). */
export interface AdapterSettings {
  /** `--extra-inputs` as given. */
  readonly extraInputs: Readonly<Record<string, unknown>>;
  /** Reads a file the user named (a payload template); relative paths resolve against the working directory. */
  readonly readTextFile?: (path: string) => string | undefined;
}

/** What the body of one request depends on besides the turn. */
export interface BuildContext {
  readonly model: string;
  readonly streaming: boolean;
  /** Requested output tokens (turn override, else synthetic OSL); undefined = field not sent. */
  readonly maxTokens?: number;
  /** Send the legacy `max_tokens` field instead of the API's current one (where the API has two). */
  readonly useLegacyMaxTokens: boolean;
  /** `--use-server-token-count`: ask the server for usage wherever the API makes that optional. */
  readonly useServerTokenCount: boolean;
  /** `--per-chunk-usage`: ask for cumulative usage on every streamed chunk (a vLLM / TensorRT-LLM extension). */
  readonly perChunkUsage?: boolean;
  /** `--extra-inputs`, merged after the adapter's fields and before the turn's `extra`. */
  readonly extraInputs: Readonly<Record<string, unknown>>;
  /** The conversation's system message. */
  readonly systemMessage?: string;
}

/**
 * One earlier turn of a conversation and the text the server actually answered; no reply where the dataset's turns
 * carry the answers themselves (`deltas_with_responses`).
 */
export interface PriorExchange {
  readonly turn: Turn;
  readonly reply?: string;
}

/** What a request's headers depend on. */
export interface HeaderContext {
  readonly streaming: boolean;
  /** SECRET: the credential, placed where this API expects it. */
  readonly apiKey?: string;
}

/** Responses in the adapter's wire format, as a server sends them. */
export interface SampleResponses {
  /** A streamed response body: SSE events (`data: …\n\n`) with at least one content delta, usage, and the end. */
  readonly stream: string;
  /** A complete non-streaming JSON body with content (or, for an API without tokens, its result) and usage. */
  readonly body: string;
}

/**
 * What is known of an endpoint type without loading its adapter (`endpoint_declarations.ts`): option checks,
 * planning and listings read only this.
 */
export interface EndpointDeclaration extends RegistryEntry {
  readonly capabilities: EndpointCapabilities;
}

export interface EndpointAdapter extends EndpointDeclaration {
  /**
   * The headers this API needs (content type, accept, credentials in its own form). Transport headers (Host,
   * Content-Length) are not the adapter's; the user's `-H` headers are applied after these.
   */
  headers(ctx: HeaderContext): ReadonlyArray<readonly [string, string]>;
  /**
   * The JSON body for one turn (pure; the same inputs give the same body). `history` holds the conversation's
   * earlier turns with the server's real replies; it is empty for the first turn, and always for an adapter whose
   * bodies never depend on it ({@link usesHistory} false).
   */
  buildRequest(turn: Turn, ctx: BuildContext, history: readonly PriorExchange[]): Record<string, unknown>;
  /** Whether `buildRequest` reads `history` (then later turns of a session are built when they are sent). */
  readonly usesHistory: boolean;
  /** Parse one SSE `data:` payload. `[DONE]` and keep-alive payloads return undefined. */
  parseEvent(data: string): Delta | undefined;
  /**
   * A reader of SSE payloads, which may keep what it learned from the earlier ones (a stream's chunks, and one
   * answer's chunks and the next's, repeat most of their bytes): the engine makes one per run and reads every
   * response's events with it. It must give what `parseEvent` gives for every payload, errors included, whatever it
   * read before. Absent: `parseEvent` reads each.
   */
  eventReader?(): (data: string) => Delta | undefined;
  /**
   * Whether this SSE payload ends the answer (OpenAI: `[DONE]`): the record is then complete even if the server
   * leaves the body open. Absent: the stream ends with the body.
   */
  isStreamEnd?(data: string): boolean;
  /** Parse a complete non-streaming JSON body. */
  parseBody(json: unknown): Delta;
  /**
   * A reader of non-streaming bodies' text, which may keep what it learned from the earlier ones (one answer's body
   * and the next's repeat most of their bytes): the engine makes one per run. For a body whose JSON is an object it
   * must give what `parseBody(JSON.parse(text))` gives, whatever it read before; undefined (or a throw) leaves the
   * body to the ordinary reading (`JSON.parse`, `parseTextBody`, the parse error). Absent: every body is parsed.
   */
  bodyReader?(): (text: string) => Delta | undefined;
  /**
   * Parse a complete non-streaming body that is not JSON, for an API whose answer may be plain text (a transcript
   * asked for as `text`, `srt` or `vtt`). Absent: such a body is a parse error.
   */
  parseTextBody?(text: string): Delta;
  /**
   * The text of a body (its UTF-8 bytes) as `parseBody` needs it parsed, when that is less than all of it
   * (embeddings: the vectors' numbers are checked in the bytes, not decoded or converted). Must keep every error
   * `JSON.parse` would raise. Absent: the whole text is parsed.
   */
  bodyForParse?(body: Uint8Array): string;
  /** The text whose token count is this turn's input sequence length (ISL). */
  inputText(turn: Turn, ctx: Pick<BuildContext, "systemMessage">): string;
  /**
   * For APIs whose server renders the model's chat template over the messages (chat, Anthropic messages): the
   * messages of this turn as role and text, which `--apply-chat-template` renders to count the ISL. Absent: the ISL
   * stays `inputText`.
   */
  chatMessages?(turn: Turn, ctx: Pick<BuildContext, "systemMessage">): ChatMessage[];
  readonly sampleResponses: SampleResponses;
  /**
   * The adapter builds no bodies: it sends only request bodies written in the dataset (`Turn.rawPayload`), and a
   * dataset without them is refused before the run. @default false
   */
  readonly writtenBodiesOnly?: boolean;
  /**
   * For an API whose requests depend on run options that need work before the first body (a Jinja payload
   * template to read and compile): returns the adapter configured for this run, once on every engine thread.
   * @throws {Error} naming the option when the settings are unusable.
   */
  configure?(settings: AdapterSettings): Promise<EndpointAdapter>;
  /** Settings with which `configure` succeeds, for the conformance suite and examples; required with `configure`. */
  readonly exampleSettings?: AdapterSettings;
  /**
   * The body's bytes when they are not the body's JSON (multipart uploads: `multipart_form.ts`).
   * @throws {TypeError} naming the field when the body cannot be encoded.
   * @default the UTF-8 JSON text of the body
   */
  encodeBody?(body: Readonly<Record<string, unknown>>): Uint8Array<ArrayBuffer>;
  /** Present for an API whose answers are jobs to poll. */
  readonly job?: JobProtocol;
  /** Output tokens a built body asks for, where the API spells it its own way. @default `max_completion_tokens`,
   * `max_tokens` or `max_output_tokens` at the top level */
  requestedOutputTokens?(body: Readonly<Record<string, unknown>>): number | undefined;
}

/** The path a request goes to: the streaming path when the API has one and the run streams. */
export function requestPath(caps: EndpointCapabilities, streaming: boolean): string {
  return streaming && caps.streamingPath !== undefined ? caps.streamingPath : caps.path;
}

const BODY_ENCODER = new TextEncoder();

/** The bytes sent for a body the adapter built: its own encoding, else the body's JSON text. */
export function encodeRequestBody(
  adapter: EndpointAdapter,
  body: Readonly<Record<string, unknown>>,
): Uint8Array<ArrayBuffer> {
  return adapter.encodeBody ? adapter.encodeBody(body) : BODY_ENCODER.encode(JSON.stringify(body));
}
