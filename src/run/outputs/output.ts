/**
 * What a run writes, declared once per artifact (k6's `Output`): when it is written, an optional record sink opened
 * before anything is sent (per-record files), how it is written from the finished run, and an optional console
 * section. Every file goes through one {@linkcode OutputWriter}: whole files are written to a temporary name and
 * renamed (a full disk leaves no truncated file), failures are recorded (exit 4) and never lose the other files, and
 * what was written is listed in the console footer and the run manifest.
 */
import type { ColumnStore } from "../../metrics/float64_column.ts";
import type { RegistryEntry } from "../../base/registry.ts";
import type { ProfileConfig } from "../../config/profile_config.ts";
import type { ArtifactPaths } from "../../export/artifact_paths.ts";
import type { SummaryJsonInfo } from "../../export/json_export.ts";
import type { ManifestRole } from "../../export/run_manifest.ts";
import type { GoodputEvaluator } from "../../metrics/goodput.ts";
import type { MetricDef } from "../../metrics/metric_def.ts";
import type { RunSummary } from "../../metrics/run_summary.ts";
import type { PreparedConversation } from "../../engine/prepared_conversation.ts";
import type { TelemetryResult } from "../telemetry_session.ts";
import type { RecordSink } from "../record_sink.ts";
import type { UnwrittenFile } from "../unwritten_file.ts";
import type { HtmlSection } from "../../report/report_html.ts";
import type { Logger } from "../../ui/logger.ts";
import type { AccuracyGold } from "../../dataset/accuracy/accuracy_gold.ts";
import type { LiveRun } from "../live_run.ts";

/** One file of a run, as the footer and the manifest list it. */
export interface OutputFile {
  readonly role: ManifestRole;
  /** As in the console footer ("JSON Export"). */
  readonly label: string;
  readonly path: string;
}

/** What an output's record sink is opened with. */
export interface SinkContext {
  readonly config: ProfileConfig;
  readonly paths: ArtifactPaths;
  readonly metrics: readonly MetricDef[];
  readonly goodput?: GoodputEvaluator;
  /** The requests' constant headers (the raw export writes them). */
  readonly commonHeaders: ReadonlyArray<readonly [string, string]>;
  /** Epoch ms at run-clock 0. */
  readonly timeOriginMs: number;
  /** A warmup phase runs before profiling. */
  readonly withWarmup: boolean;
  /** Hears of a write that failed mid-run (the run goes on; the summary still counts every record). */
  readonly onWriteFailure: (path: string) => (err: unknown) => void;
  /** The run's log: per-record reports (`--accuracy-verbose`); outputs that talk to a service (a collector, a
   * tracking server) log their failures as warnings. */
  readonly logger: Logger;
  /** An accuracy benchmark's grading (`--accuracy-benchmark`). */
  readonly accuracy?: AccuracyGold;
  /** The run's id (summary JSON's `benchmark_id`). */
  readonly benchmarkId: string;
  /** Where long columns hand their segments (the run's spill file); without one they stay in memory. */
  readonly store?: ColumnStore;
}

/** A record sink an output opened; after `close()`, what a write failure lost. */
export interface OutputSink extends RecordSink {
  unwritten?(): UnwrittenFile | undefined;
  /** Given the run's live view when the engine starts (phases, requests in flight), for outputs that stream it. */
  watchLive?(live: LiveRun): void;
}

/** What a run that sent requests measured. */
export interface RunResults {
  readonly summary: RunSummary;
  /** The JSON export's identity, configuration, warmup, telemetry and `infermeter` blocks. */
  readonly info: SummaryJsonInfo;
  /** Server metrics and GPU summaries over the profiling window, when scraped. */
  readonly telemetry?: TelemetryResult;
}

/** What an output is written from, once the run is over. */
export interface PublishContext {
  readonly config: ProfileConfig;
  readonly paths: ArtifactPaths;
  /** Absent when nothing was sent (an unreachable server): only the outputs that need no results write then. */
  readonly results?: RunResults;
  readonly conversations: readonly PreparedConversation[];
  /** This output's own record sink, closed. */
  readonly sink?: OutputSink;
  /** The console text (tables and footer), for the outputs that show it; set before the first of them runs. */
  readonly consoleText?: string;
  /** Files written so far, in order. */
  readonly written: readonly OutputFile[];
  readonly unwritten: readonly UnwrittenFile[];
  /** The log file, and why it is incomplete when it is. */
  readonly log: { readonly path: string; readonly failure?: unknown };
  readonly timeOriginMs: number;
  /** What outputs computed for their console or report sections, by output name (filled as they finish). */
  readonly shared: Map<string, unknown>;
  /** Every output of the run, in writing order. */
  readonly outputs: readonly Output[];
  readonly benchmarkId: string;
  /** For outputs that talk to a service: its failures are warnings and never fail the run. */
  readonly logger: Logger;
}

/** Writes files for the outputs: whole files atomically; records what was written and what failed. */
export interface OutputWriter {
  /** Writes `data` to `file.path` (temporary name, then rename); false (recorded, never thrown) when it failed. */
  write(file: OutputFile, data: string | Uint8Array): Promise<boolean>;
  /** Like `write`, for a file too big for one string: `writeTo` writes it at the path it is given (temporary). */
  stream(file: OutputFile, writeTo: (path: string) => Promise<void>): Promise<boolean>;
  /** A file written by other means (a record sink, the log): listed as written. */
  listed(file: OutputFile): void;
  /** A file that could not be written in full. */
  failed(file: UnwrittenFile): void;
}

export interface Output extends RegistryEntry {
  /** Written by this run (its options ask for it). */
  enabled(config: ProfileConfig): boolean;
  /** The files it writes when it writes (listed ahead in the footer for the outputs that show the footer). */
  files(paths: ArtifactPaths): readonly OutputFile[];
  /** Opens its record sink, before anything is sent; a failure to create the file is an input error. */
  sink?(ctx: SinkContext): Promise<OutputSink> | OutputSink;
  /** Shows the console text: the console text is rendered before this output runs. */
  readonly showsConsole?: boolean;
  /** Writes its files from the finished run through `writer`. */
  finish(ctx: PublishContext, writer: OutputWriter): Promise<void>;
  /** Its section of the console text (a table), after the metrics and errors. */
  console?(ctx: PublishContext, width: number): string | undefined;
  /** Its section is shown by `--console compact` too (asked for, or rare and short); else by `full` only. */
  readonly compactConsole?: boolean;
  /** Its sections of report.html, after the errors (from what its `finish` left in `ctx.shared`). */
  report?(ctx: PublishContext): readonly HtmlSection[];
}
