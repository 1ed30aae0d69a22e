/**
 * Where each key of a block-style YAML file is: dotted key path (`benchmark.endpoint.url`, list items as
 * `phases[0].type`) → 1-based line. A light indentation scan, not a parser: it serves to put line numbers on problems
 * the loader reports by key path, and a key it cannot place simply gets none.
 */

const KEY_LINE = /^(\s*)(-\s+)?(["']?)([^\s#:"'][^:#"']*?)\3\s*:(\s|$)/;

/** Key paths → line numbers (the first occurrence of a path wins). */
export function yamlLineIndex(text: string): Map<string, number> {
  const index = new Map<string, number>();
  const stack: { indent: number; path: string }[] = [];
  const listCounts = new Map<string, number>();
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = KEY_LINE.exec(lines[i]);
    if (m === null || lines[i].trimStart().startsWith("#")) continue;
    const [, spaces, dash, , key] = m;
    const indent = spaces.length + (dash?.length ?? 0);
    while (stack.length > 0 && stack[stack.length - 1].indent >= (dash ? spaces.length + 1 : indent)) stack.pop();
    let parent = stack.length > 0 ? stack[stack.length - 1].path : "";
    if (dash) {
      const n = listCounts.get(parent) ?? 0;
      listCounts.set(parent, n + 1);
      parent = `${parent}[${n}]`;
      stack.push({ indent: spaces.length + 1, path: parent });
    }
    const path = parent === "" ? key.trim() : `${parent}.${key.trim()}`;
    if (!index.has(path)) index.set(path, i + 1);
    stack.push({ indent, path });
  }
  return index;
}

/** The line of a key path, also when the loader renamed it (snake_case) or left out list indexes. */
export function lineOfKey(index: ReadonlyMap<string, number>, path: string): number | undefined {
  const exact = index.get(path);
  if (exact !== undefined) return exact;
  const norm = (p: string) =>
    p.replace(/\[\d+\]/g, "").replace(/-/g, "_").replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
  const wanted = norm(path);
  for (const [p, line] of index) if (norm(p) === wanted) return line;
  return undefined;
}

/**
 * `file: <problem about key.path>` → `file:<line>: <problem>`, for the shapes the YAML loader and the option layer
 * write (`file: unknown key 'k'`, `file: 'k' is …`, `file: k: …`, `file: k only …`). Problems already located, or about keys the
 * index cannot place, are returned as they are.
 */
export function locateProblem(problem: string, file: string, index: ReadonlyMap<string, number>): string {
  const prefix = `${file}: `;
  const at = problem.indexOf(prefix);
  if (at < 0) return problem;
  const rest = problem.slice(at + prefix.length);
  const m = /^unknown key '([^']+)'/.exec(rest) ?? /^'([\w.[\]-]+)'/.exec(rest) ?? /^([\w.[\]-]+)(?::| )/.exec(rest);
  if (m === null) return problem;
  const line = lineOfKey(index, m[1]);
  return line === undefined ? problem : `${problem.slice(0, at)}${file}:${line}: ${rest}`;
}

/**
 * Every problem of a run with its line in `file` where it is about one of the file's keys (`locateProblem`), the
 * file's problems first in line order, then the others (flags, environment, rules) as found.
 */
export function locateProblems(problems: readonly string[], file: string, text: string): string[] {
  const index = yamlLineIndex(text);
  const located = problems.map((p) => locateProblem(p, file, index));
  const lineOf = (p: string) =>
    p.startsWith(`${file}:`) ? Number(/^[^\n]*?:(\d+):/.exec(p.slice(file.length))?.[1] ?? Infinity) : Infinity;
  return located.map((p, i) => ({ p, i })).sort((a, b) => lineOf(a.p) - lineOf(b.p) || a.i - b.i).map(({ p }) => p);
}
