/**
 * What infermeter asks a server before benchmarking it, beside the benchmark's own requests:
 *
 * - `waitForModel`: AIPerf's `--wait-for-model-*`. Until the timeout, every interval: where the server has NIM's
 *   `GET /v1/health/ready`, wait for its 200 (503 = still loading; 404 = no such route, skipped); then by mode,
 *   `models` — `GET /v1/models` answers 200 with at least one model; `inference` — a one-token request of the run's
 *   endpoint type answers 2xx; `both` — the two in order.
 * - `discoverModel`: the first model `GET /v1/models` lists, for a run without `--model`.
 * - `readServerIdentity`: NIM's `/v1/version` (`release`, `api`) and `/v1/metadata` (`selectedModelProfileId`,
 *   `modelInfo`, `version`), vLLM's `/version`; recorded in the JSON export so a result names the engine build and
 *   model profile that produced it. Each route is optional; a server offering none has no identity.
 *
 * Requests carry the run's constant headers (credentials included) and never follow redirects off the target.
 */
import { encodeRequestBody, type EndpointAdapter } from "../endpoints/endpoint_adapter.ts";
import { sampleMedia } from "../endpoints/sample_media.ts";
import type { Target } from "../transport/http_exchange.ts";
import { type OnceResponse, requestOnce } from "../transport/http_once.ts";
import { targetPath } from "./request_headers.ts";

export type WaitMode = "models" | "inference" | "both";

export interface ProbeTarget {
  readonly target: Target;
  /** The run's constant headers (content type, credentials, `-H`). */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** Per-request limit. @default 5000 */
  readonly requestTimeoutMs?: number;
  /** Cuts a probe short (Ctrl-C): it then fails like a server that did not answer. */
  readonly signal?: AbortSignal;
}

async function request(
  p: ProbeTarget,
  method: "GET" | "POST",
  path: string,
  body?: string | Uint8Array,
): Promise<OnceResponse | undefined> {
  const res = await requestOrReason(p, method, path, body);
  return "reason" in res ? undefined : res; // refused, reset or timed out: the server is not up yet
}

/** The answer, or why there was none in the transport's words ("connection refused", a DNS or TLS failure). */
async function requestOrReason(
  p: ProbeTarget,
  method: "GET" | "POST",
  path: string,
  body?: string | Uint8Array,
): Promise<OnceResponse | { readonly reason: string }> {
  const headers: [string, string][] = [];
  for (const [k, v] of p.headers) if (method === "POST" || k.toLowerCase() !== "content-type") headers.push([k, v]);
  if (method === "GET") headers.push(["Accept", "application/json"]);
  try {
    return await requestOnce(
      p.target,
      {
        method,
        path: targetPath(p.target.basePath, path, false),
        headers,
        body: typeof body === "string" ? new TextEncoder().encode(body) : body,
      },
      p.requestTimeoutMs ?? 5000,
      p.signal,
    );
  } catch (err) {
    return { reason: err instanceof Error ? err.message : String(err) };
  }
}

async function getJson(p: ProbeTarget, path: string): Promise<{ status: number; json?: unknown } | undefined> {
  const res = await request(p, "GET", path);
  if (res === undefined) return undefined;
  const text = new TextDecoder().decode(res.body);
  try {
    return { status: res.status, json: JSON.parse(text) };
  } catch {
    return { status: res.status };
  }
}

/** Model ids listed by `GET /v1/models` (OpenAI `{"data": [{"id"}…]}`); undefined when the route did not answer. */
export async function listModels(p: ProbeTarget): Promise<string[] | undefined> {
  const res = await getJson(p, "/v1/models");
  if (res === undefined || res.status !== 200) return undefined;
  const data = (res.json as { data?: unknown } | undefined)?.data;
  if (!Array.isArray(data)) return undefined;
  return data.flatMap((m) => typeof m?.id === "string" ? [m.id as string] : []);
}

/**
 * The first model the server lists, or why there is none: the transport's own words when the server did not answer
 * ("connection refused"), else what `GET /v1/models` said.
 */
export async function discoverModel(p: ProbeTarget): Promise<{ readonly model: string } | { readonly reason: string }> {
  const res = await requestOrReason(p, "GET", "/v1/models");
  const where = `${p.target.scheme}://${p.target.hostHeader}`;
  if ("reason" in res) return { reason: `cannot connect to ${where} (${transportCause(res.reason)})` };
  if (res.status !== 200) return { reason: `GET /v1/models on ${where} answered ${res.status}` };
  let data: unknown;
  try {
    data = (JSON.parse(new TextDecoder().decode(res.body)) as { data?: unknown } | null)?.data;
  } catch {
    return { reason: `GET /v1/models on ${where} did not answer JSON` };
  }
  const first = Array.isArray(data) ? data.find((m) => typeof m?.id === "string")?.id as string | undefined : undefined;
  return first === undefined ? { reason: `GET /v1/models on ${where} lists no model` } : { model: first };
}

/** The cause in a transport error's sentence, in a few words ("connection refused"), for a message of our own. */
export function transportCause(message: string): string {
  if (/connection refused/i.test(message)) return "connection refused";
  if (/timed out|no answer within/i.test(message)) return "no answer in time";
  if (/lookup|resolve|name or service not known|nodename nor servname|dns/i.test(message)) {
    return "the host name does not resolve";
  }
  if (/certificate|tls|ssl|handshake/i.test(message)) return `TLS failed: ${message.split(/[;(]/)[0].trim()}`;
  return message.split(/;/)[0].replace(/\.$/, "").trim();
}

export interface WaitOptions {
  readonly timeoutS: number;
  readonly intervalS: number;
  readonly mode: WaitMode;
  /** Builds and parses the inference probe (mode `inference` / `both`). */
  readonly adapter: EndpointAdapter;
  /** The request path of the run (base path added here). */
  readonly path: string;
  readonly model: string;
  /** Clock and sleep; tests pass manual ones. */
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Told of each failed check (what is still missing), for the log. */
  readonly onWaiting?: (reason: string) => void;
  readonly signal?: AbortSignal;
}

export interface WaitOutcome {
  readonly ready: boolean;
  readonly waitedMs: number;
  readonly attempts: number;
  /** The last reason the server was not ready. */
  readonly reason?: string;
  /** The wait was cut short by the signal (Ctrl-C), not by its timeout. */
  readonly interrupted?: boolean;
}

/** One round of checks: undefined when ready, else what is missing. */
async function check(p: ProbeTarget, o: WaitOptions): Promise<string | undefined> {
  const health = await request(p, "GET", "/v1/health/ready");
  if (health === undefined) return "the server does not accept connections yet";
  if (health.status === 503) return "GET /v1/health/ready answers 503 (the model is loading)";
  if (o.mode === "models" || o.mode === "both") {
    const models = await listModels(p);
    if (models === undefined) return "GET /v1/models does not answer 200 with a model list yet";
    if (models.length === 0) return "GET /v1/models lists no model yet";
  }
  if (o.mode === "inference" || o.mode === "both") {
    // An API that needs an input to work on (audio to transcribe, an image to edit) gets the smallest one.
    const needs = o.adapter.capabilities.requiresMedia;
    const body = o.adapter.buildRequest({ texts: ["ping"], media: needs ? [sampleMedia(needs)] : undefined }, {
      model: o.model,
      streaming: false,
      maxTokens: 1,
      useLegacyMaxTokens: false,
      useServerTokenCount: false,
      extraInputs: {},
    }, []);
    const res = await request(p, "POST", o.path, encodeRequestBody(o.adapter, body));
    if (res === undefined) return `POST ${o.path} did not answer`;
    if (res.status < 200 || res.status >= 300) return `POST ${o.path} (one-token request) answers ${res.status}`;
  }
  return undefined;
}

export async function waitForModel(p: ProbeTarget, o: WaitOptions): Promise<WaitOutcome> {
  const now = o.now ?? (() => performance.now());
  const sleep = o.sleep ?? ((ms: number) => abortableSleep(ms, o.signal));
  const start = now();
  const deadline = start + o.timeoutS * 1000;
  let attempts = 0;
  let reason: string | undefined;
  while (!o.signal?.aborted) {
    attempts++;
    reason = await check(p, o);
    if (reason === undefined) return { ready: true, waitedMs: now() - start, attempts };
    o.onWaiting?.(reason);
    const left = deadline - now();
    if (left <= 0) break;
    await sleep(Math.min(o.intervalS * 1000, left));
  }
  return { ready: false, waitedMs: now() - start, attempts, reason, interrupted: o.signal?.aborted === true };
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** What the server says it is, as JSON for `run_info.server`; undefined when it offers none of the routes. */
export async function readServerIdentity(p: ProbeTarget): Promise<Record<string, unknown> | undefined> {
  const [version, metadata, vllm] = await Promise.all([
    getJson(p, "/v1/version"),
    getJson(p, "/v1/metadata"),
    getJson(p, "/version"),
  ]);
  const out: Record<string, unknown> = {};
  const obj = (r: typeof version) =>
    r?.status === 200 && typeof r.json === "object" && r.json !== null && !Array.isArray(r.json)
      ? r.json as Record<string, unknown>
      : undefined;
  const v = obj(version);
  if (v && (typeof v.release === "string" || typeof v.api === "string")) {
    out.nim_release = v.release ?? null;
    out.api_version = v.api ?? null;
  }
  const m = obj(metadata);
  if (m) {
    out.selected_model_profile_id = typeof m.selectedModelProfileId === "string" ? m.selectedModelProfileId : null;
    out.model_info = Array.isArray(m.modelInfo) ? m.modelInfo : null;
    if (typeof m.version === "string") out.metadata_version = m.version;
  }
  const e = obj(vllm);
  if (e && typeof e.version === "string") out.engine_version = e.version;
  return Object.keys(out).length > 0 ? out : undefined;
}
