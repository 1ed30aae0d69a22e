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
