/**
 * Where accuracy benchmarks read their data: local copies of the Hugging Face dataset repositories AIPerf loads,
 * looked for as `--public-dataset` looks (`$INFERMETER_DATASET_DIR/<owner>/<name>/`, then the hub cache's snapshots)
 * and read with the `datasets` library's file rules (`hf_data_files.ts`: the card's configs, else its default
 * patterns). Nothing is downloaded: a missing copy is an error that says how to get it and where to put it.
 */
import { DatasetError } from "../dataset_error.ts";
import { resolveDataFiles } from "../hf_data_files.ts";
import { type HfRow, readHfRows } from "../hf_rows.ts";
import { candidateRepoDirs, expand } from "../public_datasets.ts";

/** The rows a benchmark asks for. */
export interface BenchmarkSource {
  /**
   * The rows of one split (of one subset, the `datasets` config name).
   * @throws {DatasetError} when no local copy of the repository holds it, saying where to put one.
   */
  rows(repo: string, split: string, subset?: string): Promise<HfRow[]>;
  /** Like `rows`, but undefined when a copy of the repository exists without that split. */
  optionalRows(repo: string, split: string, subset?: string): Promise<HfRow[] | undefined>;
  /** The rows of files named in the repository (a dataset whose loading script picks files by release). */
  fileRows(repo: string, files: readonly string[]): Promise<HfRow[]>;
  /**
   * A text file a benchmark needs beside its dataset (BigBench-Hard's prompt files), by its path under the data
   * directory: `$INFERMETER_DATASET_DIR/<path>`, else `.cache/aiperf/datasets/<path>`.
   * @throws {DatasetError} when it is in neither, naming both places and `origin` (where the file comes from).
   */
  textFile(path: string, origin: string): Promise<string>;
}

type Env = (name: string) => string | undefined;

/** The source reading this machine's copies; `where` names the option in errors (`--accuracy-benchmark mmlu`). */
export function localBenchmarkSource(where: string, env: Env = (n) => Deno.env.get(n)): BenchmarkSource {
  const repoDirs = async (repo: string): Promise<string[]> => {
    const dirs: string[] = [];
    for (const candidate of candidateRepoDirs({ hfRepo: repo }, env)) {
      for (const dir of await expand(candidate)) if (await isDir(dir)) dirs.push(dir);
    }
    return dirs;
  };
  const missing = (repo: string, what: string, looked: readonly string[]): DatasetError => {
    const places = candidateRepoDirs({ hfRepo: repo }, env).map((p) => p.replace("/*", "/<revision>")).join(", ");
    return new DatasetError(
      where,
      undefined,
      `needs ${what} on this machine (infermeter never downloads datasets). Get it with \`hf download --repo-type ` +
        `dataset ${repo}\` on a connected machine and copy the repository to one of: ${places}.` +
        (looked.length > 0 ? ` Found but unusable: ${looked.join("; ")}.` : ""),
    );
  };
  const find = async (repo: string, split: string, subset: string | undefined, optional: boolean) => {
    const what = `${repo} (${subset === undefined ? "" : `subset ${subset}, `}split ${split})`;
    const looked: string[] = [];
    const dirs = await repoDirs(repo);
    for (const dir of dirs) {
      const found = await resolveDataFiles(dir, subset, split);
      if ("files" in found) return await collect(readHfRows(found.files.map((f) => `${dir}/${f}`)));
      looked.push(`${dir} ${found.missing}`);
    }
    if (optional && dirs.length > 0) return undefined;
    throw missing(repo, what, looked);
  };
  return {
    rows: async (repo, split, subset) => (await find(repo, split, subset, false))!,
    optionalRows: (repo, split, subset) => find(repo, split, subset, true),
    async fileRows(repo, files) {
      const looked: string[] = [];
      for (const dir of await repoDirs(repo)) {
        const paths = files.map((f) => `${dir}/${f}`);
        const absent = [];
        for (const p of paths) if (!await isFile(p)) absent.push(p.slice(dir.length + 1));
        if (absent.length === 0) return await collect(readHfRows(paths));
        looked.push(`${dir} lacks ${absent.join(", ")}`);
      }
      throw missing(repo, `${repo} (${files.join(", ")})`, looked);
    },
    async textFile(path, origin) {
      const dir = env("INFERMETER_DATASET_DIR");
      const places = [...(dir ? [`${dir}/${path}`] : []), `.cache/aiperf/datasets/${path}`];
      for (const place of places) if (await isFile(place)) return await Deno.readTextFile(place);
      throw new DatasetError(
        where,
        undefined,
        `needs ${path} on this machine (infermeter never downloads). It is ${origin}; put it at one of: ` +
          `${places.join(", ")}.`,
      );
    },
  };
}

async function collect(rows: AsyncIterable<HfRow>): Promise<HfRow[]> {
  const out: HfRow[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

async function isDir(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}
