/**
 * Which files of the artifact directory the API lists and serves: only those the run wrote. The run's
 * `run_manifest.json` names them (for a sweep, each point's manifest too); without a manifest, only the export
 * names AIPerf and infermeter write. Anything else placed in the directory (`notes.txt`, `.ssh/id_rsa`), the lock
 * file, and a symbolic link (whatever it points to) is neither listed nor served, and the answer for it is the same
 * as for a file that does not exist. Name checks and directory containment are `result_files.ts`'s.
 */
import { joinPath } from "../runtime/file_path.ts";
import { type ResolvedFile, resolveResultFile } from "./result_files.ts";
import { MANIFEST_FILE, readManifest } from "../export/run_manifest.ts";

export { MANIFEST_FILE };

/** The artifact-directory lock (`run/artifact_dir_lock.ts`); never served, even when a manifest names it. */
export const LOCK_FILE_NAME = "infermeter.lock";

/** What a run writes when there is no manifest to say so: AIPerf 0.13's export names and infermeter's own. */
export const KNOWN_EXPORT_NAMES: readonly string[] = [
  "profile_export_aiperf.json",
  "profile_export_aiperf.csv",
  "profile_export.jsonl",
  "profile_export_raw.jsonl",
  "profile_export_console.txt",
  "profile_export_aiperf_timeslices.json",
  "profile_export_aiperf_timeslices.csv",
  "profile_export_aiperf_aggregate.json",
  "profile_export_aiperf_aggregate.csv",
  "profile_export_aiperf_sweep.json",
  "profile_export_aiperf_sweep.csv",
  "inputs.json",
  "server_metrics_export.json",
  "server_metrics_export.csv",
  "server_metrics_export.jsonl",
  "gpu_telemetry_export.jsonl",
  "report.html",
  "logs/infermeter.log",
  MANIFEST_FILE,
];

export interface ServedFile {
  readonly name: string;
  readonly size: number;
}

/** The files of the manifest at `dir` (and of its sweep points'), or undefined without a readable one. */
async function manifestNames(dir: string, prefix = "", depth = 0): Promise<string[] | undefined> {
  const manifest = await readManifest(dir).catch(() => undefined);
  if (manifest === undefined) return undefined;
  const names = [`${prefix}${MANIFEST_FILE}`, ...manifest.files.map((f) => prefix + f.path)];
  // A sweep's points are runs of their own; one level deep is all a sweep writes.
  if (depth === 0) {
    for (const point of manifest.points ?? []) {
      names.push(...(await manifestNames(joinPath(dir, point.dir), `${prefix}${point.dir}/`, depth + 1)) ?? []);
    }
  }
  return names;
}

/** The relative names the API may serve from `dir` (the files need not exist). */
export async function servedFileNames(dir: string): Promise<Set<string>> {
  const names = (await manifestNames(dir)) ?? KNOWN_EXPORT_NAMES;
  return new Set(names.filter((n) => n.split("/").at(-1) !== LOCK_FILE_NAME));
}

/** A regular file (not a symbolic link) at `name` inside `dir`: its size, or undefined. */
async function plainFileSize(dir: string, name: string): Promise<number | undefined> {
  try {
    const info = await Deno.lstat(joinPath(dir, ...name.split("/")));
    return info.isFile && !info.isSymlink ? info.size : undefined;
  } catch {
    return undefined;
  }
}

/** The files of `dir` the API lists: served names that exist as regular files, sorted. */
export async function listServedFiles(dir: string): Promise<ServedFile[]> {
  const out: ServedFile[] = [];
  for (const name of await servedFileNames(dir)) {
    const size = await plainFileSize(dir, name);
    if (size !== undefined && (await resolveResultFile(dir, name)).ok) out.push({ name, size });
  }
  return out.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/**
 * `requested` (raw, possibly percent-encoded) resolved for download: `result_files.ts`'s checks (400 for a name
 * that could leave the directory), then 404 unless it is a served name and a regular file.
 */
export async function resolveServedFile(dir: string, requested: string): Promise<ResolvedFile> {
  const resolved = await resolveResultFile(dir, requested);
  if (!resolved.ok && resolved.status === 400) return resolved;
  let name: string;
  try {
    name = decodeURIComponent(requested);
  } catch {
    return { ok: false, status: 400, message: "Invalid filename: bad percent-encoding" };
  }
  const notFound: ResolvedFile = { ok: false, status: 404, message: `Result file not found: ${name}` };
  if (!resolved.ok || !(await servedFileNames(dir)).has(name)) return notFound;
  return (await plainFileSize(dir, name)) === undefined ? notFound : resolved;
}
