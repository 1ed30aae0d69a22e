/**
 * The result files a run upload sends, chosen by globs relative to the run directory as AIPerf chooses them (Python's
 * `Path.glob`): `*` and `?` stay within one directory level, `**` spans any number of levels (none included), so
 * `*.json` is the top level only and `**` + `/*.png` every level. Files come pattern by pattern, sorted, each once.
 */
import { joinPath } from "../runtime/file_path.ts";

/** AIPerf's default upload globs (MLflow and Weights & Biases alike). */
export const DEFAULT_ARTIFACT_GLOBS: readonly string[] = [
  "*.json",
  "*.csv",
  "*.jsonl",
  "*.parquet",
  "*_timeslices.*",
  "**/*.png",
  "**/*.jpg",
  "**/*.jpeg",
  "**/*.svg",
  "**/*.html",
];

/** `pattern` as a regular expression over `/`-separated relative paths. */
export function globRegExp(pattern: string): RegExp {
  let re = "";
  const parts = pattern.replace(/^\.\//, "").split("/");
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    const last = i === parts.length - 1;
    if (part === "**") {
      re += last ? ".*" : "(?:[^/]+/)*";
      continue;
    }
    for (const ch of part) {
      if (ch === "*") re += "[^/]*";
      else if (ch === "?") re += "[^/]";
      else re += ch.replace(/[.+^${}()|[\]\\]/g, "\\$&");
    }
    if (!last) re += "/";
  }
  return new RegExp(`^${re}$`);
}

/** Every file under `dir` matching one of `patterns`, as `/`-separated paths relative to `dir`. */
export async function globFiles(dir: string, patterns: readonly string[]): Promise<string[]> {
  const all = (await walk(dir, "")).sort();
  const out: string[] = [];
  const seen = new Set<string>();
  for (const pattern of patterns) {
    const re = globRegExp(pattern.trim());
    for (const path of all) {
      if (!seen.has(path) && re.test(path)) {
        seen.add(path);
        out.push(path);
      }
    }
  }
  return out;
}

/** Files under `dir`, as `/`-separated paths relative to it prefixed with `prefix`. */
async function walk(dir: string, prefix: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = prefix + entry.name;
    if (entry.isDirectory) out.push(...await walk(joinPath(dir, entry.name), path + "/"));
    else if (entry.isFile) out.push(path);
  }
  return out;
}
