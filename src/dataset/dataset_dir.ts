/**
 * Directory inputs: the `.jsonl` files a dataset directory holds, in the order they are read.
 */
import { DatasetError } from "./dataset_error.ts";

/**
 * The `*.jsonl` files directly in `dir`, sorted by name (code-unit order, like Python's `sorted`); other entries
 * are ignored.
 *
 * @throws {DatasetError} when the directory cannot be listed.
 */
export async function jsonlFilesIn(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isFile && entry.name.endsWith(".jsonl")) names.push(entry.name);
    }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new DatasetError(dir, undefined, `cannot be listed (${reason}); check the --input-file path`, {
      cause: error,
    });
  }
  names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const base = dir.endsWith("/") ? dir : dir + "/";
  return names.map((name) => base + name);
}

/**
 * The `*.jsonl` files anywhere under `dir` (hourly-partitioned capture folders), sorted by path like Python's
 * `sorted(rglob("*.jsonl"))`.
 *
 * @throws {DatasetError} when a directory cannot be listed.
 */
export async function jsonlFilesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const base = dir.endsWith("/") ? dir.slice(0, -1) : dir;
  for (const file of await jsonlFilesIn(base)) out.push(file);
  const subdirs: string[] = [];
  try {
    for await (const entry of Deno.readDir(base)) if (entry.isDirectory) subdirs.push(`${base}/${entry.name}`);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new DatasetError(dir, undefined, `cannot be listed (${reason}); check the --input-file path`, {
      cause: error,
    });
  }
  for (const sub of subdirs) out.push(...await jsonlFilesUnder(sub));
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
