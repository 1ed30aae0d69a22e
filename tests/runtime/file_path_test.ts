import assert from "node:assert/strict";
import { joinPath, parentDir } from "../../src/runtime/file_path.ts";

Deno.test("joinPath joins segments with one slash each", () => {
  assert.equal(joinPath("artifacts", "run-1"), "artifacts/run-1");
  assert.equal(joinPath("artifacts/", "/run-1/", "logs"), "artifacts/run-1/logs");
  assert.equal(joinPath("/tmp", "x"), "/tmp/x");
  assert.equal(joinPath("", "x"), "x");
  assert.equal(joinPath("."), ".");
});

Deno.test("parentDir returns the directory part", () => {
  assert.equal(parentDir("a/b/c.json"), "a/b");
  assert.equal(parentDir("c.json"), ".");
  assert.equal(parentDir("/c.json"), "/");
});

Deno.test("joinPath drops ./ segments like node:path does", () => {
  assert.equal(joinPath("./artifacts", "run-1"), "artifacts/run-1");
  assert.equal(joinPath("out/./x", "y"), "out/x/y");
  assert.equal(joinPath("../up", "y"), "../up/y");
  assert.equal(joinPath("/", "x"), "/x");
});
