/**
 * The end-of-run tables fit `--console-width`: at 80 columns (111 before tables learned to give way) every table
 * line fits, statistics that do not fit are left out and named; at the default width the tables are AIPerf's, whole.
 */
import assert from "node:assert/strict";
import { assertExit, runCli, startSim, tempDir } from "./cli_harness.ts";

const TABLE_LINE = /^[┏┃┡│└]/;

Deno.test("profile --console-width 80: every table fits, left-out columns are named; the default keeps them all", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--fast"]);
  const run = (extra: string[]) =>
    runCli([
      "profile",
      "--ui",
      "none",
      "-m",
      "m",
      "--url",
      sim.url,
      "--endpoint-type",
      "chat",
      "--streaming",
      "--isl",
      "10",
      "--osl",
      "5",
      "--request-count",
      "8",
      ...extra,
    ], { cwd: tmp.path });
  const narrow = await run(["--console-width", "80", "--artifact-dir", "narrow"]);
  assertExit(narrow, 0);
  const tables = narrow.stdout.split("\n").filter((l) => TABLE_LINE.test(l));
  assert.ok(tables.length > 20, narrow.stdout);
  const wide = tables.filter((l) => [...l].length > 80);
  assert.deepEqual(wide, [], "no table line is wider than --console-width");
  assert.match(narrow.stdout, /^\([a-z0-9, ]+ left out to fit 80 columns\)$/m);

  const normal = await run(["--artifact-dir", "normal"]);
  assertExit(normal, 0);
  assert.doesNotMatch(normal.stdout, /left out to fit/);
  assert.match(normal.stdout, /┃\s+Metric ┃\s+avg ┃\s+min ┃\s+max ┃\s+p99 ┃\s+p90 ┃\s+p50 ┃\s+std ┃/);
});
