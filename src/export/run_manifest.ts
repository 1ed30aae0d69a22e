/**
 * `run_manifest.json`: what a run directory holds, written last by every run (and by every sweep or repeated run for
 * its points), so readers (`plot`, `compare`, report.html, the HTTP API's file list) find files by role instead of
 * guessing names. A directory without one is read by AIPerf's file names (AIPerf's own runs).
 *
 * ```json
 * {"producer": "infermeter", "version": "0.1.0", "schema_version": 1, "kind": "run",
 *  "files": [{"role": "summary_json", "label": "JSON Export", "path": "profile_export_aiperf.json"}, …]}
 * {"producer": "infermeter", "version": "0.1.0", "schema_version": 1, "kind": "sweep",
 *  "files": [{"role": "sweep_json", …}], "points": [{"label": "concurrency_4", "dir": "concurrency_4"}, …]}
 * ```
 * Paths are relative to the manifest's directory.
 */
import { joinPath } from "../runtime/file_path.ts";

export const MANIFEST_FILE = "run_manifest.json";
export const MANIFEST_SCHEMA_VERSION = 1;

/** What a file is for; readers ask for a role, never a name. */
export type ManifestRole =
  | "summary_json"
  | "summary_csv"
  | "records_jsonl"
  | "raw_jsonl"
  | "inputs_json"
  | "console_txt"
  | "log"
  | "report_html"
  | "timeslices_json"
  | "timeslices_csv"
  | "server_metrics_json"
  | "server_metrics_csv"
  | "aggregate_json"
  | "aggregate_csv"
  | "sweep_json"
  | "sweep_csv"
  | "peer_metrics_json"
  | "server_timing_json"
  | "run_bundle"
  | "search_history_json"
  | "search_answer_json"
  | "sla_breach_json"
  | "degradation_knee_json"
  | "pareto_sweep_json"
  | "accuracy_csv"
  | "accuracy_jsonl"
  | "prefill_curve_json"
  | "decode_itl_surface_json"
  | "mlflow_export_json"
  | "other";

export interface ManifestFile {
  readonly role: ManifestRole;
  readonly label: string;
  /** Relative to the manifest's directory, `/`-separated. */
  readonly path: string;
}

/** One run of a sweep or a repeated run. */
export interface ManifestPoint {
  readonly label: string;
  /** The point's own run directory (it holds its own manifest), relative to the manifest's directory. */
  readonly dir: string;
  /** The swept values (`{"concurrency": 4}`); empty for repeated runs. */
  readonly values?: Readonly<Record<string, number>>;
  /** How the run ended ("completed", "cancelled", an error). */
  readonly end?: string;
}

export interface RunManifest {
  readonly producer: string;
  readonly version: string;
  readonly schema_version: number;
  /** A single run, or a sweep / repeated run over points. */
  readonly kind: "run" | "sweep";
  readonly files: readonly ManifestFile[];
  readonly points?: readonly ManifestPoint[];
}

/** The manifest's text (2-space indented). */
export function renderManifest(m: RunManifest): string {
  return JSON.stringify(m, null, 2) + "\n";
}

/** Relative path of `path` inside `dir` (a path outside is kept as given). */
export function relativeTo(dir: string, path: string): string {
  const base = dir.endsWith("/") ? dir : dir + "/";
  return path.startsWith(base) ? path.slice(base.length) : path;
}

/**
 * Parses a manifest's text.
 * @throws {SyntaxError} naming what is wrong: readers fall back to file names only when there is no manifest.
 */
export function parseManifest(text: string, where: string): RunManifest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new SyntaxError(`${where}: not valid JSON (${(err as Error).message}).`);
  }
  const m = json as Partial<RunManifest> | null;
  if (typeof m !== "object" || m === null || typeof m.producer !== "string" || !Array.isArray(m.files)) {
    throw new SyntaxError(`${where}: not a run manifest (producer and files are missing).`);
  }
  if (m.kind !== "run" && m.kind !== "sweep") throw new SyntaxError(`${where}: unknown kind ${String(m.kind)}.`);
  const files = m.files.filter((f): f is ManifestFile =>
    typeof f?.path === "string" && typeof f.role === "string" && safeRelative(f.path)
  );
  const points = Array.isArray(m.points)
    ? m.points.filter((p): p is ManifestPoint => typeof p?.dir === "string" && safeRelative(p.dir))
    : undefined;
  return {
    producer: m.producer,
    version: typeof m.version === "string" ? m.version : "",
    schema_version: typeof m.schema_version === "number" ? m.schema_version : 0,
    kind: m.kind,
    files,
    ...(points === undefined ? {} : { points }),
  };
}

/** A relative `/`-separated path with no way out of its directory (no absolute path, drive, `..` or `\\`). */
function safeRelative(path: string): boolean {
  return path !== "" && !path.startsWith("/") && !/^[a-zA-Z]:/.test(path) && !path.includes("\\") &&
    !path.includes("\0") && path.split("/").every((s) => s !== "" && s !== "." && s !== "..");
}

/** The manifest of `dir`, or undefined when it has none. @throws {SyntaxError} when it has a broken one. */
export async function readManifest(dir: string): Promise<RunManifest | undefined> {
  const path = joinPath(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) return undefined;
    throw err;
  }
  return parseManifest(text, path);
}

/** The path of the first file of `role` in a manifest, resolved against its directory. */
export function manifestPath(dir: string, m: RunManifest, role: ManifestRole): string | undefined {
  const file = m.files.find((f) => f.role === role);
  return file === undefined ? undefined : joinPath(dir, file.path);
}
