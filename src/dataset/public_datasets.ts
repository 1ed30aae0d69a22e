/**
 * `--public-dataset`: the datasets AIPerf names, read only from files already on this machine — infermeter never
 * downloads (its users are often air-gapped). A dataset's file is looked for, in order:
 * 1. `$INFERMETER_DATASET_DIR/<file>` when that variable is set;
 * 2. `./.cache/aiperf/datasets/<file>`, where AIPerf keeps its downloads (so an AIPerf cache is reused);
 * 3. the Hugging Face hub cache, `$HF_HUB_CACHE`, else `$HF_HOME/hub`, else `~/.cache/huggingface/hub`:
 *    `datasets--<owner>--<name>/snapshots/<revision>/<file>` (what `huggingface-cli download` writes).
 * When none exists the error names every place and where the file comes from.
 */
import type { Dataset } from "./conversation.ts";
import { DatasetError } from "./dataset_error.ts";
import { loadShareGpt, type PublicDatasetContext } from "./sharegpt_loader.ts";
import { UNSUPPORTED_PUBLIC_DATASETS } from "./public_dataset_names.ts";

export interface PublicDataset {
  readonly name: string;
  /** The Hugging Face dataset repository, `owner/name`. */
  readonly hfRepo: string;
  /** The file in that repository (and in the local directories). */
  readonly file: string;
  readonly load: (path: string, ctx: PublicDatasetContext) => Promise<Dataset>;
}

export const PUBLIC_DATASETS: readonly PublicDataset[] = [
  {
    name: "sharegpt",
    hfRepo: "anon8231489123/ShareGPT_Vicuna_unfiltered",
    file: "ShareGPT_V3_unfiltered_cleaned_split.json",
    load: loadShareGpt,
  },
];

/** Where a dataset's file may be, in lookup order. */
export function candidatePaths(ds: PublicDataset, env: (name: string) => string | undefined): string[] {
  const paths: string[] = [];
  const dir = env("INFERMETER_DATASET_DIR");
  if (dir) paths.push(`${dir}/${ds.file}`);
  paths.push(`.cache/aiperf/datasets/${ds.file}`);
  paths.push(`${hubCache(env)}/datasets--${ds.hfRepo.replace("/", "--")}/snapshots/*/${ds.file}`);
  return paths;
}

function hubCache(env: (name: string) => string | undefined): string {
  const hub = env("HF_HUB_CACHE");
  if (hub) return hub;
  const home = env("HF_HOME");
  if (home) return `${home}/hub`;
  return `${env("HOME") ?? "~"}/.cache/huggingface/hub`;
}

/** The first existing file of `candidatePaths` (a `*` stands for any snapshot), or undefined. */
async function findFile(ds: PublicDataset, env: (name: string) => string | undefined): Promise<string | undefined> {
  for (const path of candidatePaths(ds, env)) {
    const star = path.indexOf("/*/");
    if (star < 0) {
      if (await isFile(path)) return path;
      continue;
    }
    const snapshots = path.slice(0, star);
    let names: string[] = [];
    try {
      for await (const e of Deno.readDir(snapshots)) if (e.isDirectory) names.push(e.name);
    } catch {
      names = [];
    }
    for (const name of names.sort()) {
      const candidate = `${snapshots}/${name}/${path.slice(star + 3)}`;
      if (await isFile(candidate)) return candidate;
    }
  }
  return undefined;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

/**
 * Loads a public dataset from its local file.
 * @throws {DatasetError} when the name is unknown or unsupported, or the file is nowhere local (saying where to put it).
 */
export async function loadPublicDataset(
  name: string,
  ctx: PublicDatasetContext,
  env: (name: string) => string | undefined = (n) => Deno.env.get(n),
): Promise<Dataset> {
  const ds = PUBLIC_DATASETS.find((d) => d.name === name.toLowerCase());
  if (ds === undefined) {
    throw new DatasetError(
      `--public-dataset ${name}`,
      undefined,
      UNSUPPORTED_PUBLIC_DATASETS.includes(name.toLowerCase())
        ? `is not supported yet; supported: ${PUBLIC_DATASETS.map((d) => d.name).join(", ")}`
        : `is not a public dataset name; use one of: ${PUBLIC_DATASETS.map((d) => d.name).join(", ")}`,
    );
  }
  const path = await findFile(ds, env);
  if (path === undefined) {
    throw new DatasetError(
      `--public-dataset ${name}`,
      undefined,
      `needs ${ds.file} on this machine (infermeter never downloads datasets). Get it from ` +
        `https://huggingface.co/datasets/${ds.hfRepo} and put it at one of: ` +
        candidatePaths(ds, env).map((p) => p.replace("/*/", "/<revision>/")).join(", ") + ".",
    );
  }
  return await ds.load(path, ctx);
}
