/**
 * The run's events (its Job's and its pods') said as they happen while the shards start — FailedScheduling,
 * ImagePullBackOff, a pod the Pod Security admission refused (a FailedCreate on the Job) — so a run that cannot
 * start says why instead of "shards ready 0/N" until its ready timeout. Each distinct event is said once.
 */
import type { Logger } from "../ui/logger.ts";
import { KubeApiError, type KubeObject } from "./kube_client.ts";

interface Event extends KubeObject {
  involvedObject?: { kind?: string; name?: string };
  reason?: string;
  message?: string;
  type?: string;
}

export class RunEvents {
  readonly #api: { get<T>(path: string): Promise<T> };
  readonly #path: string;
  readonly #run: string;
  readonly #logger: Logger;
  readonly #said = new Set<string>();
  #off = false;

  constructor(api: { get<T>(path: string): Promise<T> }, namespace: string, run: string, logger: Logger) {
    this.#api = api;
    this.#path = `/api/v1/namespaces/${namespace}/events`;
    this.#run = run;
    this.#logger = logger;
  }

  /** Says the events not said yet: warnings as warnings, the rest (scheduled, pulled, started) at debug level. */
  async poll(): Promise<void> {
    if (this.#off) return;
    let items: Event[];
    try {
      items = (await this.#api.get<{ items: Event[] }>(this.#path)).items;
    } catch (err) {
      // No right to list events (preflight said so), or a passing error: the run does not depend on them.
      if (err instanceof KubeApiError && (err.status === 403 || err.status === 401)) this.#off = true;
      return;
    }
    for (const e of items) {
      const name = e.involvedObject?.name ?? "";
      if (name !== this.#run && !name.startsWith(`${this.#run}-`)) continue;
      const key = `${name}|${e.reason}|${e.message}`;
      if (this.#said.has(key)) continue;
      this.#said.add(key);
      const line = `${e.involvedObject?.kind ?? "object"} ${name}: ${e.reason ?? "event"}: ${e.message ?? ""}`.trim();
      if (e.type === "Warning") this.#logger.warning(line);
      else this.#logger.debug(line);
    }
  }
}
