/**
 * Every artifact a run writes, in writing order: the per-record files (sinks during the run), then the files written
 * from the summary, then the ones that show the console text (report.html, the console file), the log, and the
 * manifest listing them all. A new artifact is one file in this folder and one line here.
 */
import { Registry } from "../../base/registry.ts";
import type { ProfileConfig } from "../../config/profile_config.ts";
import type { Output } from "./output.ts";
import { RECORDS_OUTPUT } from "./records_output.ts";
import { RAW_OUTPUT } from "./raw_output.ts";
import { ACCURACY_OUTPUT } from "./accuracy_output.ts";
import { INPUTS_OUTPUT } from "./inputs_output.ts";
import { TIMESLICES_OUTPUT } from "./timeslices_output.ts";
import { SERVER_METRICS_OUTPUT } from "./server_metrics_output.ts";
import { GPU_TELEMETRY_OUTPUT } from "./gpu_telemetry_output.ts";
import { PEER_METRICS_OUTPUT } from "./peer_metrics_output.ts";
import { SERVER_TIMING_OUTPUT } from "./server_timing_output.ts";
import { SPEC_DECODE_OUTPUT } from "./spec_decode_output.ts";
import { SUMMARY_CSV_OUTPUT } from "./summary_csv_output.ts";
import { SUMMARY_JSON_OUTPUT } from "./summary_json_output.ts";
import { BUNDLE_OUTPUT } from "./bundle_output.ts";
import { REPORT_OUTPUT } from "./report_output.ts";
import { CONSOLE_OUTPUT } from "./console_output.ts";
import { LOG_OUTPUT } from "./log_output.ts";
import { OTEL_OUTPUT } from "./otel_output.ts";
import { MLFLOW_OUTPUT } from "./mlflow_output.ts";
import { WANDB_OUTPUT } from "./wandb_output.ts";
import { MANIFEST_OUTPUT } from "./manifest_output.ts";

export const OUTPUTS: Registry<Output> = new Registry<Output>("output", [
  RECORDS_OUTPUT,
  RAW_OUTPUT,
  ACCURACY_OUTPUT,
  INPUTS_OUTPUT,
  TIMESLICES_OUTPUT,
  SERVER_METRICS_OUTPUT,
  GPU_TELEMETRY_OUTPUT,
  PEER_METRICS_OUTPUT,
  SERVER_TIMING_OUTPUT,
  SPEC_DECODE_OUTPUT,
  SUMMARY_CSV_OUTPUT,
  SUMMARY_JSON_OUTPUT,
  BUNDLE_OUTPUT,
  REPORT_OUTPUT,
  CONSOLE_OUTPUT,
  OTEL_OUTPUT,
  MLFLOW_OUTPUT,
  WANDB_OUTPUT,
  LOG_OUTPUT,
  MANIFEST_OUTPUT,
]);

/** The outputs this run writes, in writing order. */
export function selectOutputs(config: ProfileConfig): readonly Output[] {
  return OUTPUTS.entries().filter((o) => o.enabled(config));
}
