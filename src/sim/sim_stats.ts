/**
 * Counters and gauges of the simulated server, readable live (`SimServer.stats`) and as Prometheus text
 * (`GET /metrics`). Only inference requests (the paths of the simulator routes) are counted, so scraping
 * `/metrics` or polling health never shows up as load.
 */

export class SimStats {
  /** Inference requests being answered now (a stream counts until its last byte is enqueued or it is cancelled). */
  inFlight = 0;
  /** Highest `inFlight` seen since start. */
  maxInFlight = 0;
  /** Sum of `completion_tokens` actually produced (a cancelled stream counts what it sent). */
  outputTokensTotal = 0;
  /** Sum of `prompt_tokens` of answered requests. */
  promptTokensTotal = 0;
  readonly #requests = new Map<string, number>();
  /** Injected faults by kind (`disconnect`, `stall`), counted when decided. */
  readonly #faults = new Map<string, number>();
  /** Media inputs of answered requests by kind (`image`, `audio`, `video`). */
  readonly #media = new Map<string, number>();

  /** A request entered a handler. */
  begin(): void {
    this.inFlight++;
    if (this.inFlight > this.maxInFlight) this.maxInFlight = this.inFlight;
  }

  /** A request left a handler (any outcome). */
  end(): void {
    this.inFlight--;
  }

  /** Count one answered request; called once per request when its status is decided. */
  count(endpoint: string, status: number): void {
    const key = `${endpoint}\u0000${status}`;
    this.#requests.set(key, (this.#requests.get(key) ?? 0) + 1);
  }

  /** Count one injected fault. */
  fault(kind: string): void {
    this.#faults.set(kind, (this.#faults.get(kind) ?? 0) + 1);
  }

  /** Count the media inputs of one answered request. */
  mediaInputs(counts: Readonly<Partial<Record<string, number>>>): void {
    for (const [kind, n] of Object.entries(counts)) this.#media.set(kind, (this.#media.get(kind) ?? 0) + (n ?? 0));
  }

  /** Media inputs of one kind received in answered requests (0 when none). */
  media(kind: string): number {
    return this.#media.get(kind) ?? 0;
  }

  /** Injected faults of one kind (0 when none). */
  faults(kind: string): number {
    return this.#faults.get(kind) ?? 0;
  }

  /** Answered requests for one endpoint and status (0 when none). */
  requests(endpoint: string, status: number): number {
    return this.#requests.get(`${endpoint}\u0000${status}`) ?? 0;
  }

  /** All answered requests. */
  get requestsTotal(): number {
    let sum = 0;
    for (const n of this.#requests.values()) sum += n;
    return sum;
  }

  /** Prometheus text exposition format 0.0.4. */
  toPrometheus(): string {
    const lines = [
      "# HELP sim_requests_total Inference requests answered, by endpoint path and HTTP status.",
      "# TYPE sim_requests_total counter",
    ];
    const keys = [...this.#requests.keys()].sort();
    for (const key of keys) {
      const [endpoint, status] = key.split("\u0000");
      lines.push(
        `sim_requests_total{endpoint="${escapeLabel(endpoint)}",status="${status}"} ${this.#requests.get(key)}`,
      );
    }
    lines.push(
      "# HELP sim_requests_in_flight Inference requests being answered now.",
      "# TYPE sim_requests_in_flight gauge",
      `sim_requests_in_flight ${this.inFlight}`,
      "# HELP sim_requests_max_in_flight Highest number of inference requests in flight since start.",
      "# TYPE sim_requests_max_in_flight gauge",
      `sim_requests_max_in_flight ${this.maxInFlight}`,
      "# HELP sim_output_tokens_total Completion tokens produced (reasoning included).",
      "# TYPE sim_output_tokens_total counter",
      `sim_output_tokens_total ${this.outputTokensTotal}`,
      "# HELP sim_prompt_tokens_total Prompt tokens of answered requests.",
      "# TYPE sim_prompt_tokens_total counter",
      `sim_prompt_tokens_total ${this.promptTokensTotal}`,
      "# HELP sim_faults_total Faults injected (--disconnect-rate, --stall-rate), by kind.",
      "# TYPE sim_faults_total counter",
      ...[...this.#faults.keys()].sort().map((kind) => `sim_faults_total{kind="${kind}"} ${this.#faults.get(kind)}`),
      "# HELP sim_media_inputs_total Images, audio clips and videos received in answered requests, by kind.",
      "# TYPE sim_media_inputs_total counter",
      ...[...this.#media.keys()].sort().map((kind) =>
        `sim_media_inputs_total{kind="${kind}"} ${this.#media.get(kind)}`
      ),
    );
    return lines.join("\n") + "\n";
  }
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}
