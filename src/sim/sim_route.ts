/**
 * The simulator's side of an endpoint type: everything about one API's wire format lives in its route module
 * (`src/sim/routes/<name>.ts`, registered in `sim_route_registry.ts` under the endpoint type name it serves), and
 * the shared machinery — app wiring, length plan, token clock, stream scheduler, SSE emission, stats, errors —
 * knows none of it.
 *
 * A route owns: its paths; reading and validating a request body into the shared {@link GenerationRequest} (a 400
 * `SimRequestError` for a malformed one); the response id prefix; the non-streaming body; and, for a streamed
 * answer, every byte of the stream — event names (`event:` lines) included — through a {@link StreamFraming} it
 * builds once per response. The shared `SseEmitter` decides when tokens are due and how they are grouped into
 * chunks; the framing turns each chunk into wire text.
 *
 * How the upcoming types fit:
 * - typed event lifecycles (OpenAI Responses `response.created` … `response.completed`, Anthropic `message_start` …
 *   `message_stop`): `open()` writes the opening events, `chunk()` the deltas (a framing is stateful, so it can close
 *   a thinking block and open a text block when the phase changes, and keep the full text for a final event),
 *   `close()` the closing events;
 * - several paths per type (TGI `/generate` and `/generate_stream`): `parse()` is told the path and decides `stream`;
 * - non-generating answers (embeddings, rankings): `maxTokens: 0` gives an empty plan and an immediate answer,
 *   whose body the route builds from the prompt;
 * - another credential header (Anthropic `x-api-key`): {@link SimRoute.credential}.
 */
import type { RegistryEntry } from "../base/registry.ts";
import type { GenerationRequest } from "./generation_request.ts";
import type { GenerationPlan } from "./plan_generation.ts";
import type { EmbeddingVectors } from "./embedding_vector.ts";

export interface SimRoute extends RegistryEntry {
  /** POST paths this route answers; the client adapter of the same name sends to one of them. */
  readonly paths: readonly string[];
  /** Endpoint types besides its name whose requests this route answers (several types share `/v1/embeddings`). */
  readonly servesTypes?: readonly string[];
  /** Start of every response id, separator included (`chatcmpl-`, `resp_`, `msg_`). */
  readonly idPrefix: string;
  /**
   * How request bodies are written: JSON, or multipart/form-data uploads (read into an object of text fields and
   * {@link SimFormFile}s, in the body's order). @default "json"
   */
  readonly bodyFormat?: "json" | "form";
  /**
   * Answers jobs (`RouteRequest.job`): besides its POST paths, `GET <path>/<id>` answers a job's status and
   * `GET <path>/<id>/content` its content.
   */
  readonly jobs?: boolean;
  /**
   * Reads a decoded body sent to `path` (JSON, or the form's fields); `headers` are the request's, for an API that
   * is asked to stream by `Accept` rather than a body field.
   * @throws {SimRequestError} 400 naming the offending field.
   */
  parse(body: unknown, path: string, headers?: Headers): RouteRequest;
  /**
   * The API key the request presents, read where this API carries it; undefined = none.
   * @default the token of `Authorization: Bearer <key>`
   */
  credential?(headers: Headers): string | undefined;
}

/** One parsed request: what to generate, and how this API writes the answer (its own request options included). */
export interface RouteRequest {
  readonly generation: GenerationRequest;
  /** The whole non-streamed answer; `reasoning` and `content` are the generated texts. */
  body(reply: ReplyContext, reasoning: string, content: string): string;
  /** The framing of one streamed answer; fragments that repeat per event are best precomputed here. */
  stream(reply: ReplyContext): StreamFraming;
  /**
   * Present when the answer is a job (video generation): `body` is then the submission's answer, written at once,
   * and the job runs on for `steps` generation steps — the first after the time to first token, each further one
   * after an inter-token latency — while `GET <path>/<id>` answers `status` of it.
   */
  readonly job?: SimJob;
}

/** A file of a multipart upload, as a form route reads it. */
export interface SimFormFile {
  readonly filename: string;
  readonly contentType: string;
  readonly bytes: Uint8Array;
}

export function isSimFormFile(v: unknown): v is SimFormFile {
  return typeof v === "object" && v !== null && (v as SimFormFile).bytes instanceof Uint8Array;
}

/** A job the simulator runs after answering its submission. */
export interface SimJob {
  /** Generation steps (≥ 0): the job takes `ttft + itl·(steps − 1)`, or `ttft` for 0. */
  readonly steps: number;
  /** The job object `elapsedMs` after its submission, the job taking `durationMs` in all (done once elapsed ≥ it). */
  status(reply: ReplyContext, elapsedMs: number, durationMs: number): string;
  /** The finished job's content and its media type. */
  content(): { readonly body: Uint8Array<ArrayBuffer>; readonly contentType: string };
}

/** What one answer is, for its route to write. */
export interface ReplyContext {
  /** `idPrefix` + 16 hex digits, seeded. */
  readonly id: string;
  /** Unix seconds. */
  readonly created: number;
  /** The model named by the request, else the server's first. */
  readonly model: string;
  readonly plan: GenerationPlan;
  /** Length of every embedding vector unless the request asks for fewer (`serve-sim --embedding-dimensions`). */
  readonly embeddingDimensions: number;
  /** The server's vectors already written (see `EmbeddingVectors`). */
  readonly vectors: EmbeddingVectors;
  /**
   * Stamp every streamed event with `"sim_sent_at_ms"`: `performance.timeOrigin + performance.now()` taken as the
   * event is built, right before it is written (`serve-sim --emit-send-times`).
   */
  readonly emitSendTimes: boolean;
  /**
   * Add llama.cpp's `timings` (measured prompt and generation times) to the end of a streamed answer: `arrival` is
   * when the request was read (`performance.now()`); undefined = report none (`serve-sim --server-timing`).
   */
  readonly llamaCppTimings?: { readonly arrival: number };
}

/**
 * The wire text of one streamed answer, event by event. Generated texts are words of lowercase ASCII letters and
 * spaces, so they can be spliced into JSON strings without escaping. `sent` and `reasoningSent` count tokens
 * emitted so far, the current chunk included.
 */
export interface StreamFraming {
  /** The events before the first token (written together with it); "" for none. */
  open(): string;
  /**
   * One chunk: `text` is one or more tokens, all reasoning or all content (reasoning comes first). The last chunk
   * has `sent === plan.reasoningTokens + plan.contentTokens`.
   */
  chunk(text: string, reasoning: boolean, sent: number, reasoningSent: number): string;
  /** Everything after the last chunk (finish, usage, the end marker), due with the last chunk. */
  close(sent: number, reasoningSent: number): string;
}
