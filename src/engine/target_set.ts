/**
 * Client-side load balancing over several `--url` values (AIPerf: round robin between sessions; a session's later
 * turns stay on the URL of its first). One HttpClient per target; the request path is the endpoint path, and each
 * target's base path is prepended here (an empty endpoint path sends to the URL's own path).
 *
 * Also the way past one server process's limits: 20k streams can be spread over several `serve-sim`
 * instances, or one destination's ephemeral ports over several ports.
 */
import { HttpClient, type HttpClientOptions, type TransportActivity } from "../transport/http_client.ts";
import type { HttpExchange, HttpRequest, SendOptions, Target } from "../transport/http_exchange.ts";
import type { RequestSender } from "./request_executor.ts";
import { targetPath } from "./request_headers.ts";

/**
 * Connection setup of a profile run is bounded by the request timeout and by this. Under the request timeout
 * alone (AIPerf's 6 h default) a server that never completes a connection (listen backlog full, packets dropped)
 * hangs the run in silence; 30 s is far above any healthy accept, even behind a full backlog's SYN retries
 * (1 + 3 + 7 + 15 s), and fails with its own error type (`ConnectTimeoutError`).
 */
export const CONNECT_TIMEOUT_MS = 30_000;

export class TargetSet implements RequestSender {
  readonly #targets: readonly Target[];
  readonly #clients: readonly HttpClient[];
  readonly #explicitEndpoint: boolean;
  #next = 0;

  /** `explicitEndpoint`: the path came from `--endpoint` (appended as given; see `targetPath`). */
  constructor(targets: readonly Target[], options: HttpClientOptions, explicitEndpoint = false) {
    if (targets.length === 0) throw new RangeError("a TargetSet needs at least one target");
    this.#targets = targets;
    this.#clients = targets.map((t) => new HttpClient(t, options));
    this.#explicitEndpoint = explicitEndpoint;
  }

  /** `affinity` (a session index) picks target `affinity mod n`; without it, targets take turns. */
  send(req: HttpRequest, opts?: SendOptions, affinity?: number): Promise<HttpExchange> {
    let i: number;
    if (affinity !== undefined) i = affinity % this.#clients.length;
    else {
      i = this.#next;
      this.#next = i + 1 === this.#clients.length ? 0 : i + 1;
    }
    const base = this.#targets[i].basePath;
    const joined = base === "" ? req.path : targetPath(base, req.path, this.#explicitEndpoint);
    const path = joined === "" ? "/" : joined;
    return this.#clients[i].send(path === req.path ? req : { ...req, path }, opts);
  }

  /** What each target's requests are doing now (for the stall notice). */
  activity(): TransportActivity[] {
    return this.#clients.map((c) => c.activity());
  }

  close(): void {
    for (const c of this.#clients) c.close();
  }
}
