/**
 * Where a run directory's files are: by its `run_manifest.json` when it has one (infermeter's runs, whatever
 * `--profile-export-prefix` named them), else by AIPerf's file names (AIPerf's own runs, older infermeter runs).
 */
import { manifestPath, readManifest, type RunManifest } from "../export/run_manifest.ts";
import { joinPath } from "../runtime/file_path.ts";
import { ReportError } from "./report_error.ts";

/** The manifest of `dir`; a broken one is a {@linkcode ReportError} naming the file. */
export async function runManifest(dir: string): Promise<RunManifest | undefined> {
  try {
    return await readManifest(dir);
  } catch (err) {
    if (err instanceof SyntaxError) throw new ReportError(err.message);
    return undefined;
  }
}

/** The per-request JSONL of a run directory (which may not exist). */
export async function recordsPathOf(dir: string): Promise<string> {
  const m = await runManifest(dir);
  return (m && manifestPath(dir, m, "records_jsonl")) ?? joinPath(dir, "profile_export.jsonl");
}

/** The console text file of a run directory (which may not exist). */
export async function consolePathOf(dir: string): Promise<string> {
  const m = await runManifest(dir);
  return (m && manifestPath(dir, m, "console_txt")) ?? joinPath(dir, "profile_export_console.txt");
}

/** The summary JSON (`profile_export_aiperf.json`) of a run directory (which may not exist). */
export async function summaryJsonPathOf(dir: string): Promise<string> {
  const m = await runManifest(dir);
  return (m && manifestPath(dir, m, "summary_json")) ?? joinPath(dir, "profile_export_aiperf.json");
}

/** The server-metrics JSON (`server_metrics_export.json`) of a run directory (which may not exist). */
export async function serverMetricsJsonPathOf(dir: string): Promise<string> {
  const m = await runManifest(dir);
  return (m && manifestPath(dir, m, "server_metrics_json")) ?? joinPath(dir, "server_metrics_export.json");
}

/**
 * The run directories `dir` stands for: itself when it is a run (a run manifest, or AIPerf's summary JSON), the
 * points of a sweep, else the runs and sweeps directly inside it, in name order (AIPerf's discovery, one level deep).
 */
export async function runDirsUnder(dir: string): Promise<string[]> {
  const own = await runDirsOf(dir);
  if (own !== undefined) return own;
  const children: string[] = [];
  for await (const entry of Deno.readDir(dir)) if (entry.isDirectory) children.push(entry.name);
  const out: string[] = [];
  for (const name of children.sort()) out.push(...(await runDirsOf(joinPath(dir, name))) ?? []);
  return out;
}

async function runDirsOf(dir: string): Promise<string[] | undefined> {
  const m = await runManifest(dir);
  if (m?.kind === "sweep") return (m.points ?? []).map((p) => joinPath(dir, p.dir));
  if (m?.kind === "run") return [dir];
  return (await isFile(joinPath(dir, "profile_export_aiperf.json"))) ? [dir] : undefined;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}
