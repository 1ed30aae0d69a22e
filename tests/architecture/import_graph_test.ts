import assert from "node:assert/strict";
import {
  importCycles,
  importSpecifiers,
  LAYERS,
  layerViolations,
  readImportEdges,
  resolveRelative,
} from "./import_graph.ts";

const ROOT = new URL("../../", import.meta.url);

Deno.test("src imports point only down the layers", async () => {
  const edges = await readImportEdges(ROOT);
  assert.ok(edges.length > 200, `the graph was read (${edges.length} edges)`);
  assert.deepEqual(layerViolations(edges), []);
});

Deno.test("src has no import cycle", async () => {
  assert.deepEqual(importCycles(await readImportEdges(ROOT)).map((c) => c.join(" → ")), []);
});

Deno.test("every folder of src has a layer", async () => {
  const folders: string[] = [];
  for await (const entry of Deno.readDir(new URL("src/", ROOT))) if (entry.isDirectory) folders.push(entry.name);
  assert.deepEqual(folders.filter((f) => !LAYERS.includes(f)), []);
});

Deno.test("layerViolations reports an import from a lower layer to a higher one, and a folder without a layer", () => {
  const problems = layerViolations([
    { from: "src/engine/a.ts", to: "src/cli/version.ts" },
    { from: "src/cli/b.ts", to: "src/engine/a.ts" },
    { from: "src/engine/a.ts", to: "src/engine/c.ts" },
    { from: "src/nowhere/d.ts", to: "src/base/e.ts" },
  ]);
  assert.equal(problems.length, 2, problems.join("\n"));
  assert.match(problems[0], /src\/engine\/a\.ts imports src\/cli\/version\.ts: engine is below cli/);
  assert.match(problems[1], /src\/nowhere\/ .* is in no layer/);
});

Deno.test("importCycles finds two-module, longer and self cycles, and nothing in a tree", () => {
  const cycles = importCycles([
    { from: "a", to: "b" },
    { from: "b", to: "a" },
    { from: "c", to: "d" },
    { from: "d", to: "e" },
    { from: "e", to: "c" },
    { from: "f", to: "f" },
    { from: "g", to: "h" },
    { from: "g", to: "i" },
    { from: "h", to: "i" },
  ]).map((c) => c.join(" → "));
  assert.deepEqual(cycles.sort(), ["a → b → a", "c → d → e → c", "f → f"]);
});

Deno.test("importSpecifiers reads static, type-only, re-export and literal dynamic imports, not comments", () => {
  const source = `
import { a } from "./a.ts";
import type { B } from "../b/b.ts";
export { c } from "./c.ts";
export type { D } from "./d.ts";
import "./side_effect.ts";
const e = await import("./e.ts");
import {
  f,
  g,
} from "./fg.ts";
// import { x } from "./commented.ts";
/* import { y } from "./block.ts"; */
import { z } from "npm:zod";
`;
  assert.deepEqual(importSpecifiers(source), [
    "./a.ts",
    "../b/b.ts",
    "./c.ts",
    "./d.ts",
    "./side_effect.ts",
    "./e.ts",
    "./fg.ts",
  ]);
});

Deno.test("resolveRelative normalizes . and .. against the importing module's folder", () => {
  assert.equal(resolveRelative("src/engine/a.ts", "../base/registry.ts"), "src/base/registry.ts");
  assert.equal(resolveRelative("src/endpoints/openai/chat.ts", "../endpoint.ts"), "src/endpoints/endpoint.ts");
  assert.equal(resolveRelative("src/a.ts", "./b/./c.ts"), "src/b/c.ts");
});
