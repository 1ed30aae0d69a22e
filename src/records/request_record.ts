/**
 * One request's outcome as the engine hands it on: timestamps, response texts and errors, never exceptions.
 *
 * Time base: every `*At` field and `responseTimes` entry is milliseconds (float, µs resolution) on the run
 * clock, i.e. `performance.now()` of the main thread. Workers convert their own clock before handing a record
 * over, so records from all shards compare directly. Wall-clock epoch ms = `run.timeOriginMs + t`.
 */
import type { Usage } from "../endpoints/endpoint_adapter.ts";
import type { ServerTiming } from "../endpoints/server_timing.ts";
import type { InputPrompt } from "../dataset/payload_text.ts";
import type { PhaseName } from "../timing/phase_spec.ts";
import type { SpecDecodeAcceptance } from "../endpoints/spec_decode.ts";

/** The phase a request belonged to. */
export type Phase = PhaseName;

/** A per-request failure, summarized by (type, code, message) in the error summary. */
export interface RecordError {
  /** Class of failure: `HTTPError`, `TimeoutError`, `ConnectionError`, `ProtocolError`, `ParseError`,
   * `RequestCancellationError`, or the API error `type` reported by the server. */
  readonly type: string;
  /** HTTP status when there was one; 499 for cancellation (AIPerf). */
  readonly code?: number;
  readonly message: string;
  /**
   * The error summary's message for this kind of failure when `message` carries per-request detail (byte
   * counts, timings): records with the same type, code and group are one summary row.
   */
  readonly group?: string;
}

/**
 * Where a child session's request sits in its session tree (agent DAGs: a sub-agent started by a parent's turn),
 * as AIPerf's record metadata says it. Absent on a root session's requests (depth 0, its own correlation id as root).
 */
export interface RecordLineage {
  /** 1 for a child of a root, 2 for its child, … */
  readonly agentDepth: number;
  /** The correlation id of the session that started this one. */
  readonly parentCorrelationId: string;
  /** The correlation id of the tree's root session. */
  readonly rootCorrelationId: string;
}

export interface RequestRecord {
  readonly phase: Phase;
  /** 0-based index of this request within its phase, unique across shards. */
  readonly requestIndex: number;
  /** 0-based index of the virtual-user session that sent it (AIPerf `session_num`). */
  readonly sessionNum: number;
  readonly conversationId: string;
  readonly turnIndex: number;
  /** The last turn of its conversation: a successful one completes the session (AIPerf `is_final_turn`). */
  readonly isFinalTurn?: boolean;
  /** Value of the `X-Request-ID` header sent. */
  readonly xRequestId: string;
  /** Value of the `X-Correlation-ID` header sent (stable per session). */
  readonly xCorrelationId: string;
  /** Shard / worker that sent it, e.g. `worker_0`. */
  readonly workerId: string;
  /** A child session's place in its tree; absent for a root session. */
  readonly lineage?: RecordLineage;

  /** When the permit for this request was issued (closed loop: when the slot became free). */
  readonly creditIssuedAt: number;
  /** Open-loop schedules: when the request was due. `startAt - scheduledAt` is the lateness. */
  readonly scheduledAt?: number;
  /** `scheduledAt` is the trace's own timestamp (fixed-schedule replay), not a rate tick or a think time. */
  readonly timestampScheduled?: boolean;
  /** Taken immediately before the request bytes are written (AIPerf `start_perf_ns`). */
  readonly startAt: number;
  /** Request bytes fully handed to the socket. */
  readonly sentAt?: number;
  /** Status line and headers fully received (AIPerf `recv_start_perf_ns` / `request_ack`). */
  readonly headersAt?: number;
  /** Last byte received, or the moment the failure was detected. */
  readonly endAt: number;

  /** Arrival time (first byte) of each content response: SSE events carrying text, reasoning or tool calls,
   * or the single body of a non-streaming response. */
  readonly responseTimes: readonly number[];
  /** Arrival of the first response whose non-reasoning content is non-empty (TTFO). */
  readonly firstOutputAt?: number;
  /** Arrival of the last response of any kind, including usage-only chunks. */
  readonly lastResponseAt?: number;

  readonly status?: number;
  /** Concatenated non-reasoning output text, tool-call text included (counted as output tokens). */
  readonly content: string;
  /** Concatenated reasoning text (`reasoning_content` / `reasoning`). */
  readonly reasoning: string;
  /** Last non-null usage seen. */
  readonly usage?: Usage;
  /** The server's own timing split of this request (llama.cpp `timings`, TGI / OpenAI headers, SGLang
   * `meta_info`); absent when the server reports none. Server-clock durations in ms. */
  readonly serverTiming?: ServerTiming;
  readonly finishReason?: string;
  readonly error?: RecordError;
  readonly cancelled: boolean;
  /**
   * Cancelled because its phase was stopped (the run stopped, or a duration's grace period ended), not as planned by
   * `--request-cancellation-rate`. When the run stopped itself (failed-request threshold, server gone), such a record
   * is neither a success nor an error of the server's: the summary leaves it out (it is in `cancelled_requests`).
   */
  readonly stopCancelled?: true;

  /** ISL from the dataset entry (client tokenizer), when the endpoint tokenizes input. */
  readonly inputTokens?: number;
  /**
   * The prompt of a body built when it was sent (a later turn carrying the conversation so far): its ISL is the
   * token count of this prompt, counted with the output off the request path, instead of `inputTokens`.
   */
  readonly inputPrompt?: InputPrompt;
  /** Output tokens requested (`max_tokens` / `max_completion_tokens` sent), if any. */
  readonly requestedOutputTokens?: number;
  /**
   * Times the request was sent again on a fresh connection because it certainly never reached the server on the
   * kept-alive one it went out on (its first write failed, or the server answered 408); absent when never.
   */
  readonly connectionRetries?: number;
  /** Whether the request went over a kept-alive connection. */
  readonly connectionReused?: boolean;
  readonly bytesSent?: number;
  readonly bytesReceived?: number;
  /** HTTP trace (run clock), from the transport where the bytes move: waiting for a free pooled connection. */
  readonly poolWaitStartAt?: number;
  readonly poolWaitEndAt?: number;
  /** A new connection's TCP (+TLS) set-up; absent when a kept-alive one was reused. Includes name resolution. */
  readonly connectStartAt?: number;
  readonly connectEndAt?: number;
  /** The first request byte is about to be written. */
  readonly writeStartAt?: number;
  /** First / last read that carried response body bytes (the head's read counts when it carried body too). */
  readonly firstBodyAt?: number;
  readonly lastBodyAt?: number;
  /** Socket writes the request took, and reads that carried response body bytes. */
  readonly chunksSent?: number;
  readonly chunksReceived?: number;
  /** Request body bytes, and response body bytes after de-chunking (AIPerf's HTTP data counts). */
  readonly bodyBytesSent?: number;
  readonly bodyBytesReceived?: number;
  /** `--export-level raw` only: every response payload as received (SSE `data`, or the whole body). */
  readonly rawResponses?: readonly RawResponse[];
  /**
   * The request body exactly as sent, with `--export-level raw` or `--bundle` only (history-built turns differ from
   * inputs.json).
   */
  readonly sentBody?: string;
  /** Video generation: the server's own generation time (`inference_time_s`) and peak GPU memory (`peak_memory_mb`). */
  readonly videoInferenceTimeS?: number;
  readonly videoPeakMemoryMb?: number;
  /** The server's speculative-decoding statistics of this request (vLLM), engine-neutral; absent when not reported. */
  readonly specDecode?: SpecDecodeAcceptance;
}

/** One received payload and the arrival time of its first byte (run clock). */
export interface RawResponse {
  readonly t: number;
  readonly text: string;
}

/** A record after token counting, off the hot path. Counts are undefined when they cannot be known. */
export interface ProcessedRecord extends RequestRecord {
  /** Tokens of `content` (client tokenizer) or server usage when `--use-server-token-count`. */
  readonly outputTokens?: number;
  /** Tokens of `reasoning`. */
  readonly reasoningTokens?: number;
  /** ISL used by metrics (client count, or server `prompt_tokens` with server token counts). */
  readonly isl?: number;
}

/** Run-level time information every consumer needs to turn run-clock times into wall-clock times. */
export interface RunClock {
  /** `performance.timeOrigin` of the main thread: epoch ms at run-clock 0. */
  readonly timeOriginMs: number;
}
