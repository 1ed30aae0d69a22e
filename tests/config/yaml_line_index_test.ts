import assert from "node:assert/strict";
import { lineOfKey, locateProblem, yamlLineIndex } from "../../src/config/yaml_line_index.ts";

Deno.test("yamlLineIndex: nested keys, list items and comments", () => {
  const text = [
    "# comment: not a key",
    "model: m",
    "benchmark:",
    "  endpoint:",
    "    urls: [a]",
    "  phases:",
    "    - type: concurrency",
    "      concurrency: 4",
    "    - type: rate",
    "'quoted key': 1",
  ].join("\n");
  const index = yamlLineIndex(text);
  assert.equal(index.get("model"), 2);
  assert.equal(index.get("benchmark.endpoint.urls"), 5);
  assert.equal(index.get("benchmark.phases[0].type"), 7);
  assert.equal(index.get("benchmark.phases[0].concurrency"), 8);
  assert.equal(index.get("benchmark.phases[1].type"), 9);
  assert.equal(index.get("quoted key"), 10);
  assert.equal(index.has("comment"), false);
  assert.equal(lineOfKey(index, "benchmark.phases.concurrency"), 8);
});

Deno.test("locateProblem puts the line after the file name for each shape the loader writes", () => {
  const index = yamlLineIndex("a: 1\nb:\n  c: 2\n");
  assert.equal(locateProblem("f.yaml: unknown key 'b.c'; x", "f.yaml", index), "f.yaml:3: unknown key 'b.c'; x");
  assert.equal(locateProblem("f.yaml: 'a' is bad", "f.yaml", index), "f.yaml:1: 'a' is bad");
  assert.equal(locateProblem("f.yaml: b.c: '2' is bad", "f.yaml", index), "f.yaml:3: b.c: '2' is bad");
  assert.equal(locateProblem("f.yaml: a only applies with z", "f.yaml", index), "f.yaml:1: a only applies with z");
  assert.equal(locateProblem("--flag is bad", "f.yaml", index), "--flag is bad");
  assert.equal(locateProblem("f.yaml: zz: unknown", "f.yaml", index), "f.yaml: zz: unknown");
});
