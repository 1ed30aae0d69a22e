import assert from "node:assert/strict";
import { join } from "node:path";
import { computedImports } from "../../scripts/release/build_bundle.ts";

Deno.test("computedImports writes the bundler's dynamic imports with computed specifiers, static imports unchanged", () => {
  const code = 'import { a } from "./a.js";\nimport "./b.js";\nconst m = await import("./infermeter/c-X1.js");\n' +
    'const n = () => import( "../d.js" );\n';
  assert.equal(
    computedImports(code),
    'import { a } from "./a.js";\nimport "./b.js";\nconst m = await import(String("./infermeter/c-X1.js"));\n' +
      'const n = () => import(String("../d.js"));\n',
  );
});

/** The module graph Deno builds for `entry` before running it (`deno info --json`): its files' names. */
async function graphOf(entry: string): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json", entry], stdout: "piped" }).output();
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as { modules: { specifier: string }[] };
  return info.modules.map((m) => m.specifier.slice(m.specifier.lastIndexOf("/") + 1)).sort();
}

Deno.test("a computed dynamic import is left out of the graph Deno builds at start, and still loads on use", async () => {
  const dir = await Deno.makeTempDir({ prefix: "infermeter-computed-import-" });
  try {
    await Deno.writeTextFile(join(dir, "late.js"), 'export const word = "loaded";\n');
    const entry = 'if (Deno.args[0] === "go") console.log((await import("./late.js")).word);\n';
    await Deno.writeTextFile(join(dir, "literal.js"), entry);
    await Deno.writeTextFile(join(dir, "computed.js"), computedImports(entry));
    // What the rewrite is for: the literal import puts the module in the start-up graph, the computed one does not.
    assert.deepEqual(await graphOf(join(dir, "literal.js")), ["late.js", "literal.js"]);
    assert.deepEqual(await graphOf(join(dir, "computed.js")), ["computed.js"]);
    const run = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-read", join(dir, "computed.js"), "go"],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(new TextDecoder().decode(run.stdout), "loaded\n", new TextDecoder().decode(run.stderr));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
