/**
 * A small Kubernetes API client over the documented REST API and its watch stream, on `fetch`: the cluster's CA
 * and, when given, a client certificate through `Deno.createHttpClient`; a bearer token per request. Only what
 * `kube` needs: get, list, create, merge-patch, delete, and a watch that resumes from a resourceVersion.
 */
import type { KubeConfig } from "./kube_config.ts";

/** A Kubernetes object as JSON; the fields we read are typed where used. */
export type KubeObject = Record<string, unknown> & {
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly resourceVersion?: string;
    readonly annotations?: Record<string, string>;
    readonly labels?: Record<string, string>;
    readonly uid?: string;
  };
};

export interface WatchEvent {
  readonly type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  readonly object: KubeObject;
}

/** The API server answered with an error status; `reason` is the Status object's (NotFound, AlreadyExists, …). */
export class KubeApiError extends Error {
  override name = "KubeApiError";
  constructor(readonly status: number, readonly reason: string, message: string) {
    super(message);
  }
}

export class KubeClient {
  readonly #config: KubeConfig;
  readonly #http: Deno.HttpClient | undefined;

  constructor(config: KubeConfig) {
    this.#config = config;
    const tls = config.clientCertPem !== undefined && config.clientKeyPem !== undefined
      ? { cert: config.clientCertPem, key: config.clientKeyPem }
      : undefined;
    if (config.insecureSkipTlsVerify) {
      throw new Error(`${config.source}: insecure-skip-tls-verify is not supported; give the cluster's CA.`);
    }
    this.#http = config.caPem !== undefined || tls !== undefined
      ? Deno.createHttpClient({ ...(config.caPem ? { caCerts: [config.caPem] } : {}), ...tls })
      : undefined;
  }

  get namespace(): string | undefined {
    return this.#config.namespace;
  }

  close(): void {
    this.#http?.close();
  }

  /** One request; JSON in and out. Throws KubeApiError on a non-2xx answer. */
  async request<T = KubeObject>(
    method: string,
    path: string,
    body?: unknown,
    o: { contentType?: string; signal?: AbortSignal } = {},
  ): Promise<T> {
    const res = await this.#fetch(method, path, body, o);
    const text = await res.text();
    if (!res.ok) throw apiError(res.status, text, method, path);
    return (text.length > 0 ? JSON.parse(text) : {}) as T;
  }

  get<T = KubeObject>(path: string, signal?: AbortSignal): Promise<T> {
    return this.request<T>("GET", path, undefined, { signal });
  }

  /** Undefined when the object does not exist. */
  async tryGet<T = KubeObject>(path: string, signal?: AbortSignal): Promise<T | undefined> {
    try {
      return await this.get<T>(path, signal);
    } catch (err) {
      if (err instanceof KubeApiError && err.status === 404) return undefined;
      throw err;
    }
  }

  create<T = KubeObject>(collectionPath: string, object: unknown): Promise<T> {
    return this.request<T>("POST", collectionPath, object);
  }

  /** JSON merge patch (RFC 7386): only the fields given change; concurrent patches of other keys do not conflict. */
  mergePatch<T = KubeObject>(path: string, patch: unknown): Promise<T> {
    return this.request<T>("PATCH", path, patch, { contentType: "application/merge-patch+json" });
  }

  /** Deletes with foreground-independent background propagation (a Job's pods go with it); 404 is fine. */
  async delete(path: string): Promise<void> {
    try {
      await this.request("DELETE", path, { kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: "Background" });
    } catch (err) {
      if (!(err instanceof KubeApiError && err.status === 404)) throw err;
    }
  }

  /**
   * Watches a collection (or one object via `fieldSelector=metadata.name=…` in `query`) from `resourceVersion`.
   * Ends when the server closes the stream or `signal` aborts; an ERROR event (e.g. 410 Gone) is yielded as is.
   */
  async *watch(
    collectionPath: string,
    o: { resourceVersion?: string; query?: string; signal?: AbortSignal; timeoutSeconds?: number } = {},
  ): AsyncGenerator<WatchEvent> {
    const params = new URLSearchParams({ watch: "1", allowWatchBookmarks: "true" });
    if (o.resourceVersion !== undefined) params.set("resourceVersion", o.resourceVersion);
    if (o.timeoutSeconds !== undefined) params.set("timeoutSeconds", String(o.timeoutSeconds));
    const sep = collectionPath.includes("?") ? "&" : "?";
    const path = `${collectionPath}${sep}${params}${o.query ? `&${o.query}` : ""}`;
    const res = await this.#fetch("GET", path, undefined, { signal: o.signal });
    if (!res.ok) throw apiError(res.status, await res.text(), "GET", path);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let rest = "";
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) break;
        rest += value;
        let nl: number;
        while ((nl = rest.indexOf("\n")) !== -1) {
          const line = rest.slice(0, nl).trim();
          rest = rest.slice(nl + 1);
          if (line.length > 0) yield JSON.parse(line) as WatchEvent;
        }
      }
    } catch (err) {
      if (!o.signal?.aborted) throw err;
    } finally {
      await reader.cancel().catch(() => {});
    }
  }

  /**
   * Waits until `test` holds for the object at `path` (in collection `collectionPath`, named `name`), reading it
   * once and then following its watch (re-listing after the stream ends or expires). Returns the object.
   */
  async waitFor<T extends KubeObject>(
    collectionPath: string,
    name: string,
    test: (object: T) => boolean,
    signal?: AbortSignal,
  ): Promise<T> {
    while (true) {
      signal?.throwIfAborted();
      const current = await this.get<T>(`${collectionPath}/${name}`, signal);
      if (test(current)) return current;
      const events = this.watch(collectionPath, {
        resourceVersion: current.metadata?.resourceVersion,
        query: `fieldSelector=${encodeURIComponent(`metadata.name=${name}`)}`,
        signal,
        timeoutSeconds: 60,
      });
      for await (const event of events) {
        if (event.type === "ERROR") break; // expired: re-read and watch again
        if (event.type === "DELETED") throw new KubeApiError(404, "NotFound", `${collectionPath}/${name} was deleted`);
        if (event.type !== "BOOKMARK" && test(event.object as T)) return event.object as T;
      }
    }
  }

  #fetch(
    method: string,
    path: string,
    body: unknown,
    o: { contentType?: string; signal?: AbortSignal },
  ): Promise<Response> {
    const headers: Record<string, string> = { Accept: "application/json" };
    const token = this.#config.token?.();
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers["Content-Type"] = o.contentType ?? "application/json";
    return fetch(`${this.#config.server}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: o.signal,
      ...(this.#http ? { client: this.#http } : {}),
    });
  }
}

function apiError(status: number, text: string, method: string, path: string): KubeApiError {
  let reason = "";
  let message = text.slice(0, 300);
  try {
    const s = JSON.parse(text);
    reason = typeof s.reason === "string" ? s.reason : "";
    if (typeof s.message === "string") message = s.message;
  } catch {
    // not a Status object
  }
  return new KubeApiError(status, reason, `${method} ${path.split("?")[0]}: ${status} ${reason} ${message}`.trim());
}

/** API paths of the kinds `kube` uses. */
export const kubePaths = {
  configMaps: (ns: string) => `/api/v1/namespaces/${ns}/configmaps`,
  pods: (ns: string) => `/api/v1/namespaces/${ns}/pods`,
  serviceAccounts: (ns: string) => `/api/v1/namespaces/${ns}/serviceaccounts`,
  secrets: (ns: string) => `/api/v1/namespaces/${ns}/secrets`,
  roles: (ns: string) => `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`,
  roleBindings: (ns: string) => `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`,
  jobs: (ns: string) => `/apis/batch/v1/namespaces/${ns}/jobs`,
  nodes: () => `/api/v1/nodes`,
  namespaces: () => `/api/v1/namespaces`,
};

/** The collection path of a manifest's kind in a namespace. */
export function collectionOf(kind: string, ns: string): string {
  switch (kind) {
    case "ConfigMap":
      return kubePaths.configMaps(ns);
    case "ServiceAccount":
      return kubePaths.serviceAccounts(ns);
    case "Role":
      return kubePaths.roles(ns);
    case "RoleBinding":
      return kubePaths.roleBindings(ns);
    case "Job":
      return kubePaths.jobs(ns);
    case "Pod":
      return kubePaths.pods(ns);
    default:
      throw new Error(`no API path known for kind ${kind}`);
  }
}
