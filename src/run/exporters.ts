/**
 * The summary exporters: each writes one file from the finished run (the per-record files are record sinks).
 * Adding a format (an HTML report, a server-metrics CSV) is one entry here; the console footer lists what each
 * wrote, in this order.
 */
import { Registry, type RegistryEntry } from "../base/registry.ts";
import type { RunSummary } from "../metrics/run_summary.ts";
import type { ArtifactPaths } from "../export/artifact_paths.ts";
import { type SummaryJsonInfo, writeSummaryJson } from "../export/json_export.ts";
import { writeSummaryCsv } from "../export/csv_export.ts";

/** What a summary exporter reads. */
export interface FinishedRun {
  readonly summary: RunSummary;
  readonly paths: ArtifactPaths;
  /** The JSON export's identity, configuration, warmup and `infermeter` blocks. */
  readonly info: SummaryJsonInfo;
}

export interface Exporter extends RegistryEntry {
  /** Its line in the console footer. */
  readonly label: string;
  /** Where it writes. */
  path(paths: ArtifactPaths): string;
  /** Writes the file at `path(run.paths)`. */
  write(run: FinishedRun): Promise<void>;
}

export const EXPORTERS: Registry<Exporter> = new Registry<Exporter>("exporter", [
  {
    name: "csv",
    description: "profile_export_aiperf.csv: every metric's statistics (AIPerf's CSV)",
    label: "CSV Export",
    path: (paths) => paths.summaryCsv,
    write: (run) => writeSummaryCsv(run.paths.summaryCsv, run.summary),
  },
  {
    name: "json",
    description: "profile_export_aiperf.json: statistics, configuration and run identity (AIPerf's JSON)",
    label: "JSON Export",
    path: (paths) => paths.summaryJson,
    write: (run) => writeSummaryJson(run.paths.summaryJson, run.summary, run.info),
  },
]);
