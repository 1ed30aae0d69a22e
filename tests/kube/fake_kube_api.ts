/**
 * An in-memory stand-in for the part of the Kubernetes API the records transport uses (RecordsApi): create (409
 * on a taken name), get and list with label selectors, JSON merge patch of metadata, watch from a resourceVersion,
 * and waitFor. Failures can be injected per call. The real API server is exercised by kube_run_e2e_test.ts.
 */
import { KubeApiError, type KubeObject, type WatchEvent } from "../../src/kube/kube_client.ts";
import type { RecordsApi } from "../../src/kube/records_channel.ts";

interface Stored {
  readonly collection: string;
  object: KubeObject;
}

export class FakeKubeApi implements RecordsApi {
  readonly #objects = new Map<string, Stored>();
  readonly #events: { rv: number; collection: string; event: WatchEvent }[] = [];
  #rv = 0;
  #waiters: (() => void)[] = [];
  /** Answers the next creates with these statuses (e.g. 503) before accepting. */
  failCreates: number[] = [];
  /** The status to refuse a create of this name with (e.g. a pod that is gone), or undefined to accept it. */
  refuse: (name: string) => number | undefined = () => undefined;
  /** Every create, in order (name). */
  readonly created: string[] = [];

  put(collection: string, object: KubeObject): void {
    const name = object.metadata!.name!;
    this.#store(collection, name, structuredClone(object), "ADDED");
  }

  objects(collection: string): KubeObject[] {
    return [...this.#objects.values()].filter((s) => s.collection === collection).map((s) => s.object);
  }

  remove(collection: string, name: string): void {
    const s = this.#objects.get(`${collection}/${name}`);
    if (s === undefined) return;
    this.#objects.delete(`${collection}/${name}`);
    this.#record(collection, { type: "DELETED", object: s.object });
  }

  get<T = KubeObject>(path: string, _signal?: AbortSignal): Promise<T> {
    const [base, query] = path.split("?");
    if (query !== undefined) {
      const sel = selector(query);
      const items = this.objects(base).filter((o) => matches(o, sel));
      return Promise.resolve(structuredClone({ items, metadata: { resourceVersion: String(this.#rv) } }) as T);
    }
    const s = this.#objects.get(base);
    if (s === undefined) return Promise.reject(new KubeApiError(404, "NotFound", `GET ${base}: 404 NotFound`));
    return Promise.resolve(structuredClone(s.object) as T);
  }

  create<T = KubeObject>(collectionPath: string, object: unknown): Promise<T> {
    const o = structuredClone(object) as KubeObject;
    const name = o.metadata!.name!;
    const status = this.refuse(name) ?? this.failCreates.shift();
    if (status !== undefined) {
      return Promise.reject(new KubeApiError(status, "Injected", `POST ${collectionPath}: ${status} injected`));
    }
    if (this.#objects.has(`${collectionPath}/${name}`)) {
      return Promise.reject(new KubeApiError(409, "AlreadyExists", `POST ${collectionPath}: 409 ${name} exists`));
    }
    this.created.push(name);
    this.#store(collectionPath, name, o, "ADDED");
    return Promise.resolve(structuredClone(o) as T);
  }

  mergePatch<T = KubeObject>(path: string, patch: unknown): Promise<T> {
    const s = this.#objects.get(path);
    if (s === undefined) return Promise.reject(new KubeApiError(404, "NotFound", `PATCH ${path}: 404 NotFound`));
    const next = merge(s.object, patch) as KubeObject;
    const name = next.metadata!.name!;
    this.#store(s.collection, name, next, "MODIFIED");
    return Promise.resolve(structuredClone(next) as T);
  }

  async waitFor<T extends KubeObject>(
    collectionPath: string,
    name: string,
    test: (object: T) => boolean,
    signal?: AbortSignal,
  ): Promise<T> {
    for (;;) {
      signal?.throwIfAborted();
      const s = this.#objects.get(`${collectionPath}/${name}`);
      if (s === undefined) throw new KubeApiError(404, "NotFound", `${collectionPath}/${name} was deleted`);
      if (test(structuredClone(s.object) as T)) return structuredClone(s.object) as T;
      await this.#change(signal);
    }
  }

  async *watch(
    collectionPath: string,
    o: { resourceVersion?: string; query?: string; signal?: AbortSignal; timeoutSeconds?: number } = {},
  ): AsyncGenerator<WatchEvent> {
    const sel = o.query === undefined ? [] : selector(o.query);
    let from = Number(o.resourceVersion ?? this.#rv);
    while (!o.signal?.aborted) {
      for (const e of this.#events) {
        if (e.rv <= from || e.collection !== collectionPath) continue;
        from = e.rv;
        if (matches(e.event.object, sel)) yield structuredClone(e.event);
      }
      try {
        await this.#change(o.signal);
      } catch {
        return;
      }
    }
  }

  #store(collection: string, name: string, given: KubeObject, type: "ADDED" | "MODIFIED"): void {
    const rv = ++this.#rv;
    const object: KubeObject = {
      ...given,
      metadata: { ...given.metadata, resourceVersion: String(rv), uid: given.metadata?.uid ?? `uid-${rv}` },
    };
    this.#objects.set(`${collection}/${name}`, { collection, object });
    this.#record(collection, { type, object: structuredClone(object) });
  }

  #record(collection: string, event: WatchEvent): void {
    this.#events.push({ rv: this.#rv, collection, event });
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }

  #change(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(signal!.reason ?? new DOMException("aborted", "AbortError"));
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiters.push(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      });
    });
  }
}

function selector(query: string): [string, string][] {
  const raw = new URLSearchParams(query).get("labelSelector") ?? "";
  return raw.split(",").filter((p) => p !== "").map((p) => p.split("=") as [string, string]);
}

function matches(o: KubeObject, sel: readonly [string, string][]): boolean {
  const labels = (o.metadata?.labels ?? {}) as Record<string, string>;
  return sel.every(([k, v]) => labels[k] === v);
}

function merge(target: unknown, patch: unknown): unknown {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> = typeof target === "object" && target !== null && !Array.isArray(target)
    ? { ...(target as Record<string, unknown>) }
    : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = merge(out[k], v);
  }
  return out;
}
