/** `profile_export_raw.jsonl`: every request and response as sent and received (`--export-level raw`). */
import { RawSink } from "../sinks/raw_sink.ts";
import type { Output } from "./output.ts";
import { finishRecordFile, openRecordFile } from "./record_file.ts";

export const RAW_OUTPUT: Output = {
  name: "raw_jsonl",
  description: "profile_export_raw.jsonl: each request's payload and response chunks (AIPerf's raw export)",
  enabled: (config) => config.exportLevel === "raw",
  files: (paths) => [{ role: "raw_jsonl", label: "Raw Records", path: paths.rawJsonl }],
  sink: (ctx) =>
    openRecordFile(
      ctx.paths.rawJsonl,
      ctx,
      (onFailure) =>
        RawSink.open(ctx.paths.rawJsonl, {
          timeOriginMs: ctx.timeOriginMs,
          commonHeaders: ctx.commonHeaders,
          withWarmup: ctx.withWarmup,
        }, onFailure),
    ),
  finish: (ctx, writer) => finishRecordFile(RAW_OUTPUT.files(ctx.paths)[0], ctx, writer),
};
