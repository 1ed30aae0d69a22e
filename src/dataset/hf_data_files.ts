/**
 * Which files of a local copy of a Hugging Face dataset repository hold one split of one subset, resolved as the
 * `datasets` library does: the dataset card's `configs` (README.md front matter) when it declares them, else the
 * library's default file patterns (`data/<split>-NNNNN-of-NNNNN.*`, a directory or file named after the split or one of
 * its synonyms, all files for `train`). The Hub's Parquet conversion (`<subset>/<split>/NNNN.parquet`) is found the
 * same way inside the subset's directory. Only Parquet, JSON and JSON Lines files are data files here.
 */

const DATA_EXTENSIONS = [".parquet", ".jsonl", ".json"];

/** `datasets`' split synonyms (SPLIT_KEYWORDS). */
const SPLIT_KEYWORDS: Readonly<Record<string, readonly string[]>> = {
  train: ["train", "training"],
  validation: ["validation", "valid", "dev", "val"],
  test: ["test", "testing", "eval", "evaluation"],
};

/** Separators around a split keyword in a file or directory name (NON_WORDS_CHARS). */
const SEP = "[-._ 0-9]";

/** The outcome: the split's files (repository-relative, sorted), or why there are none. */
export type DataFiles = { readonly files: readonly string[] } | { readonly missing: string };

/**
 * The data files of `split` (and `subset`, the `datasets` config name) in the repository copy at `root`.
 * @throws {Error} only for file-system errors other than a missing directory.
 */
export async function resolveDataFiles(root: string, subset: string | undefined, split: string): Promise<DataFiles> {
  const all = await listFiles(root);
  const configs = await cardConfigs(root);
  if (configs !== undefined && configs.length > 0) {
    const config = subset === undefined
      ? configs.find((c) => c.default === true) ?? configs.find((c) => c.config_name === "default") ?? configs[0]
      : configs.find((c) => c.config_name === subset);
    if (config === undefined) {
      return { missing: `has no subset '${subset}' (its card lists: ${configs.map((c) => c.config_name).join(", ")})` };
    }
    const splits = configSplits(config);
    const patterns = splits.get(split);
    if (patterns === undefined) {
      return { missing: `has no split '${split}' in subset '${config.config_name}' (splits: ${[...splits.keys()]})` };
    }
    const files = match(all, patterns);
    return files.length > 0 ? { files } : { missing: `has no file matching ${patterns.join(", ")}` };
  }
  const scopes = subset === undefined ? [""] : [`${subset}/`, ""];
  for (const scope of scopes) {
    const inScope = all.filter((f) => f.startsWith(scope)).map((f) => f.slice(scope.length));
    const found = defaultPatternFiles(inScope, split);
    if (found === undefined) continue;
    if (found.length === 0) return { missing: `has data files, but none for split '${split}'` };
    return { files: found.map((f) => scope + f) };
  }
  return { missing: "holds no Parquet, JSON or JSON Lines file" };
}

/**
 * The split's files under `datasets`' default patterns: the first pattern family that matches any split decides the
 * layout; undefined when none matches at all.
 */
function defaultPatternFiles(files: readonly string[], split: string): string[] | undefined {
  const sharded = (s: string) => match(files, [`data/${s}-[0-9][0-9][0-9][0-9][0-9]-of-[0-9][0-9][0-9][0-9][0-9]*.*`]);
  const inDir = (s: string) =>
    match(
      files,
      keywords(s).flatMap((k) => [`**/${k}/**`, `**/${k}${SEP}*/**`, `**/*${SEP}${k}/**`, `**/*${SEP}${k}${SEP}*/**`]),
    );
  const inName = (s: string) => match(files, keywords(s).flatMap((k) => [`**/${k}${SEP}*`, `**/*${SEP}${k}${SEP}*`]));
  const splits = [...new Set([...Object.keys(SPLIT_KEYWORDS), split])];
  for (const family of [sharded, inDir, inName]) {
    if (splits.some((s) => family(s).length > 0)) return family(split);
  }
  if (files.length === 0) return undefined;
  return split === "train" ? [...files] : [];
}

function keywords(split: string): readonly string[] {
  return SPLIT_KEYWORDS[split] ?? [split];
}

interface CardConfig {
  readonly config_name?: string;
  readonly default?: boolean;
  readonly data_dir?: string;
  readonly data_files?: unknown;
}

/** The `configs` of the dataset card's YAML front matter, or undefined without a card or configs. */
async function cardConfigs(root: string): Promise<CardConfig[] | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(`${root}/README.md`);
  } catch {
    return undefined;
  }
  const m = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  if (m === null) return undefined;
  // Imported here: the CLI's startup must not load js-yaml (only public datasets read dataset cards).
  const { load: loadYaml } = await import("js-yaml");
  let meta: unknown;
  try {
    meta = loadYaml(m[1]);
  } catch {
    return undefined;
  }
  const configs = (meta as { configs?: unknown } | null)?.configs;
  if (!Array.isArray(configs)) return undefined;
  return configs.filter((c): c is CardConfig => typeof c === "object" && c !== null)
    .map((c) => ({ ...c, config_name: c.config_name ?? "default" }));
}

/** A card config's split → file patterns (`data_files` as a pattern, a list of them, or `{split, path}` items). */
function configSplits(config: CardConfig): Map<string, string[]> {
  const dir = config.data_dir ? `${config.data_dir.replace(/\/$/, "")}/` : "";
  const out = new Map<string, string[]>();
  const add = (split: string, path: unknown) => {
    const paths = (Array.isArray(path) ? path : [path]).filter((p): p is string => typeof p === "string");
    out.set(split, [...(out.get(split) ?? []), ...paths.map((p) => dir + p)]);
  };
  const files = config.data_files;
  if (files === undefined) {
    out.set("train", [`${dir}**`]);
  } else if (typeof files === "string") add("train", files);
  else if (Array.isArray(files)) {
    for (const item of files) {
      if (typeof item === "string") add("train", item);
      else if (typeof item === "object" && item !== null) {
        const { split, path } = item as { split?: unknown; path?: unknown };
        add(typeof split === "string" ? split : "train", path);
      }
    }
  } else if (typeof files === "object" && files !== null) {
    for (const [split, path] of Object.entries(files)) add(split, path);
  }
  return out;
}

/** The files matching any of the glob `patterns` (`**` spans directories, `*` does not), sorted. */
export function match(files: readonly string[], patterns: readonly string[]): string[] {
  const regexes = patterns.map(globRegex);
  return files.filter((f) => regexes.some((r) => r.test(f))).sort();
}

function globRegex(pattern: string): RegExp {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "*" && pattern[i + 1] === "*") {
      i++;
      if (pattern[i + 1] === "/") {
        i++;
        out += "(?:.*/)?";
      } else out += ".*";
    } else if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else if (c === "[") {
      const end = pattern.indexOf("]", i + 1);
      if (end < 0) out += "\\[";
      else {
        out += `[${pattern.slice(i + 1, end).replace(/^!/, "^").replace(/\\/g, "\\\\")}]`;
        i = end;
      }
    } else out += c.replace(/[.+^${}()|\\]/g, "\\$&");
  }
  return new RegExp(`^${out}$`);
}

/** The repository-relative paths of the data files below `root` (hidden entries skipped; symlinks followed). */
async function listFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string, prefix: string) => {
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(dir));
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return;
      throw err;
    }
    for (const e of entries) {
      if (e.name.startsWith(".")) continue;
      const path = `${dir}/${e.name}`;
      const rel = prefix + e.name;
      const isDir = e.isDirectory || (e.isSymlink && (await Deno.stat(path).catch(() => undefined))?.isDirectory);
      if (isDir) await walk(path, `${rel}/`);
      else if (DATA_EXTENSIONS.some((x) => e.name.endsWith(x))) out.push(rel);
    }
  };
  await walk(root, "");
  return out.sort();
}
