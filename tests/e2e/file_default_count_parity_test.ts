/**
 * How many requests a file dataset sends given no bound, against AIPerf 0.13's own run of the same command
 * (`tests/fixtures/aiperf_0_13/file_default_count/`): 10 of the file's 30 entries, in file order.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runScenario, SCENARIOS } from "../../scripts/parity/harness.ts";
import { readJsonl, tempDir } from "./cli_harness.ts";

Deno.test("a file dataset given no request count, duration or conversation number sends AIPerf's 10 requests", async () => {
  await using tmp = await tempDir();
  const run = await runScenario(SCENARIOS.find((s) => s.name === "file_default_count")!, "infermeter", tmp.path, "");
  const theirs = await readJsonl(
    new URL("../fixtures/aiperf_0_13/file_default_count/profile_export.jsonl", import.meta.url).pathname,
  );
  const ours = await readJsonl(join(run.artifacts, "profile_export.jsonl"));
  assert.equal(theirs.length, 10);
  assert.equal(ours.length, theirs.length);
  assert.match(run.run.stderr, /sending 10 requests/);
});
