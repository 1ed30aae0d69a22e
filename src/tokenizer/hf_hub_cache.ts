/**
 * Finds a model's `tokenizer.json` on disk, never on the network: a `--tokenizer` / `--model` value that is not a
 * path is looked up in the local Hugging Face hub cache, where a GPU host that serves the model usually has it
 * already (the server downloaded it there).
 *
 * Cache location, as `huggingface_hub` resolves it: `$HF_HUB_CACHE`, else `$HF_HOME/hub`, else
 * `$XDG_CACHE_HOME/huggingface/hub`, else `~/.cache/huggingface/hub`. A model `org/name` lives in
 * `models--org--name/snapshots/<revision>/`; the revision named by `refs/main` is preferred, then the newest
 * snapshot that holds a `tokenizer.json`.
 */
import { joinPath as join } from "../runtime/file_path.ts";

/** The environment variables the lookup reads. */
export type HubEnv = Readonly<Record<string, string | undefined>>;

/** The hub cache directory for this environment (it may not exist). */
export function hubCacheDir(env: HubEnv): string {
  if (env.HF_HUB_CACHE) return env.HF_HUB_CACHE;
  if (env.HF_HOME) return join(env.HF_HOME, "hub");
  const cache = env.XDG_CACHE_HOME || (env.HOME ? join(env.HOME, ".cache") : ".cache");
  return join(cache, "huggingface", "hub");
}

/** `models--org--name`, the cache folder of a hub model id. */
export function hubModelFolder(modelId: string): string {
  return `models--${modelId.split("/").join("--")}`;
}

/** Whether a value can be a hub model id (`name` or `org/name`, no path syntax). */
export function looksLikeHubId(value: string): boolean {
  return /^[A-Za-z0-9][\w.-]*(\/[\w.-]+)?$/.test(value) && !value.startsWith(".") && !value.includes("..");
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/**
 * The snapshot directory of `modelId` that holds a `tokenizer.json`, or undefined when the cache has none. With a
 * `revision` (AIPerf's `--tokenizer-revision`: a branch, a tag or a commit hash) only that snapshot is taken: the
 * one `refs/<revision>` names, or the snapshot named by the hash (or its unique prefix).
 */
export function findCachedTokenizer(modelId: string, env: HubEnv, revision?: string): string | undefined {
  if (!looksLikeHubId(modelId)) return undefined;
  const root = join(hubCacheDir(env), hubModelFolder(modelId));
  const snapshots = join(root, "snapshots");
  if (revision !== undefined && revision !== "main") return snapshotOf(root, revision);
  try {
    const main = Deno.readTextFileSync(join(root, "refs", "main")).trim();
    const dir = join(snapshots, main);
    if (main !== "" && isFile(join(dir, "tokenizer.json"))) return dir;
  } catch {
    // No refs/main: fall back to the snapshots themselves.
  }
  let best: { dir: string; mtime: number } | undefined;
  try {
    for (const entry of Deno.readDirSync(snapshots)) {
      const dir = join(snapshots, entry.name);
      const file = join(dir, "tokenizer.json");
      if (!isFile(file)) continue;
      const mtime = Deno.statSync(dir).mtime?.getTime() ?? 0;
      if (best === undefined || mtime > best.mtime) best = { dir, mtime };
    }
  } catch {
    return undefined;
  }
  return best?.dir;
}

/** The snapshot of `revision` (a ref, a commit hash or its unique prefix) holding a `tokenizer.json`. */
function snapshotOf(root: string, revision: string): string | undefined {
  if (revision.includes("/") && revision.includes("..")) return undefined;
  const snapshots = join(root, "snapshots");
  let commit = revision;
  try {
    commit = Deno.readTextFileSync(join(root, "refs", revision)).trim() || revision;
  } catch {
    // Not a ref: a commit hash or its prefix.
  }
  if (!/^[\w.-]+$/.test(commit)) return undefined;
  const exact = join(snapshots, commit);
  if (isFile(join(exact, "tokenizer.json"))) return exact;
  try {
    const matches = [...Deno.readDirSync(snapshots)].map((e) => e.name).filter((name) => name.startsWith(commit));
    if (matches.length === 1 && isFile(join(snapshots, matches[0], "tokenizer.json"))) {
      return join(snapshots, matches[0]);
    }
  } catch {
    // No snapshots at all.
  }
  return undefined;
}

/** Where to put a model's tokenizer files so they are found, for error messages and notices. */
export function tokenizerPlacementHint(modelId: string, env: HubEnv): string {
  const folder = join(hubCacheDir(env), hubModelFolder(modelId), "snapshots", "<revision>");
  return `put the model's tokenizer.json (and tokenizer_config.json) in ${folder}/ (what ` +
    `'huggingface-cli download ${modelId} tokenizer.json tokenizer_config.json' does on a machine with network), ` +
    "or pass their directory with --tokenizer <dir>; HF_HUB_CACHE or HF_HOME choose the cache";
}
