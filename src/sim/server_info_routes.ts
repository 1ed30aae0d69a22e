/**
 * The simulator's management routes, in the shapes NVIDIA NIM for LLMs and vLLM answer them, so it stands in for a
 * NIM (and a bare vLLM) when tools probe a server before benchmarking it:
 *
 * - `GET /v1/health/live`: 200 `{"object":"health.response","message":"Service is live."}` while the process runs.
 * - `GET /v1/health/ready` (NIM) and `GET /health` (vLLM): 503 until `--load-delay` seconds after start (a model still
 *   loading), then 200 `{"object":"health.response","message":"Service is ready."}` (`/health`: `{"status":"ok"}`).
 * - `GET /v1/metrics`: the same Prometheus exposition as `/metrics`.
 * - `GET /v1/version`: `{"release", "api"}`; `GET /version` (vLLM): `{"version"}`.
 * - `GET /v1/metadata`: `{"version", "assetInfo", "licenseInfo", "modelInfo": [{"modelUrl", "shortName"}],
 *   "repository_override", "selectedModelProfileId"}`.
 * - `GET /v1/manifest`: `{"profiles": [{"id", "model", "release", "tags"}]}`, the simulated profile only.
 * - `GET /v1/license`: `{"name", "path", "sha", "size", "url", "type", "content"}`.
 * - `POST /tokenize` (vLLM): `{prompt | messages, add_special_tokens?}` → `{"count", "max_model_len", "tokens",
 *   "token_strs"}` with the server's tokenizer; `POST /detokenize`: `{tokens}` → `{"prompt"}`.
 *
 * References: https://docs.nvidia.com/nim/large-language-models/latest/reference/api-reference.html and vLLM's
 * OpenAI-compatible server (https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html).
 */
import type { Context, Hono } from "hono";
import { VERSION } from "../base/version.ts";
import type { Tokenizer } from "../tokenizer/tokenizer.ts";
import { badRequest, isJsonObject, requireObject } from "./request_fields.ts";
import { simErrorBody, SimRequestError } from "./sim_error.ts";
import type { SimOptions } from "./sim_options.ts";

const JSON_HEADERS = { "content-type": "application/json" } as const;
const PROMETHEUS_HEADERS = { "content-type": "text/plain; version=0.0.4; charset=utf-8" } as const;

/** The simulated engine's identity, as a NIM and vLLM report theirs. */
export const SIM_RELEASE = `infermeter-sim-${VERSION}`;
export const SIM_API_VERSION = "1.0.0";
/** A profile id in NIM's form (a 64-hex digest); fixed, so results from the simulator name the same profile. */
export const SIM_PROFILE_ID = "0".repeat(56) + "5157e501";
const MAX_MODEL_LEN = 131072;
const LICENSE = "The infermeter simulator serves generated words; no model or model license is involved.";

export interface ServerInfoDeps {
  readonly tokenizer: Tokenizer;
  /** The Prometheus text of `/metrics`. */
  readonly metricsText: () => string;
  /** `performance.now()` when the server started; readiness is counted from it. */
  readonly startedAt: number;
}

/** The routes added here, in the order `serve-sim --help` lists them. */
export const SERVER_INFO_ROUTES = [
  { method: "GET", path: "/v1/health/live" },
  { method: "GET", path: "/v1/health/ready" },
  { method: "GET", path: "/health" },
  { method: "GET", path: "/metrics" },
  { method: "GET", path: "/v1/metrics" },
  { method: "GET", path: "/v1/version" },
  { method: "GET", path: "/version" },
  { method: "GET", path: "/v1/metadata" },
  { method: "GET", path: "/v1/manifest" },
  { method: "GET", path: "/v1/license" },
  { method: "POST", path: "/tokenize" },
  { method: "POST", path: "/detokenize" },
] as const;

type InfoPath = (typeof SERVER_INFO_ROUTES)[number]["path"];

export function addServerInfoRoutes(app: Hono, o: SimOptions, deps: ServerInfoDeps): void {
  const readyAt = deps.startedAt + o.loadDelaySeconds * 1000;
  const ready = () => performance.now() >= readyAt;
  const json = (value: unknown, status = 200) => new Response(JSON.stringify(value), { status, headers: JSON_HEADERS });
  const notReady = () => json({ object: "health.response", message: "Service is not ready." }, 503);
  const metrics = () => new Response(deps.metricsText(), { status: 200, headers: PROMETHEUS_HEADERS });

  // One handler per listed route (the type makes a route without a handler, or a handler without a listing, an
  // error), so the help's list is the served list.
  const handlers: Record<InfoPath, (c: Context) => Response | Promise<Response>> = {
    "/v1/health/live": () => json({ object: "health.response", message: "Service is live." }),
    "/v1/health/ready": () => ready() ? json({ object: "health.response", message: "Service is ready." }) : notReady(),
    "/health": () => ready() ? json({ status: "ok" }) : notReady(),
    "/metrics": metrics,
    "/v1/metrics": metrics,
    "/v1/version": () => json({ release: SIM_RELEASE, api: SIM_API_VERSION }),
    "/version": () => json({ version: SIM_RELEASE }),
    "/v1/metadata": () =>
      json({
        version: SIM_RELEASE,
        assetInfo: [],
        licenseInfo: licenseInfo(),
        modelInfo: o.models.map((m) => ({ modelUrl: `sim://${m}`, shortName: m })),
        repository_override: "",
        selectedModelProfileId: SIM_PROFILE_ID,
      }),
    "/v1/manifest": () =>
      json({
        profiles: [{
          id: SIM_PROFILE_ID,
          model: o.models[0],
          release: SIM_RELEASE,
          tags: { llm_engine: "infermeter-sim", precision: "none", tp: "1", pp: "1", profile: "latency" },
        }],
      }),
    "/v1/license": () => json({ ...licenseInfo(), content: LICENSE }),
    // Bodies are read through Hono's request, which caches them: the request journal may have read them first.
    "/tokenize": async (c) => {
      try {
        const body = requireObject(await readJson(c.req));
        const tokens = deps.tokenizer.encode(tokenizeText(body));
        return json({ count: tokens.length, max_model_len: MAX_MODEL_LEN, tokens, token_strs: null });
      } catch (e) {
        return errorResponse(e);
      }
    },
    "/detokenize": async (c) => {
      try {
        const body = requireObject(await readJson(c.req));
        const tokens = body.tokens;
        if (!Array.isArray(tokens) || !tokens.every((t) => Number.isInteger(t) && t >= 0)) {
          throw badRequest("'tokens' must be a list of token ids.", "tokens");
        }
        return json({ prompt: deps.tokenizer.decode(tokens as number[]) });
      } catch (e) {
        return errorResponse(e);
      }
    },
  };
  for (const route of SERVER_INFO_ROUTES) app.on(route.method, route.path, handlers[route.path]);
}

function licenseInfo() {
  return {
    name: "LICENSE.txt",
    path: "/opt/infermeter/LICENSE.txt",
    sha: "0000000000000000000000000000000000000000",
    size: LICENSE.length,
    url: "https://github.com/infermeter/infermeter",
    type: "file",
  };
}

async function readJson(req: { text(): Promise<string> }): Promise<unknown> {
  const text = await req.text();
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new SimRequestError(
      400,
      "invalid_request_error",
      `The request body is not valid JSON: ${(e as Error).message}`,
    );
  }
}

/** vLLM's two request shapes: a completion `prompt`, or chat `messages` (their text contents, one per line). */
function tokenizeText(body: Record<string, unknown>): string {
  if (typeof body.prompt === "string") return body.prompt;
  if (Array.isArray(body.messages)) {
    const texts: string[] = [];
    for (const m of body.messages) {
      if (!isJsonObject(m)) continue;
      if (typeof m.content === "string") texts.push(m.content);
      else if (Array.isArray(m.content)) {
        for (const p of m.content) if (isJsonObject(p) && typeof p.text === "string") texts.push(p.text);
      }
    }
    return texts.join("\n");
  }
  throw badRequest("send 'prompt' (a string) or 'messages'.", "prompt");
}

function errorResponse(e: unknown): Response {
  if (e instanceof SimRequestError) {
    return new Response(simErrorBody(e.status, e.type, e.message, e.param), {
      status: e.status,
      headers: JSON_HEADERS,
    });
  }
  throw e;
}
