/**
 * The shape of `profile_export_aiperf.json` beyond its metric blocks: AIPerf 0.13's document (schema 1.4) and
 * infermeter's own `infermeter` block. The writer (`json_export.ts`) builds these types and the reader
 * (`report/run_export.ts`) reads through them, so a key cannot differ between the two.
 */
import type { JsonObject, JsonValue } from "./json_value.ts";

/** A statistics block as exported (`unit`, `avg`, `p1`…`p99`, `min`, `max`, `std`, `count`, `sum`). */
export type StatsJson = JsonObject & { readonly unit?: string; readonly avg?: number | null };

/** `run_info` (schema ≥ 1.3). */
export interface RunInfoJson {
  readonly benchmark_id: string;
  readonly sweep_id?: string | null;
  readonly random_seed: number | null;
  readonly trial: number;
  readonly cli_command: string | null;
  readonly server?: JsonObject;
}

/** What the client itself did and cost (`infermeter` block); every field optional for a reader. */
export interface InfermeterBlockJson {
  /** The infermeter release that wrote the file. */
  readonly version: string;
  readonly schedule_lateness?: StatsJson;
  readonly load?: JsonObject;
  readonly client_cpu?: {
    readonly percent_of_core?: number;
    readonly over_threshold?: boolean;
    readonly threshold_percent?: number;
    readonly [key: string]: JsonValue | undefined;
  } | null;
  readonly dispatch_overhead_ms?: StatsJson | null;
  readonly workers?: number;
  readonly peak_rss_bytes?: number;
  readonly [key: string]: JsonValue | undefined;
}

/** The document's fields other than the metrics (which are top-level keys named by tag). */
export interface SummaryDocumentHead {
  readonly schema_version: string;
  readonly aiperf_version: string;
  readonly benchmark_id: string;
  readonly telemetry_data?: JsonObject;
  readonly input_config: JsonObject;
  readonly run_info: RunInfoJson;
  readonly was_cancelled: boolean;
  readonly is_complete: boolean;
  readonly incomplete_reason?: string;
  readonly error_summary: readonly JsonValue[];
  readonly start_time?: string;
  readonly end_time?: string;
  readonly warmup_metrics?: JsonObject;
  /** Verification steps by accepted drafts, pooled over the run's successful requests (speculative decoding). */
  readonly pooled_spec_decode_acceptance_histogram?: Readonly<Record<string, number>>;
  /** `--threshold` results: `{threshold, metric, stat, op, limit, unit, observed, ok}` each (infermeter's). */
  readonly thresholds?: readonly JsonObject[];
  readonly infermeter?: InfermeterBlockJson;
}

/** The whole document: the head plus one block per metric tag. */
export type SummaryDocument = SummaryDocumentHead & { readonly [tag: string]: JsonValue | undefined };

/** "infermeter 0.1.0" or "aiperf 0.13.0": who wrote a summary document (infermeter writes both versions). */
export function summaryProducer(doc: Partial<SummaryDocumentHead>): string {
  if (typeof doc.infermeter?.version === "string") return `infermeter ${doc.infermeter.version}`;
  if (typeof doc.aiperf_version === "string") return `aiperf ${doc.aiperf_version}`;
  return "unknown";
}
