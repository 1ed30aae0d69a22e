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
