/**
 * The cheap half of planning a run, checked before anything else (even before a model is discovered): the endpoint
 * adapter, the targets and their request path, and the metric selection with `--goodput`. Everything here fails
 * only with an {@linkcode InputError}.
 */
import type { ParsedProfile } from "../config/parse_profile_args.ts";
import type { ProfileConfig } from "../config/profile_config.ts";
import { resolveAdapter } from "../endpoints/endpoint_registry.ts";
import { type EndpointAdapter, requestPath } from "../endpoints/endpoint_adapter.ts";
import { endpointPath, requestHeaders } from "../engine/request_headers.ts";
import type { ProbeTarget } from "../engine/server_probe.ts";
import type { PrepareServerOptions } from "../engine/prepare_server.ts";
import { parseTarget } from "../transport/parse_target.ts";
import type { Target } from "../transport/http_exchange.ts";
import type { MetricSelection } from "../metrics/metric_def.ts";
import { goodputTags } from "../metrics/goodput.ts";
import { ENDPOINTS } from "../endpoints/endpoint_registry.ts";
import { InputError } from "../base/input_error.ts";
import { parseThreshold, type RunThreshold } from "../report/run_thresholds.ts";

export interface ResolvedEndpoint {
  readonly parsed: ParsedProfile;
  readonly adapter: EndpointAdapter;
  /** Streaming asked for and the endpoint type can stream. */
  readonly streaming: boolean;
  readonly targets: readonly Target[];
  /** The endpoint path (after `--endpoint`); each target's base path is added when sent. */
  readonly path: string;
  /** The first target with the run's constant headers: what readiness waits and model discovery ask. */
  readonly probe: ProbeTarget;
  /** Which metrics apply (multi-turn runs add the session metrics once the dataset is known). */
  readonly selection: MetricSelection;
  /** `--threshold` criteria, parsed. */
  readonly thresholds: readonly RunThreshold[];
}

export async function resolveEndpoint(parsed: ParsedProfile): Promise<ResolvedEndpoint> {
  const config = parsed.config;
  const adapter = await resolveAdapter(config.endpointType, {
    extraInputs: config.extraInputs,
    readTextFile: readTemplateFile,
  }).catch((err: Error) => {
    throw new InputError(`--endpoint-type ${config.endpointType}: ${err.message}`);
  });
  const noLegacy = adapter.capabilities.refusesLegacyMaxTokens;
  if (config.useLegacyMaxTokens && noLegacy !== undefined) {
    throw new InputError(`--use-legacy-max-tokens does not apply to --endpoint-type ${adapter.name}: ${noLegacy}.`);
  }
  checkContentType(config.requestContentType, adapter);
  const streaming = config.streaming && adapter.capabilities.supportsStreaming;
  const targets = resolveTargets(config);
  const path = endpointPath(config.customEndpoint ?? requestPath(adapter.capabilities, streaming));
  // An API without a usual path (raw, template) is sent to the URL as given: no path is added there.
  if (config.customEndpoint === undefined && path !== "") checkNoDoubledPath(config, targets, path);
  const validTags = goodputTags();
  for (const slo of config.goodput) {
    if (!validTags.includes(slo.tag)) {
      throw new InputError(`unknown --goodput metric '${slo.tag}'; use one of: ${validTags.join(", ")}.`);
    }
  }
  const thresholds = config.thresholds.map((text) => {
    try {
      return parseThreshold(text);
    } catch (err) {
      throw new InputError((err as Error).message);
    }
  });
  const headers = requestHeaders(targets[0], {
    endpointHeaders: adapter.headers({ streaming, apiKey: config.apiKey }),
    userHeaders: config.headers,
  });
  return {
    parsed,
    adapter,
    streaming,
    targets,
    path,
    probe: { target: targets[0], headers },
    selection: {
      streaming,
      producesTokens: adapter.capabilities.producesTokens,
      tokenizesInput: adapter.capabilities.tokenizesInput,
      supportsReasoning: adapter.capabilities.supportsReasoning,
      producesVideos: adapter.capabilities.producesVideos === true,
      goodput: config.goodput.length > 0,
      serverTokenCounts: config.useServerTokenCount,
      supportsAudio: adapter.capabilities.media?.includes("audio") ?? false,
    },
    thresholds,
  };
}

/**
 * `--request-content-type` must be the one the endpoint type takes: multipart/form-data for the upload APIs, JSON for
 * the others (AIPerf refuses a mismatch the same way).
 */
function checkContentType(asked: string | undefined, adapter: EndpointAdapter): void {
  if (asked === undefined) return;
  const form = adapter.capabilities.formData === true;
  if (asked === "application/json" && form) {
    throw new InputError(
      `--endpoint-type ${adapter.name} takes multipart/form-data bodies; --request-content-type application/json ` +
        "does not apply (leave it out).",
    );
  }
  if (asked === "multipart/form-data" && !form) {
    const formTypes = ENDPOINTS.entries().filter((e) => e.capabilities.formData).map((e) => e.name).join(", ");
    throw new InputError(
      `--request-content-type multipart/form-data applies to the endpoint types that take form data (${formTypes}); ` +
        `--endpoint-type ${adapter.name} takes application/json.`,
    );
  }
}

function resolveTargets(config: ProfileConfig): Target[] {
  try {
    return config.urls.map((u) => parseTarget(u));
  } catch (err) {
    throw new InputError((err as Error).message);
  }
}

/**
 * A `--url` that already ends in an endpoint path (`http://host/v1/chat/completions`) would be sent to that path
 * twice and every request would fail with 404: said once, before anything is sent, with the flags that fix it.
 */
function checkNoDoubledPath(config: ProfileConfig, targets: readonly Target[], path: string): void {
  const known = new Set(
    [path, ...ENDPOINTS.entries().flatMap((e) => [e.capabilities.path, e.capabilities.streamingPath ?? ""])]
      .filter((p) => p.length > 1).map((p) => endpointPath(p)),
  );
  for (let i = 0; i < targets.length; i++) {
    const base = targets[i].basePath;
    const doubled = [...known].find((p) => base.endsWith(p));
    if (doubled === undefined) continue;
    const url = config.urls[i];
    const root = url.slice(0, url.search(/[?#]|$/)).replace(/\/+$/, "").slice(0, -doubled.length);
    throw new InputError(
      `--url ${url} already ends in the endpoint path ${doubled}, which infermeter adds itself; give the ` +
        `server's base URL (--url ${root}), or set the path with --endpoint ${doubled}.`,
    );
  }
}

/** A payload template named by path; undefined when the text is not a readable file (then it is the template). */
function readTemplateFile(path: string): string | undefined {
  if (path.length > 4096 || path.includes("{")) return undefined;
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return undefined;
  }
}

/** What readiness waits and model discovery are told: the `--wait-for-model-*` options and the run's endpoint. */
export function serverOptions(
  endpoint: ResolvedEndpoint,
  modelNames: readonly string[],
  log: { info(message: string): void; debug(message: string): void },
  signal?: AbortSignal,
): PrepareServerOptions {
  const config = endpoint.parsed.config;
  return {
    modelNames,
    wait: {
      timeoutS: config.waitForModelTimeout,
      intervalS: config.waitForModelInterval,
      mode: config.waitForModelMode,
    },
    adapter: endpoint.adapter,
    path: endpoint.path,
    log,
    signal,
  };
}
