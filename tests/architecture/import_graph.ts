/**
 * The module graph of `src/` read from the sources (static, type-only and literal dynamic imports alike: a type
 * import couples modules as much as any), and the two rules it must keep: imports point only down the layers, and
 * no module reaches itself.
 */

/** Top-level folders of `src/`, lowest layer first: a module may import its own folder and the folders before it. */
export const LAYERS: readonly string[] = [
  "base", // registry, did-you-mean, seeded random numbers, version: used by everything, uses nothing
  "runtime", // process plumbing: Workers, fd limit, CPU time, socket ops, I/O yield
  "tokenizer",
  "dataset", // conversation model, loaders, synthetic prompts
  "endpoints", // adapters: turn → request, response → delta
  "timing", // clocks, arrival patterns, load strategies, stop conditions
  "transport", // HTTP/1.1 client, SSE framing
  "records", // RequestRecord, token counting, the record bus
  "metrics",
  "engine", // conversations on virtual users, phases, shards
  "export", // files and console tables from records and summaries
  "telemetry", // Prometheus text, server-metrics and GPU-telemetry scraping and summaries
  "report", // compare, charts and the HTML report, from a run's exports
  "ui", // logger, progress, dashboard
  "sim", // the simulated server
  "config", // option tables: choices derived from the registries below
  "api", // the embedded HTTP API
  "run", // a profile run's orchestration
  "kube", // Kubernetes: client, manifests, the shards' records channel, run on a cluster
  "calibrate",
  "cli", // argument parsing and exit codes only
];

/** One import edge: `from` imports `to` (both paths relative to the repository root). */
export interface ImportEdge {
  readonly from: string;
  readonly to: string;
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s*(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** Relative import specifiers in a module's source text (comments removed first). */
export function importSpecifiers(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
  const out: string[] = [];
  for (const m of code.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2];
    if (spec.startsWith("./") || spec.startsWith("../")) out.push(spec);
  }
  return out;
}

/** `from`'s folder path joined with a relative specifier, normalized (`src/a/../b/c.ts` → `src/b/c.ts`). */
export function resolveRelative(from: string, spec: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const piece of spec.split("/")) {
    if (piece === "" || piece === ".") continue;
    if (piece === "..") parts.pop();
    else parts.push(piece);
  }
  return parts.join("/");
}

/** The layer (top-level folder of `src/`) of a module path, or undefined outside `src/<folder>/`. */
export function layerOf(path: string): string | undefined {
  const m = /^src\/([^/]+)\//.exec(path);
  return m?.[1];
}

/** Every edge that imports a higher layer, and every module of `src/` in a folder that has no layer. */
export function layerViolations(edges: readonly ImportEdge[], layers: readonly string[] = LAYERS): string[] {
  const rank = new Map(layers.map((name, i) => [name, i]));
  const problems: string[] = [];
  const unknown = new Set<string>();
  for (const { from, to } of edges) {
    const a = layerOf(from);
    const b = layerOf(to);
    for (const [layer, path] of [[a, from], [b, to]] as const) {
      if (layer !== undefined && !rank.has(layer) && !unknown.has(layer)) {
        unknown.add(layer);
        problems.push(`src/${layer}/ (${path}) is in no layer; add it to LAYERS`);
      }
    }
    if (a === undefined || b === undefined || a === b) continue;
    if ((rank.get(b) ?? -1) > (rank.get(a) ?? Infinity)) {
      problems.push(`${from} imports ${to}: ${a} is below ${b}`);
    }
  }
  return problems;
}

/** Every import cycle, each as the list of modules around it (first module repeated at the end). */
export function importCycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, []);
    next.get(from)!.push(to);
  }
  // Tarjan's strongly connected components; a component of two or more modules (or a self-import) is a cycle.
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    indexOf.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
      }
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (next.get(v) ?? []).includes(v)) cycles.push([...component.reverse(), component[0]]);
    }
  };
  for (const v of [...next.keys()].sort()) if (!indexOf.has(v)) visit(v);
  return cycles;
}

/** The import edges of every `.ts` module under `dir` (a path relative to `root`), read from disk. */
export async function readImportEdges(root: URL, dir = "src"): Promise<ImportEdge[]> {
  const edges: ImportEdge[] = [];
  const walk = async (rel: string): Promise<void> => {
    for await (const entry of Deno.readDir(new URL(rel + "/", root))) {
      const path = `${rel}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (entry.isFile && path.endsWith(".ts")) {
        const source = await Deno.readTextFile(new URL(path, root));
        for (const spec of importSpecifiers(source)) edges.push({ from: path, to: resolveRelative(path, spec) });
      }
    }
  };
  await walk(dir);
  return edges;
}
