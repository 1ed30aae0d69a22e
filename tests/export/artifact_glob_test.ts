import assert from "node:assert/strict";
import { join } from "node:path";
import { DEFAULT_ARTIFACT_GLOBS, globFiles, globRegExp } from "../../src/export/artifact_glob.ts";

Deno.test("artifact globs match as Python's Path.glob: * within a level, ** across any number of levels", () => {
  assert.ok(globRegExp("*.json").test("a.json"));
  assert.ok(!globRegExp("*.json").test("sub/a.json"));
  assert.ok(globRegExp("**/*.png").test("a.png"));
  assert.ok(globRegExp("**/*.png").test("plots/x/a.png"));
  assert.ok(globRegExp("*_timeslices.*").test("profile_export_aiperf_timeslices.csv"));
  assert.ok(!globRegExp("a?.csv").test("a/.csv"));
  assert.ok(globRegExp("logs/**").test("logs/x/y.log"));
  assert.ok(!globRegExp("file[1].json").test("file1.json"), "brackets are literal");
});

Deno.test("artifact globs pick AIPerf's default files pattern by pattern, each once, sorted", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(join(dir, "logs"));
    await Deno.mkdir(join(dir, "plots"));
    for (
      const f of ["b.json", "a.json", "x_timeslices.json", "r.csv", "c.txt", "logs/l.log", "plots/p.png", "report.html"]
    ) {
      await Deno.writeTextFile(join(dir, f), "x");
    }
    assert.deepEqual(await globFiles(dir, DEFAULT_ARTIFACT_GLOBS), [
      "a.json",
      "b.json",
      "x_timeslices.json",
      "r.csv",
      "plots/p.png",
      "report.html",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
