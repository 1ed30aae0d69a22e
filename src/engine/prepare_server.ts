/**
 * Before a run: name the model from `GET /v1/models` when the user named none, and wait until the server is ready
 * (`--wait-for-model-*`). A run without a model waits in `models` mode first (a one-token probe needs a model), then
 * in the mode asked for.
 */
import type { EndpointAdapter } from "../endpoints/endpoint_adapter.ts";
import { discoverModel, type ProbeTarget, waitForModel, type WaitMode } from "./server_probe.ts";

export interface PrepareServerOptions {
  readonly modelNames: readonly string[];
  /** Undefined or a timeout of 0: no waiting (AIPerf's default). */
  readonly wait?: { readonly timeoutS: number; readonly intervalS: number; readonly mode: WaitMode };
  readonly adapter: EndpointAdapter;
  /** The run's request path. */
  readonly path: string;
  readonly log: { info(message: string): void; debug(message: string): void };
  readonly signal?: AbortSignal;
}

export type PrepareServerResult =
  | { readonly ok: true; readonly modelNames: readonly string[] }
  /** Not ready, unreachable or no model; `cancelled` when the signal stopped the wait (Ctrl-C). */
  | { readonly ok: false; readonly message: string; readonly cancelled?: boolean };

/**
 * The model names to run with: the given ones, or (none given) the first model `GET /v1/models` lists — after
 * waiting for the model list when a readiness wait was asked for.
 */
export async function discoverModels(target: ProbeTarget, o: PrepareServerOptions): Promise<PrepareServerResult> {
  if (o.modelNames.length > 0) return { ok: true, modelNames: o.modelNames };
  // Every probe is cut short by the signal, so a Ctrl-C during a long wait ends it at once.
  const p = withSignal(target, o);
  const wait = activeWait(o);
  if (wait !== undefined) {
    const outcome = await waitIn(p, o, "models", "", wait.timeoutS);
    if (!outcome.ok) return outcome;
  }
  const found = await discoverModel(p);
  if (o.signal?.aborted) return cancelled();
  if ("reason" in found) return { ok: false, message: `no model given, and ${found.reason}; add -m/--model NAME.` };
  o.log.info(`Model: ${found.model} (no --model given; the first model GET /v1/models lists)`);
  return { ok: true, modelNames: [found.model] };
}

/**
 * Waits for the server to be ready (`--wait-for-model-*`) with the run's model; `discovered` when the model list
 * was already waited for by {@linkcode discoverModels} (a `models` wait is then done).
 */
export async function waitUntilReady(
  target: ProbeTarget,
  o: PrepareServerOptions,
  discovered: boolean,
): Promise<PrepareServerResult> {
  const p = withSignal(target, o);
  const wait = activeWait(o);
  if (wait === undefined || (discovered && wait.mode === "models")) return { ok: true, modelNames: o.modelNames };
  const outcome = await waitIn(p, o, wait.mode, o.modelNames[0] ?? "", wait.timeoutS);
  return outcome.ok ? { ok: true, modelNames: o.modelNames } : outcome;
}

function withSignal(target: ProbeTarget, o: PrepareServerOptions): ProbeTarget {
  return o.signal === undefined ? target : { ...target, signal: o.signal };
}

function activeWait(o: PrepareServerOptions) {
  return o.wait !== undefined && o.wait.timeoutS > 0 ? o.wait : undefined;
}

async function waitIn(
  p: ProbeTarget,
  o: PrepareServerOptions,
  mode: WaitMode,
  model: string,
  timeoutS: number,
): Promise<PrepareServerResult> {
  o.log.info(`Waiting up to ${timeoutS.toFixed(1)} s for the server to be ready (${mode})`);
  const outcome = await waitForModel(p, {
    timeoutS,
    intervalS: o.wait!.intervalS,
    mode,
    adapter: o.adapter,
    path: o.path,
    model,
    signal: o.signal,
    onWaiting: (reason) => o.log.debug(`not ready: ${reason}`),
  });
  if (o.signal?.aborted) return cancelled();
  if (!outcome.ready) {
    return {
      ok: false,
      message: `the server was not ready within --wait-for-model-timeout ${o.wait!.timeoutS}: ${
        outcome.reason ?? "no answer"
      }.`,
    };
  }
  o.log.info(`Server ready after ${(outcome.waitedMs / 1000).toFixed(1)} s`);
  return { ok: true, modelNames: [model] };
}

function cancelled(): PrepareServerResult {
  return { ok: false, message: "Interrupted while waiting for the server; nothing was sent.", cancelled: true };
}
