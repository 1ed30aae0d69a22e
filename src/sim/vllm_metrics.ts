/**
 * A vLLM-style Prometheus endpoint for the simulator: the families vLLM's `/metrics` serves and people watch —
 * running and waiting requests, KV-cache use, prompt and generation token counters, successes by finish reason,
 * and TTFT, inter-token, end-to-end and queue-time histograms in seconds with vLLM's bucket bounds — fed by the
 * simulator as it answers. Every request starts at once (the simulator has no queue), so `waiting` and queue
 * times are 0; KV-cache use is the tokens held by running requests over a nominal 64 Ki-token cache.
 */
import type { SpecDecodeSim } from "./spec_decode_plan.ts";
import { PrometheusWriter } from "../telemetry/prometheus_writer.ts";

const TTFT_BOUNDS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80];
const ITL_BOUNDS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80];
const E2E_BOUNDS = [0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680];
/** Nominal KV-cache size, tokens. */
const KV_CACHE_TOKENS = 65536;

class Histogram {
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(readonly bounds: readonly number[]) {
    this.counts = bounds.map(() => 0);
  }
  /** `times` observations of `value` (inter-token gaps of one request share one mean). */
  observe(value: number, times = 1): void {
    if (times <= 0) return;
    for (let i = 0; i < this.bounds.length; i++) if (value <= this.bounds[i]) this.counts[i] += times;
    this.sum += value * times;
    this.count += times;
  }
}

export interface FinishedRequest {
  readonly promptTokens: number;
  readonly outputTokens: number;
  /** Arrival to first token, s (to the whole answer when not streamed). */
  readonly ttftSec: number;
  /** Arrival to last byte, s. */
  readonly e2eSec: number;
  /** Arrival to the start of generation (waiting for a slot), s. */
  readonly queueSec: number;
  readonly finishReason: string;
  /** The answer's speculative-decoding steps (`--spec-decode-tokens`). */
  readonly specDecode?: SpecDecodeSim;
}

export class VllmMetrics {
  readonly #model: string;
  #running = 0;
  #runningTokens = 0;
  #promptTokens = 0;
  #generationTokens = 0;
  readonly #success = new Map<string, number>();
  readonly #ttft = new Histogram(TTFT_BOUNDS);
  readonly #itl = new Histogram(ITL_BOUNDS);
  readonly #e2e = new Histogram(E2E_BOUNDS);
  readonly #queue = new Histogram(E2E_BOUNDS);
  /** vLLM's speculative-decoding counters, from the start when it simulates it (vLLM shows them only when on). */
  #spec: { drafts: number; draftTokens: number; accepted: number } | undefined;

  readonly #waiting: () => number;

  /** `waiting` counts the requests waiting for a slot now; `specDecode`: the server simulates speculative decoding. */
  constructor(model: string, waiting: () => number = () => 0, specDecode = false) {
    this.#model = model;
    this.#waiting = waiting;
    if (specDecode) this.#spec = { drafts: 0, draftTokens: 0, accepted: 0 };
  }

  /** A request began generating; `tokens` it will hold in the cache (prompt + output). */
  started(tokens: number): void {
    this.#running++;
    this.#runningTokens += tokens;
  }

  /** It ended (any outcome); `tokens` as given to `started`, `done` when it produced an answer. */
  ended(tokens: number, done?: FinishedRequest): void {
    this.#running = Math.max(0, this.#running - 1);
    this.#runningTokens = Math.max(0, this.#runningTokens - tokens);
    if (done === undefined) return;
    this.#promptTokens += done.promptTokens;
    this.#generationTokens += done.outputTokens;
    this.#success.set(done.finishReason, (this.#success.get(done.finishReason) ?? 0) + 1);
    this.#ttft.observe(done.ttftSec);
    if (done.outputTokens > 1) {
      this.#itl.observe((done.e2eSec - done.ttftSec) / (done.outputTokens - 1), done.outputTokens - 1);
    }
    this.#e2e.observe(done.e2eSec);
    this.#queue.observe(done.queueSec);
    if (done.specDecode !== undefined) {
      const spec = this.#spec ??= { drafts: 0, draftTokens: 0, accepted: 0 };
      spec.drafts += done.specDecode.perStepAccepted.length;
      spec.draftTokens += done.specDecode.perStepAccepted.length * done.specDecode.k;
      spec.accepted += done.specDecode.perStepAccepted.reduce((a, b) => a + b, 0);
    }
  }

  /** Prometheus text. */
  render(): string {
    const labels = { engine: "0", model_name: this.#model };
    const hist = (h: Histogram) => [{
      labels,
      bounds: h.bounds,
      cumulative: h.counts,
      sum: h.sum,
      count: h.count,
    }];
    const reasons = [...new Set(["stop", "length", ...this.#success.keys()])].sort();
    const writer = new PrometheusWriter()
      .gauge("vllm:num_requests_running", "Number of requests in model execution batches.", [{
        labels,
        value: this.#running,
      }])
      .gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", [{
        labels,
        value: this.#waiting(),
      }])
      .gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", [{
        labels,
        value: Math.min(1, this.#runningTokens / KV_CACHE_TOKENS),
      }])
      .counter("vllm:num_preemptions_total", "Cumulative number of preemption from the engine.", [{ labels, value: 0 }])
      .counter("vllm:prompt_tokens_total", "Number of prefill tokens processed.", [{
        labels,
        value: this.#promptTokens,
      }])
      .counter("vllm:generation_tokens_total", "Number of generation tokens processed.", [{
        labels,
        value: this.#generationTokens,
      }])
      .counter(
        "vllm:request_success_total",
        "Count of successfully processed requests.",
        reasons.map((r) => ({ labels: { ...labels, finished_reason: r }, value: this.#success.get(r) ?? 0 })),
      )
      .histogram("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", hist(this.#ttft))
      .histogram("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", hist(this.#itl))
      .histogram("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", hist(this.#e2e))
      .histogram(
        "vllm:request_queue_time_seconds",
        "Histogram of time spent in WAITING phase for request.",
        hist(this.#queue),
      );
    const spec = this.#spec;
    if (spec !== undefined) {
      writer
        .counter("vllm:spec_decode_num_drafts_total", "Number of spec decoding drafts.", [{
          labels,
          value: spec.drafts,
        }])
        .counter("vllm:spec_decode_num_draft_tokens_total", "Number of draft tokens.", [{
          labels,
          value: spec.draftTokens,
        }])
        .counter("vllm:spec_decode_num_accepted_tokens_total", "Number of accepted tokens.", [{
          labels,
          value: spec.accepted,
        }]);
    }
    return writer.text();
  }
}
