/**
 * The few calls of MLflow's tracking REST API (https://mlflow.org/docs/latest/rest-api.html) a run upload needs, the
 * ones MLflow's own Python client makes for AIPerf: find or create the experiment, create a run (and check a parent),
 * log metrics, parameters and tags in batches within the server's limits, upload artifacts through the server's
 * artifact proxy (`mlflow server` serves artifacts by default), and finish the run. Credentials are MLflow's own:
 * `MLFLOW_TRACKING_TOKEN` (bearer) or `MLFLOW_TRACKING_USERNAME`/`_PASSWORD` (basic), or user-info in the URI.
 */
import { serviceCall, ServiceError, serviceJson, splitCredentials } from "./service_call.ts";

/** MLflow's `log-batch` limits: 1000 metrics, 100 parameters, 100 tags, 1000 entries in all per request. */
const BATCH_METRICS = 1000;
const BATCH_PARAMS = 100;
const BATCH_TAGS = 100;
/** Longest parameter value MLflow stores (6000 characters since MLflow 2). */
export const MAX_PARAM_LENGTH = 6000;

export interface MlflowMetric {
  readonly key: string;
  readonly value: number;
  /** Epoch ms. */
  readonly timestamp: number;
  readonly step: number;
}

export interface KeyValue {
  readonly key: string;
  readonly value: string;
}

export interface MlflowRunInfo {
  readonly runId: string;
  readonly runName: string;
  readonly experimentId: string;
  readonly artifactUri: string;
}

export interface MlflowAuth {
  readonly token?: string;
  readonly username?: string;
  readonly password?: string;
}

export class MlflowClient {
  readonly #base: string;
  readonly #headers: Record<string, string>;

  /** @param trackingUri an http(s) tracking server; user-info in it is sent as basic authentication */
  constructor(trackingUri: string, auth: MlflowAuth = {}) {
    const { url, authorization } = splitCredentials(trackingUri);
    this.#base = url.replace(/\/+$/, "");
    let header = authorization;
    if (auth.token !== undefined && auth.token !== "") header = `Bearer ${auth.token}`;
    else if (auth.username !== undefined && auth.password !== undefined) {
      const bytes = new TextEncoder().encode(`${auth.username}:${auth.password}`);
      header = `Basic ${btoa(String.fromCharCode(...bytes))}`;
    }
    this.#headers = header === undefined ? {} : { authorization: header };
  }

  /** The tracking server's address, without credentials. */
  get base(): string {
    return this.#base;
  }

  /** The experiment's id; created when it does not exist (as `mlflow.set_experiment` does). */
  async experimentId(name: string, signal: AbortSignal): Promise<string> {
    try {
      const found = await this.#get(
        `/api/2.0/mlflow/experiments/get-by-name?experiment_name=${encodeURIComponent(name)}`,
        signal,
      );
      const experiment = found.experiment as { experiment_id?: string; lifecycle_stage?: string } | undefined;
      if (experiment?.experiment_id !== undefined) {
        if (experiment.lifecycle_stage === "deleted") {
          throw new ServiceError(`experiment '${name}' is deleted; restore it or choose another --mlflow-experiment`);
        }
        return experiment.experiment_id;
      }
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
    const created = await this.#post("/api/2.0/mlflow/experiments/create", { name }, signal);
    return String(created.experiment_id);
  }

  /** Whether a run exists (a parent run given by id). */
  async runExists(runId: string, signal: AbortSignal): Promise<boolean> {
    try {
      await this.#get(`/api/2.0/mlflow/runs/get?run_id=${encodeURIComponent(runId)}`, signal);
      return true;
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
  }

  async createRun(
    o: { experimentId: string; runName: string; startTime: number; tags: readonly KeyValue[] },
    signal: AbortSignal,
  ): Promise<MlflowRunInfo> {
    const res = await this.#post("/api/2.0/mlflow/runs/create", {
      experiment_id: o.experimentId,
      run_name: o.runName,
      start_time: o.startTime,
      tags: o.tags,
    }, signal);
    const info = (res.run as { info?: Record<string, string> } | undefined)?.info;
    if (info?.run_id === undefined) throw new ServiceError("runs/create answered without a run id");
    return {
      runId: info.run_id,
      runName: info.run_name ?? o.runName,
      experimentId: info.experiment_id ?? o.experimentId,
      artifactUri: info.artifact_uri ?? "",
    };
  }

  /** Logs everything in as many `log-batch` calls as MLflow's limits need. */
  async logBatch(
    runId: string,
    o: { metrics?: readonly MlflowMetric[]; params?: readonly KeyValue[]; tags?: readonly KeyValue[] },
    signal: AbortSignal,
  ): Promise<void> {
    const metrics = [...o.metrics ?? []];
    const params = [...o.params ?? []];
    const tags = [...o.tags ?? []];
    while (metrics.length > 0 || params.length > 0 || tags.length > 0) {
      const p = params.splice(0, BATCH_PARAMS);
      const t = tags.splice(0, BATCH_TAGS);
      const m = metrics.splice(0, BATCH_METRICS - p.length - t.length);
      await this.#post("/api/2.0/mlflow/runs/log-batch", {
        run_id: runId,
        ...(m.length > 0 ? { metrics: m } : {}),
        ...(p.length > 0 ? { params: p } : {}),
        ...(t.length > 0 ? { tags: t } : {}),
      }, signal);
    }
  }

  async finishRun(runId: string, status: "FINISHED" | "FAILED" | "KILLED", signal: AbortSignal): Promise<void> {
    await this.#post("/api/2.0/mlflow/runs/update", { run_id: runId, status, end_time: Date.now() }, signal);
  }

  /**
   * Uploads one file under `path` (relative to the run's artifact root) through the server's artifact proxy.
   * Throws, saying how to fix it, when the run's artifacts live where only the server's own clients can write
   * (a bucket or a directory given by `--default-artifact-root` without `--serve-artifacts`).
   */
  async uploadArtifact(
    run: MlflowRunInfo,
    path: string,
    data: Uint8Array<ArrayBuffer>,
    contentType: string,
    signal: AbortSignal,
  ): Promise<void> {
    const url = `${this.artifactBase(run)}/${path.split("/").map(encodeURIComponent).join("/")}`;
    const res = await serviceCall(url, {
      method: "PUT",
      headers: { ...this.#headers, "content-type": contentType },
      body: data,
      signal,
    });
    await res.body?.cancel();
  }

  /** The HTTP address of the run's artifact root on the server's artifact proxy. */
  artifactBase(run: MlflowRunInfo): string {
    const m = /^mlflow-artifacts:(?:\/\/[^/]*)?\/(.*)$/.exec(run.artifactUri);
    if (m === null) {
      throw new ServiceError(
        `the server keeps this run's artifacts at ${run.artifactUri}, which only it can write; start it with ` +
          "artifact serving (mlflow server --serve-artifacts, the default, without --default-artifact-root)",
      );
    }
    return `${this.#base}/api/2.0/mlflow-artifacts/artifacts/${m[1].replace(/\/+$/, "")}`;
  }

  /** The run's page in MLflow's UI. */
  runPage(run: MlflowRunInfo): string {
    return `${this.#base}/#/experiments/${run.experimentId}/runs/${run.runId}`;
  }

  #get(path: string, signal: AbortSignal): Promise<Record<string, unknown>> {
    return serviceJson(`${this.#base}${path}`, { headers: this.#headers, signal });
  }

  #post(path: string, body: unknown, signal: AbortSignal): Promise<Record<string, unknown>> {
    return serviceJson(`${this.#base}${path}`, {
      method: "POST",
      headers: { ...this.#headers, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal,
    });
  }
}

/** MLflow's "not found" answer. */
function isMissing(err: unknown): boolean {
  return err instanceof ServiceError && (err.status === 404 || (err.body ?? "").includes("RESOURCE_DOES_NOT_EXIST"));
}
