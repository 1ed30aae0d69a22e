/**
 * Client-side load balancing over several `--url` values (AIPerf: round robin; a session's later turns would
 * stick to its first URL — every request is its own session until multi-turn lands). One HttpClient per
 * target; the request path is the endpoint path, and each target's base path is prepended here.
 *
 * Also the way past one server process's limits: 20k streams can be spread over several `serve-sim`
 * instances, or one destination's ephemeral ports over several ports.
 */
import { HttpClient, type HttpClientOptions } from "../transport/http_client.ts";
import type { HttpExchange, HttpRequest, SendOptions, Target } from "../transport/http_exchange.ts";
import type { RequestSender } from "./request_executor.ts";
import { targetPath } from "./request_headers.ts";

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

  send(req: HttpRequest, opts?: SendOptions): Promise<HttpExchange> {
    const i = this.#next;
    this.#next = i + 1 === this.#clients.length ? 0 : i + 1;
    const base = this.#targets[i].basePath;
    const path = base === "" ? req.path || "/" : targetPath(base, req.path, this.#explicitEndpoint);
    return this.#clients[i].send(path === req.path ? req : { ...req, path }, opts);
  }

  close(): void {
    for (const c of this.#clients) c.close();
  }
}
