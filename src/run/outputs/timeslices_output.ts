/** `profile_export_aiperf_timeslices.{csv,json}`: the metrics of each `--slice-duration` window. */
import { renderTimeslicesCsv, renderTimeslicesJson } from "../../export/timeslice_export.ts";
import { TimesliceSink } from "../sinks/timeslice_sink.ts";
import type { Output } from "./output.ts";

export const TIMESLICES_OUTPUT: Output = {
  name: "timeslices",
  description: "profile_export_aiperf_timeslices.{csv,json}: metrics per --slice-duration window (AIPerf's layout)",
  enabled: (config) => config.sliceDuration !== undefined,
  files: (paths) => [
    { role: "timeslices_csv", label: "Timeslice CSV Export", path: paths.timeslicesCsv },
    { role: "timeslices_json", label: "Timeslice JSON Export", path: paths.timeslicesJson },
  ],
  sink: (ctx) =>
    new TimesliceSink(ctx.metrics, ctx.config.sliceDuration! * 1000, {
      timeOriginMs: ctx.timeOriginMs,
      goodput: ctx.goodput,
      store: ctx.store,
    }),
  async finish(ctx, writer) {
    if (!(ctx.sink instanceof TimesliceSink) || ctx.results === undefined) return;
    const slices = ctx.sink.timeslices();
    const [csv, json] = TIMESLICES_OUTPUT.files(ctx.paths);
    await writer.write(csv, renderTimeslicesCsv(slices, ctx.timeOriginMs));
    await writer.write(json, renderTimeslicesJson(slices, ctx.timeOriginMs, ctx.results.info.inputConfig));
  },
};
