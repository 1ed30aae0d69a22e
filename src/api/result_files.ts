/**
 * The artifact directory as the API serves it: a listing of its files and the download of one by relative path,
 * with no way out of the directory. A requested name is refused (`400`) when it is empty, absolute, has a drive
 * letter, backslash, NUL or a `.`/`..` segment after percent-decoding; the file's real path (symlinks resolved)
 * must also lie inside the directory's real path, so a symlink pointing out is refused too.
 */
import { joinPath } from "../runtime/file_path.ts";

export interface ResultFile {
  readonly name: string;
  readonly size: number;
}

/** Files under `dir` (recursive, relative `/`-separated names, sorted); symlinks are not followed. */
export async function listResultFiles(dir: string): Promise<ResultFile[]> {
  const out: ResultFile[] = [];
  const walk = async (rel: string): Promise<void> => {
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(rel === "" ? dir : joinPath(dir, rel)));
    } catch {
      return;
    }
    for (const e of entries) {
      const name = rel === "" ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory) await walk(name);
      else if (e.isFile) {
        try {
          out.push({ name, size: (await Deno.stat(joinPath(dir, name))).size });
        } catch {
          // vanished while listing
        }
      }
    }
  };
  await walk("");
  return out.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

export type ResolvedFile =
  | { readonly ok: true; readonly path: string; readonly name: string }
  | { readonly ok: false; readonly status: 400 | 404; readonly message: string };

/** The real path of `requested` (a raw, possibly percent-encoded, relative name) inside `dir`, or why not. */
export async function resolveResultFile(dir: string, requested: string): Promise<ResolvedFile> {
  let name: string;
  try {
    name = decodeURIComponent(requested);
  } catch {
    return { ok: false, status: 400, message: "Invalid filename: bad percent-encoding" };
  }
  const segments = name.split("/");
  if (
    name === "" || name.startsWith("/") || /^[a-zA-Z]:/.test(name) || name.includes("\\") || name.includes("\0") ||
    segments.some((s) => s === ".." || s === "." || s === "")
  ) {
    return { ok: false, status: 400, message: "Invalid filename: path traversal or absolute path" };
  }
  let root: string;
  let real: string;
  try {
    root = await Deno.realPath(dir);
  } catch {
    return { ok: false, status: 404, message: "No artifact directory yet" };
  }
  try {
    real = await Deno.realPath(joinPath(dir, ...segments));
  } catch {
    return { ok: false, status: 404, message: `Result file not found: ${name}` };
  }
  if (!real.startsWith(root.endsWith("/") ? root : root + "/")) {
    return { ok: false, status: 400, message: "Invalid filename: resolves outside the artifact directory" };
  }
  const info = await Deno.stat(real).catch(() => undefined);
  if (info === undefined || !info.isFile) return { ok: false, status: 404, message: `Result file not found: ${name}` };
  return { ok: true, path: real, name: segments[segments.length - 1] };
}
