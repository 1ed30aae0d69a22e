/**
 * Builds the JavaScript bundle: an entry file (`<dir>/infermeter.js`) and, beside it, a folder of the modules it
 * loads on use (`<dir>/infermeter/`). Code splitting keeps what a command does not need (the chart library, the
 * image rasterizer and its font, the o200k tokenizer table, reports, kube, the other commands) out of what Deno
 * reads and V8 parses at start: one file holding everything made even `--version` read and scan all of it.
 *
 * The entry keeps its name and place, so `deno run -A … infermeter.js` and Workers re-entering `Deno.mainModule`
 * work as before; the chunks import each other from their own folder, and only the entry's specifiers are rewritten
 * to point into it. Both must travel together (`bundleFiles` lists them for packaging).
 *
 * Every dynamic import between them is then written with a computed specifier (`import(String("./x.js"))`): Deno
 * builds the module graph of what it runs following literal dynamic imports, so a literal one made every start —
 * `--version`, each command, each Worker re-entering the entry — resolve and analyze all the chunks reachable from
 * the entry (11 MB), though a run loads a few dozen. A computed one is loaded when the import runs, as before; it is
 * read under the run's permissions, so the bundle needs read access to its folder (`-A`, as documented, gives it).
 */
import { basename, dirname, join } from "node:path";

/** The folder of chunks beside an entry file `…/infermeter.js`: `…/infermeter/`. */
export function chunkDir(entry: string): string {
  return join(dirname(entry), basename(entry, ".js"));
}

/** Bundles `main.ts` of `root` into `entry` and its chunk folder (both replaced). Returns deno's output on failure. */
export async function buildBundle(root: string, entry: string): Promise<{ ok: boolean; out: string }> {
  const chunks = chunkDir(entry);
  const staging = `${chunks}.staging`;
  await Deno.remove(staging, { recursive: true }).catch(() => {}); // none left by an earlier build
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--code-splitting", "--outdir", staging, "main.ts"],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = new TextDecoder().decode(r.stdout) + new TextDecoder().decode(r.stderr);
  if (!r.success) return { ok: false, out };
  const lazied = await lazyRequire(staging);
  if (!lazied.ok) return { ok: false, out: lazied.out };
  const main = await Deno.readTextFile(join(staging, "main.js"));
  await Deno.remove(join(staging, "main.js"));
  const name = basename(chunks);
  // Static (`from "./x.js"`, `import "./x.js"`) and dynamic (`import("./x.js")`) specifiers of the entry alone.
  const rewritten = main.replace(/((?:\bfrom|\bimport)\s*\(?\s*)"\.\/([^"/]+\.js)"/g, `$1"./${name}/$2"`);
  if (/"\.\/[^"/]+\.js"/.test(rewritten)) return { ok: false, out: "an import of the entry was not rewritten" };
  const computed = await computeDynamicImports(staging);
  if (!computed.ok) return { ok: false, out: computed.out };
  const entryText = computedImports(rewritten);
  if (LITERAL_DYNAMIC_IMPORT.test(entryText)) return { ok: false, out: "a dynamic import of the entry stayed literal" };
  await Deno.remove(chunks, { recursive: true }).catch(() => {}); // first build
  await Deno.rename(staging, chunks);
  await Deno.writeTextFile(entry, entryText);
  return { ok: true, out };
}

/** A dynamic import of a bundled module, as the bundler writes it: `import("./x.js")` (`../` from nowhere). */
const LITERAL_DYNAMIC_IMPORT = /\bimport\(\s*"(\.\.?\/[^"]+\.js)"\s*\)/;

/** `import("./x.js")` → `import(String("./x.js"))`: the same module, resolved against the same file, on use. */
export function computedImports(code: string): string {
  return code.replace(new RegExp(LITERAL_DYNAMIC_IMPORT.source, "g"), 'import(String("$1"))');
}

/**
 * Rewrites the chunks' dynamic imports (see the module's comment). The build fails on a chunk that is not UTF-8 text
 * (none is today: Deno reads modules as UTF-8) or where a literal one is left.
 */
async function computeDynamicImports(dir: string): Promise<{ ok: boolean; out: string }> {
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  for await (const e of Deno.readDir(dir)) {
    if (!e.isFile || !e.name.endsWith(".js")) continue;
    const path = join(dir, e.name);
    const bytes = await Deno.readFile(path);
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      return { ok: false, out: `${e.name}: not UTF-8 text, its imports cannot be rewritten` };
    }
    if (!LITERAL_DYNAMIC_IMPORT.test(text)) continue;
    const rewritten = computedImports(text);
    if (LITERAL_DYNAMIC_IMPORT.test(rewritten)) return { ok: false, out: `${e.name}: a dynamic import stayed literal` };
    await Deno.writeTextFile(path, rewritten);
  }
  return { ok: true, out: "" };
}

/** The bundler's `require` for npm code, as it writes it in its shared runtime chunk. */
const EAGER_REQUIRE = 'import { createRequire as __deno_internal_createRequire } from "node:module";\n' +
  "var __require = __deno_internal_createRequire(import.meta.url);\n";
/** The same `require`, built on its first call (`process.getBuiltinModule` needs no import). */
const LAZY_REQUIRE = "var __deno_internal_require;\n" +
  'var __require = (id) => (__deno_internal_require ??= globalThis.process.getBuiltinModule("node:module")\n' +
  "  .createRequire(import.meta.url))(id);\n";

/**
 * The bundler's shared runtime chunk, which the entry and nearly every chunk import, builds a `require` at load
 * through `node:module`; importing that module sets up Node's console, streams and errors (~15 ms here, every
 * command included), though only a few npm modules ever call it, on use. The chunk gets the same `require` built on
 * its first call instead. A build whose runtime chunk has another shape is refused, so the rewrite cannot go stale.
 */
async function lazyRequire(dir: string): Promise<{ ok: boolean; out: string }> {
  let rewritten = 0;
  for await (const e of Deno.readDir(dir)) {
    if (!e.isFile || !e.name.endsWith(".js")) continue;
    const path = join(dir, e.name);
    const text = await Deno.readTextFile(path);
    if (!text.includes("__deno_internal_createRequire")) continue;
    if (!text.includes(EAGER_REQUIRE)) return { ok: false, out: `${e.name}: the bundler's require has a new shape` };
    await Deno.writeTextFile(path, text.replace(EAGER_REQUIRE, LAZY_REQUIRE));
    rewritten++;
  }
  return rewritten === 1 ? { ok: true, out: "" } : { ok: false, out: `${rewritten} runtime chunks (expected one)` };
}

/** Every file of a built bundle, as paths relative to the entry's folder (for copying or packaging). */
export async function bundleFiles(entry: string): Promise<string[]> {
  const chunks = chunkDir(entry);
  const files = [basename(entry)];
  for await (const e of Deno.readDir(chunks)) if (e.isFile) files.push(`${basename(chunks)}/${e.name}`);
  return files.sort();
}
