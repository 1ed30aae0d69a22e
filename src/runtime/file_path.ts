/**
 * The two path helpers infermeter needs. Not `node:path`: loading Deno's Node compatibility layer costs
 * ~15 ms at startup, a tenth of the budget for sending the first request (docs/performance.md).
 * Forward slashes work on every platform Deno runs on.
 */

/** Joins segments with `/`, dropping empty ones and doubled separators (`join("a/", "b")` → `a/b`). */
export function joinPath(...parts: string[]): string {
  const kept = parts.filter((p) => p !== "");
  if (kept.length === 0) return ".";
  return kept.map((p, i) => i === 0 ? p.replace(/[\\/]+$/, "") || "/" : p.replace(/^[\\/]+|[\\/]+$/g, ""))
    .filter((p, i) => i === 0 || p !== "")
    .join("/")
    .replace(/^\/\//, "/");
}

/** The directory part of a path (`a/b/c.json` → `a/b`, `c.json` → `.`). */
export function parentDir(path: string): string {
  const i = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  if (i < 0) return ".";
  return i === 0 ? "/" : path.slice(0, i);
}
