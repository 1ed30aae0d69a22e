/**
 * Client-side load balancing over several `--url` values (AIPerf `--url-strategy round_robin`): each new session
 * takes the next URL in turn and its later turns stick to it (a server keeps its context). One HttpClient per
 * target; the request path is the endpoint path, and each target's base path is prepended here.
 *
 * Also the way past one server process's limits: 20k streams can be spread over several `serve-sim`
 * instances, or one destination's ephemeral ports over several ports.
 */
import { HttpClient, type HttpClientOptions, type TransportActivity } from "../transport/http_client.ts";
import type { HttpExchange, HttpRequest, SendOptions, Target } from "../transport/http_exchange.ts";
import type { RequestRoute, RequestSender } from "./request_executor.ts";
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
  /** The URL of each multi-turn session in progress, by session number. */
  readonly #sticky = new Map<number, number>();

  /** `explicitEndpoint`: the path came from `--endpoint` (appended as given; see `targetPath`). */
  constructor(targets: readonly Target[], options: HttpClientOptions, explicitEndpoint = false) {
    if (targets.length === 0) throw new RangeError("a TargetSet needs at least one target");
    this.#targets = targets;
    this.#clients = targets.map((t) => new HttpClient(t, options));
    this.#explicitEndpoint = explicitEndpoint;
  }

  send(req: HttpRequest, opts?: SendOptions, route?: RequestRoute): Promise<HttpExchange> {
    const i = this.#pick(route);
    const base = this.#targets[i].basePath;
    const joined = base === "" ? req.path : targetPath(base, req.path, this.#explicitEndpoint);
    const path = joined === "" ? "/" : joined;
    return this.#clients[i].send(path === req.path ? req : { ...req, path }, opts);
  }

  /** Opens `count` connections now, shared round robin over the targets as the requests will be. */
  async prewarm(count: number): Promise<{ opened: number; error?: string }> {
    const n = this.#clients.length;
    const done = await Promise.all(
      this.#clients.map((c, i) => c.prewarm(Math.floor(count / n) + (i < count % n ? 1 : 0))),
    );
    return { opened: done.reduce((a, d) => a + d.opened, 0), error: done.find((d) => d.error)?.error };
  }

  /** What each target's requests are doing now (for the stall notice). */
  activity(): TransportActivity[] {
    return this.#clients.map((c) => c.activity());
  }

  #pick(route: RequestRoute | undefined): number {
    if (this.#clients.length === 1) return 0;
    if (route !== undefined && route.turn > 0) {
      const held = this.#sticky.get(route.session);
      if (held !== undefined) {
        if (route.lastTurn) this.#sticky.delete(route.session);
        return held;
      }
    }
    const i = this.#next;
    this.#next = i + 1 === this.#clients.length ? 0 : i + 1;
    if (route !== undefined && !route.lastTurn) this.#sticky.set(route.session, i);
    return i;
  }

  close(): void {
    for (const c of this.#clients) c.close();
  }
}
