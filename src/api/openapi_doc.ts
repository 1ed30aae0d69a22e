/**
 * The OpenAPI 3.1 description of the embedded API (`/openapi.json`), written by hand from the routes' shapes; the
 * offline docs pages (`docs_page.ts`) are rendered from it, so the two never disagree.
 */
import type { JsonObject } from "../export/json_export.ts";

const obj = (properties: Record<string, JsonObject>, required: string[] = []): JsonObject => ({
  type: "object",
  properties,
  ...(required.length > 0 ? { required } : {}),
});
const str = (description: string): JsonObject => ({ type: "string", description });
const int = (description: string): JsonObject => ({ type: "integer", description });
const num = (description: string): JsonObject => ({ type: "number", description });
const bool = (description: string): JsonObject => ({ type: "boolean", description });
const map = (description: string, value: JsonObject = { type: "object" }): JsonObject => ({
  type: "object",
  description,
  additionalProperties: value,
});

const SCHEMAS: Record<string, JsonObject> = {
  RunInfo: obj({
    benchmark_id: str("Unique id of this run."),
    sweep_id: str("Sweep id; absent outside sweeps."),
    random_seed: int("The resolved random seed."),
    trial: int("Trial index."),
    cli_command: str("The command line, secrets replaced by <redacted>."),
    server: map("What the server said it is (/v1/version, /v1/metadata, /version); absent when it said nothing."),
  }),
  MetricsResponse: obj({
    infermeter_version: str("infermeter version."),
    benchmark_id: str("Benchmark id."),
    model: str("Model name(s), comma separated."),
    endpoint_type: str("Endpoint type."),
    streaming: bool("Whether streaming is on."),
    concurrency: int("Concurrency setting."),
    request_rate: num("Request rate setting."),
    metrics: map("Live metric values keyed by tag: header, unit and avg/sum/count or value.", {
      type: "object",
      properties: {
        header: str("Name."),
        unit: str("Unit."),
        avg: num("Mean so far."),
        sum: num("Sum so far."),
        count: int("Values so far."),
        value: num("Single value."),
      },
    }),
  }),
  PhaseStats: obj({
    phase: str("Phase name (warmup, profiling)."),
    phase_name: str("Phase name."),
    start_ns: int("Epoch ns the phase started."),
    requests_end_ns: int("Epoch ns the phase ended, once it has."),
    total_expected_requests: int("Requests the phase will send, when known."),
    expected_duration_sec: num("Phase duration, when time-bounded."),
    requests_completed: int("Requests finished (success or error)."),
    request_errors: int("Requests that failed."),
    success_records: int("Successful records."),
    error_records: int("Failed records."),
    requests_per_second: num("Completion rate so far."),
    requests_eta_sec: num("Estimated seconds left, when known."),
    percent_complete: num("Progress in percent, when known."),
  }),
  ProgressResponse: obj({
    phases: map("Per-phase progress keyed by phase name.", { $ref: "#/components/schemas/PhaseStats" }),
    results_exported: bool("True once every artifact is written."),
    system_state: str("starting, running, complete, cancelled or failed."),
  }),
  WorkerStats: obj({
    worker_id: str("Worker id."),
    task_stats: obj({ total: int("Requests handled."), completed: int("Succeeded."), failed: int("Failed.") }),
    status: str("idle, running or stopped."),
  }),
  WorkersResponse: obj({
    workers: map("Per-worker stats keyed by worker id.", { $ref: "#/components/schemas/WorkerStats" }),
    worker_groups: map("One local group holding every worker."),
  }),
  BenchmarkResultsResponse: obj({
    status: { type: "string", enum: ["running", "complete", "cancelled", "incomplete"], description: "Run status." },
    results: { type: ["object", "null"], description: "profile_export_aiperf.json's content once complete." },
  }, ["status"]),
  ResultsListResponse: obj({
    files: {
      type: "array",
      items: obj({ name: str("Path relative to the artifact directory."), size: int("Bytes.") }),
    },
    ready: bool("True once every artifact is written."),
    processing: bool("True while exports are being written."),
    partial: bool("True when an exporter failed."),
    failed_exporters: { type: "array", items: { type: "string" } },
  }),
};

interface Route {
  readonly path: string;
  readonly tag: string;
  readonly summary: string;
  readonly description: string;
  /** A schema name, or a media type for plain responses. */
  readonly response: string;
  readonly errors?: Record<string, string>;
  readonly pathParam?: string;
}

export const API_ROUTES: readonly Route[] = [
  {
    path: "/api/config",
    tag: "API",
    summary: "Benchmark configuration",
    description: "The run's configuration (input_config of the JSON export). The API key is never included.",
    response: "object",
  },
  {
    path: "/api/run",
    tag: "API",
    summary: "Run identity",
    description:
      "benchmark_id, seed and the redacted command line: the run_info block of profile_export_aiperf.json, with the " +
      "same keys (once the exports are written, that very block, which adds what the server said it is).",
    response: "RunInfo",
  },
  {
    path: "/api/metrics",
    tag: "Metrics",
    summary: "Live metrics (JSON)",
    description: "Running metric values of the profiling phase, updated as records arrive.",
    response: "MetricsResponse",
  },
  {
    path: "/metrics",
    tag: "Metrics",
    summary: "Live metrics (Prometheus)",
    description: "Prometheus text exposition format 0.0.4; every name starts with infermeter_.",
    response: "text/plain",
  },
  {
    path: "/api/progress",
    tag: "API",
    summary: "Per-phase progress",
    description: "Requests completed and failed per phase, rate and ETA.",
    response: "ProgressResponse",
  },
  {
    path: "/api/workers",
    tag: "API",
    summary: "Per-worker stats",
    description: "Requests handled and failed per engine worker, and its state.",
    response: "WorkersResponse",
  },
  {
    path: "/api/results",
    tag: "Results",
    summary: "Final results",
    description:
      "status 'running' until the exports are written, then 'complete' (or 'cancelled') with the JSON export's content.",
    response: "BenchmarkResultsResponse",
  },
  {
    path: "/api/results/list",
    tag: "Results",
    summary: "Artifact files",
    description:
      "The files the run wrote (its run_manifest.json; without one, the known export names), as relative paths and " +
      "sizes, listed once the exports are written. Other files in the directory, symbolic links and the lock are not.",
    response: "ResultsListResponse",
  },
  {
    path: "/api/results/files/{filename}",
    tag: "Results",
    summary: "Download an artifact",
    description:
      "One file the run wrote, by relative path (one /api/results/list shows). Paths leaving the directory are refused (400); any other file is 404; files are served once the exports are written (404 before).",
    response: "application/octet-stream",
    pathParam: "filename",
    errors: {
      "400": "Path outside the artifact directory",
      "404": "Not a file the run wrote, or results not ready",
    },
  },
  {
    path: "/healthz",
    tag: "Health",
    summary: "Liveness",
    description: "200 'ok'; 503 'unhealthy' when the run failed.",
    response: "text/plain",
    errors: { "503": "unhealthy" },
  },
  {
    path: "/readyz",
    tag: "Health",
    summary: "Readiness",
    description:
      "200 'ok' only while the benchmark runs, as AIPerf's; otherwise 503 'not ready: <state>' (starting, complete, " +
      "cancelled, failed), so a finished run reads 'not ready: complete'.",
    response: "text/plain",
    errors: { "503": "not ready: starting | complete | cancelled | failed" },
  },
];

/** The OpenAPI document. */
export function openApiDoc(version: string): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const r of API_ROUTES) {
    const content = SCHEMAS[r.response] !== undefined
      ? { "application/json": { schema: { $ref: `#/components/schemas/${r.response}` } } }
      : r.response === "object"
      ? { "application/json": { schema: { type: "object" } } }
      : { [r.response]: { schema: { type: "string" } } };
    const responses: Record<string, JsonObject> = { "200": { description: "OK", content } };
    for (const [code, description] of Object.entries(r.errors ?? {})) responses[code] = { description };
    paths[r.path] = {
      get: {
        tags: [r.tag],
        summary: r.summary,
        description: r.description,
        operationId: r.path.replace(/[^a-z]+/gi, "_").replace(/^_|_$/g, ""),
        ...(r.pathParam
          ? { parameters: [{ name: r.pathParam, in: "path", required: true, schema: { type: "string" } }] }
          : {}),
        responses,
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "infermeter API",
      version,
      description: "Live state and results of one infermeter profile run.",
    },
    paths,
    components: { schemas: SCHEMAS },
  };
}
