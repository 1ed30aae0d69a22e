/** `profile_export.jsonl`: one line per profiling record, written as records are measured (`--export-level`). */
import { JsonlSink } from "../sinks/jsonl_sink.ts";
import type { Output } from "./output.ts";
import { finishRecordFile, openRecordFile } from "./record_file.ts";

export const RECORDS_OUTPUT: Output = {
  name: "records_jsonl",
  description: "profile_export.jsonl: every request's record and metric values (AIPerf's JSONL)",
  enabled: (config) => config.exportLevel !== "summary",
  files: (paths) => [{ role: "records_jsonl", label: "JSONL Export", path: paths.recordsJsonl }],
  sink: (ctx) =>
    openRecordFile(
      ctx.paths.recordsJsonl,
      ctx,
      (onFailure) => JsonlSink.open(ctx.paths.recordsJsonl, ctx.metrics, ctx.timeOriginMs, ctx.withWarmup, onFailure),
    ),
  finish: (ctx, writer) => finishRecordFile(RECORDS_OUTPUT.files(ctx.paths)[0], ctx, writer),
};
