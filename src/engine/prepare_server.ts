/**
 * Before a run: wait until the server is ready (`--wait-for-model-*`), and name the model from `GET /v1/models` when
 * the user named none. A run without a model waits in `models` mode first (a one-token probe needs a model), then,
 * with the time left, in the mode asked for.
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
  | { readonly ok: false; readonly message: string };

export async function prepareServer(p: ProbeTarget, o: PrepareServerOptions): Promise<PrepareServerResult> {
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
    if (!outcome.ready) return { ok: false, message: notReady(wait.timeoutS, outcome.reason) };
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
    if (!outcome.ready) return { ok: false, message: notReady(wait.timeoutS, outcome.reason) };
  }
  return { ok: true, modelNames };
}

function notReady(timeoutS: number, reason: string | undefined): string {
  return `the server was not ready within --wait-for-model-timeout ${timeoutS}: ${reason ?? "no answer"}.`;
}
