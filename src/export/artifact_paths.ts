/**
 * Where a run writes its files (AIPerf §3.1–3.2). Unless `--artifact-dir` was given explicitly, each run gets
 * its own subdirectory `<model>-<endpoint type>-<stimulus>` (e.g. `artifacts/Qwen_Qwen3-0.6B-chat-concurrency1`);
 * identical runs overwrite the same directory, as in AIPerf.
 *
 * `--profile-export-prefix foo` renames the exports the way AIPerf does: `foo.json`, `foo.csv`, `foo.jsonl`,
 * `foo_raw.jsonl`, `foo_console.txt`, after stripping a known suffix the user may have typed
 * (`foo.json`, `foo_raw.jsonl`, ... → `foo`). `inputs.json` keeps its name, as in AIPerf.
 */
import { joinPath as join } from "../runtime/file_path.ts";
import { formatPyFloat } from "./number_format.ts";

/** The config fields that name the artifact directory. */
export interface ArtifactDirConfig {
  readonly artifactDir: string;
  /** `--artifact-dir` was given: no per-run subdirectory is added. */
  readonly artifactDirExplicit: boolean;
  readonly modelNames: readonly string[];
  readonly endpointType: string;
  readonly concurrency?: number;
  readonly requestRate?: number;
}

/** `concurrency{N}` and/or `request_rate{R}` joined with `-`; concurrency defaults to 1 without a rate. */
export function stimulusName(concurrency: number | undefined, requestRate: number | undefined): string {
  const parts: string[] = [];
  const effective = concurrency ?? (requestRate === undefined ? 1 : undefined);
  if (effective !== undefined) parts.push(`concurrency${effective}`);
  if (requestRate !== undefined) parts.push(`request_rate${formatPyFloat(requestRate)}`);
  return parts.join("-");
}

/** The per-run directory name: first model (`/` → `_`, `_multi` when several), endpoint type, stimulus. */
export function artifactRunName(config: Omit<ArtifactDirConfig, "artifactDir" | "artifactDirExplicit">): string {
  const first = config.modelNames[0] ?? "model";
  const model = (config.modelNames.length > 1 ? `${first}_multi` : first).replaceAll("/", "_");
  return [model, config.endpointType, stimulusName(config.concurrency, config.requestRate)].join("-");
}

/** The directory this run writes to. */
export function resolveArtifactDir(config: ArtifactDirConfig): string {
  return config.artifactDirExplicit ? config.artifactDir : join(config.artifactDir, artifactRunName(config));
}

/** Suffixes stripped from `--profile-export-prefix`, longest first (AIPerf's list). */
const PREFIX_SUFFIXES = [
  "_server_metrics.parquet",
  "_server_metrics.jsonl",
  "_server_metrics.json",
  "_server_metrics.csv",
  "_network_latency.jsonl",
  "_gpu_telemetry.jsonl",
  "_timeslices.csv",
  "_timeslices.json",
  "_console.txt",
  "_outputs.json",
  "_raw.jsonl",
  ".parquet",
  ".csv",
  ".json",
  ".jsonl",
] as const;

/** The export base name of a `--profile-export-prefix` value (known suffixes stripped); undefined if unset. */
export function exportBaseName(prefix: string | undefined): string | undefined {
  if (prefix === undefined || prefix === "") return undefined;
  for (const suffix of PREFIX_SUFFIXES) {
    if (prefix.endsWith(suffix)) return prefix.slice(0, -suffix.length) || undefined;
  }
  return prefix;
}

/** Every file path of one run. */
export interface ArtifactPaths {
  readonly dir: string;
  /** `profile_export_aiperf.json` | `<prefix>.json` */
  readonly summaryJson: string;
  /** `profile_export_aiperf.csv` | `<prefix>.csv` */
  readonly summaryCsv: string;
  /** `profile_export.jsonl` | `<prefix>.jsonl` */
  readonly recordsJsonl: string;
  /** `profile_export_raw.jsonl` | `<prefix>_raw.jsonl` */
  readonly rawJsonl: string;
  /** `profile_export_console.txt` | `<prefix>_console.txt` */
  readonly consoleTxt: string;
  /** `inputs.json` (never prefixed). */
  readonly inputsJson: string;
  /** `server_metrics_export.json` | `<prefix>_server_metrics.json` */
  readonly serverMetricsJson: string;
  /** `server_metrics_export.csv` | `<prefix>_server_metrics.csv` */
  readonly serverMetricsCsv: string;
  /** `profile_export_aiperf_timeslices.json` | `<prefix>_timeslices.json` (`--slice-duration`). */
  readonly timeslicesJson: string;
  /** `profile_export_aiperf_timeslices.csv` | `<prefix>_timeslices.csv` (`--slice-duration`). */
  readonly timeslicesCsv: string;
  /** `accuracy_results.csv` (never prefixed; `--accuracy-benchmark`). */
  readonly accuracyCsv: string;
  /** `accuracy_export.jsonl` | `<prefix>_accuracy.jsonl` (`--accuracy-benchmark`). */
  readonly accuracyJsonl: string;
}

/** File paths inside `dir`, renamed by `--profile-export-prefix` when given. */
export function artifactPaths(dir: string, profileExportPrefix?: string): ArtifactPaths {
  const base = exportBaseName(profileExportPrefix);
  const name = (prefixed: string, fallback: string) => join(dir, base === undefined ? fallback : base + prefixed);
  return {
    dir,
    summaryJson: name(".json", "profile_export_aiperf.json"),
    summaryCsv: name(".csv", "profile_export_aiperf.csv"),
    recordsJsonl: name(".jsonl", "profile_export.jsonl"),
    rawJsonl: name("_raw.jsonl", "profile_export_raw.jsonl"),
    consoleTxt: name("_console.txt", "profile_export_console.txt"),
    inputsJson: join(dir, "inputs.json"),
    serverMetricsJson: name("_server_metrics.json", "server_metrics_export.json"),
    serverMetricsCsv: name("_server_metrics.csv", "server_metrics_export.csv"),
    timeslicesJson: name("_timeslices.json", "profile_export_aiperf_timeslices.json"),
    timeslicesCsv: name("_timeslices.csv", "profile_export_aiperf_timeslices.csv"),
    accuracyCsv: join(dir, "accuracy_results.csv"),
    accuracyJsonl: name("_accuracy.jsonl", "accuracy_export.jsonl"),
  };
}
