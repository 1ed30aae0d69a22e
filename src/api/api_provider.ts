/**
 * What the embedded API reads, as plain functions and data handed in by the run (the API never imports the run):
 * identity and configuration (already redacted), the live view, per-worker counts, final results, and where the
 * artifacts are. Every function is cheap and side-effect free; the API calls them per request.
 */
import type { JsonObject } from "../export/json_export.ts";

/** The API's own lifecycle, which `/healthz` and `/readyz` report. */
export type ApiRunState = "starting" | "running" | "complete" | "cancelled" | "failed";

export interface ApiPhase {
  readonly name: string;
  /** Epoch ms. */
  readonly startedAtMs: number;
  readonly completed: number;
  readonly errors: number;
  readonly expected?: number;
  readonly durationSec?: number;
  /** Epoch ms the phase ended (the next began or the run finished). */
  readonly endedAtMs?: number;
}

/** One live metric value, in its display unit. */
export interface ApiLiveMetric {
  readonly tag: string;
  readonly header: string;
  readonly unit: string;
  /** Running mean (record metrics). */
  readonly avg?: number;
  /** Running sum (record metrics). */
  readonly sum?: number;
  /** Count of values behind `avg` and `sum`. */
  readonly count?: number;
  /** Single value (counts, throughputs). */
  readonly value?: number;
}

export interface ApiWorker {
  readonly workerId: string;
  readonly completed: number;
  readonly errors: number;
  /** `idle` before its first record, `running`, then `stopped` once the run is over. */
  readonly status: "idle" | "running" | "stopped";
}

export interface ApiIdentity {
  readonly benchmarkId: string;
  readonly model: string;
  readonly endpointType: string;
  readonly streaming: boolean;
  readonly concurrency?: number;
  readonly requestRate?: number;
  readonly version: string;
}

export type ApiResultsStatus = "running" | "complete" | "cancelled" | "incomplete";

export interface ApiProvider {
  readonly identity: ApiIdentity;
  /** The run's configuration (`input_config` of the JSON export, without any secret). */
  config(): JsonObject;
  /** `run_info` of the JSON export (redacted command line). */
  runInfo(): JsonObject;
  state(): ApiRunState;
  phases(): readonly ApiPhase[];
  liveMetrics(): readonly ApiLiveMetric[];
  workers(): readonly ApiWorker[];
  /** Final results once the exports are written; the status alone before. */
  results(): { readonly status: ApiResultsStatus; readonly results?: JsonObject };
  /** The artifact directory; files are served only from inside it, and only once `resultsReady()`. */
  readonly artifactDir: string;
  resultsReady(): boolean;
}
