/**
 * The path helpers infermeter needs. Not `node:path`: loading Deno's Node compatibility layer costs
 * ~15 ms at startup, a tenth of the budget for sending the first request (docs/performance_history.md).
 * Forward slashes work on every platform Deno runs on.
 */

/**
 * Joins segments with `/`, dropping empty and `.` segments like `node:path`'s join does
 * (`join("./artifacts/", "run")` → `artifacts/run`); `..` is kept as written.
 */
export function joinPath(...parts: string[]): string {
  const absolute = parts.find((p) => p !== "")?.startsWith("/") ?? false;
  const segments = parts.flatMap((p) => p.split(/[\\/]+/)).filter((seg) => seg !== "" && seg !== ".");
  const joined = segments.join("/");
  return absolute ? "/" + joined : joined === "" ? "." : joined;
}

/** The directory part of a path (`a/b/c.json` → `a/b`, `c.json` → `.`). */
export function parentDir(path: string): string {
  const i = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  if (i < 0) return ".";
  return i === 0 ? "/" : path.slice(0, i);
}

/** The last segment of a path (`a/b/run/` → `run`). */
export function baseName(path: string): string {
  const trimmed = path.replace(/[\\/]+$/, "");
  return trimmed.slice(Math.max(trimmed.lastIndexOf("/"), trimmed.lastIndexOf("\\")) + 1);
}
