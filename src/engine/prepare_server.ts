/**
 * Before a run: wait until the server is ready (`--wait-for-model-*`), and name the model from `GET /v1/models` when
 * the user named none. A run without a model waits in `models` mode first (a one-token probe needs a model), then,
 * with the time left, in the mode asked for.
 */
import type { EndpointAdapter } from "../endpoints/endpoint_adapter.ts";
import { discoverModel, type ProbeTarget, waitForModel, type WaitMode, type WaitOutcome } from "./server_probe.ts";

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
  /** `interrupted`: the signal (Ctrl-C) ended the wait, not the server. */
  | { readonly ok: false; readonly message: string; readonly interrupted?: boolean };

export async function prepareServer(target: ProbeTarget, o: PrepareServerOptions): Promise<PrepareServerResult> {
  // Every probe is cut short by the signal, so a Ctrl-C during a long wait ends it at once.
  const p: ProbeTarget = o.signal === undefined ? target : { ...target, signal: o.signal };
  let modelNames = o.modelNames;
  const wait = o.wait !== undefined && o.wait.timeoutS > 0 ? o.wait : undefined;
  const started = performance.now();
  const waitIn = async (mode: WaitMode, model: string, timeoutS: number) => {
    o.log.info(`Waiting up to ${timeoutS.toFixed(1)} s for the server to be ready (${mode})`);
    const outcome = await waitForModel(p, {
      timeoutS,
      intervalS: wait!.intervalS,
      mode,
      adapter: o.adapter,
      path: o.path,
      model,
      signal: o.signal,
      onWaiting: (reason) => o.log.debug(`not ready: ${reason}`),
    });
    if (outcome.ready) o.log.info(`Server ready after ${(outcome.waitedMs / 1000).toFixed(1)} s`);
    return outcome;
  };
  if (wait && modelNames.length === 0) {
    const outcome = await waitIn("models", "", wait.timeoutS);
    if (!outcome.ready) return notReadyResult(wait.timeoutS, outcome);
  }
  if (modelNames.length === 0) {
    const found = await discoverModel(p);
    if (found === undefined) {
      return {
        ok: false,
        message: "no model given, and GET /v1/models named none; add -m/--model NAME.",
      };
    }
    o.log.info(`Model: ${found} (no --model given; the first model GET /v1/models lists)`);
    modelNames = [found];
  }
  if (wait && !(o.modelNames.length === 0 && wait.mode === "models")) {
    const left = Math.max(0, wait.timeoutS - (performance.now() - started) / 1000);
    const outcome = await waitIn(wait.mode, modelNames[0], left);
    if (!outcome.ready) return notReadyResult(wait.timeoutS, outcome);
  }
  return { ok: true, modelNames };
}

function notReadyResult(timeoutS: number, outcome: WaitOutcome): PrepareServerResult {
  return outcome.interrupted
    ? { ok: false, interrupted: true, message: "interrupted while waiting for the server to be ready" }
    : { ok: false, message: notReady(timeoutS, outcome.reason) };
}

function notReady(timeoutS: number, reason: string | undefined): string {
  return `the server was not ready within --wait-for-model-timeout ${timeoutS}: ${reason ?? "no answer"}.`;
}
