/**
 * `infermeter profile` starts its token-counting Worker before the command's own modules load, and the run counts
 * with that Worker; a command line that needs none (help, the server's own counts) starts none.
 */
import assert from "node:assert/strict";
import { countsTokensLocally } from "../../src/cli/main_cli.ts";
import { assertExit, readJson, runCli, startSim, tempDir } from "./cli_harness.ts";

const EARLY = "token counting: in the Worker started before the command loaded";

Deno.test("countsTokensLocally is false for help and for the server's own counts", () => {
  assert.equal(countsTokensLocally(["-m", "m", "--url", "http://127.0.0.1:1"]), true);
  assert.equal(countsTokensLocally(["--help"]), false);
  assert.equal(countsTokensLocally(["-m", "m", "-h"]), false);
  assert.equal(countsTokensLocally(["-m", "m", "--use-server-token-count"]), false);
  assert.equal(countsTokensLocally(["-m", "m", "--", "--help"]), true);
});

Deno.test("a profile run counts tokens in the Worker started before the command loaded", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim([]);
  const args = "-m m --ui none --streaming --request-count 4 --synthetic-input-tokens-mean 20 --output-tokens-mean 8";
  const run = await runCli(["profile", ...args.split(" "), "--url", sim.url, "--artifact-dir", "out"], {
    cwd: tmp.path,
  });
  assertExit(run, 0);
  const log = await Deno.readTextFile(`${tmp.path}/out/logs/infermeter.log`);
  assert.ok(log.includes(EARLY), "the run started its own counting Worker");
  const summary = await readJson<Record<string, { avg?: number }>>(`${tmp.path}/out/profile_export_aiperf.json`);
  assert.ok((summary.output_sequence_length?.avg ?? 0) > 0, "output tokens were counted");
});
