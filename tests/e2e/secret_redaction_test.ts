/**
 * Credentials reach the server but never the user's screen or result files: --api-key, credential headers and
 * URL passwords are replaced by `<redacted>` everywhere (stdout, stderr at DEBUG level, every artifact).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, type CliResult, metric, readJson, runCli, startSim, tempDir, walkFiles } from "./cli_harness.ts";

/** Every secret used below contains this, so one search finds any of them. */
const MARK = "s3cr3t";
const API_KEY = "s3cr3t-KEY";
const HEADER_SECRET = "hdr-s3cr3t";
const URL_PASSWORD = "pw-s3cr3t";
const WRONG_KEY = "wr0ng-s3cr3t";
const DIR = "artifacts/m-chat-concurrency1";

async function assertNoSecret(run: CliResult, cwd: string): Promise<void> {
  assert.ok(!run.stdout.includes(MARK), `stdout leaks a secret:\n${run.stdout}`);
  assert.ok(!run.stderr.includes(MARK), `stderr leaks a secret:\n${run.stderr}`);
  const files = await walkFiles(cwd);
  assert.ok(files.length >= 5, `expected the artifacts, found ${files.join(", ")}`);
  for (const file of files) {
    const text = await Deno.readTextFile(join(cwd, file));
    const at = text.indexOf(MARK);
    assert.equal(at, -1, `${file} leaks a secret: …${text.slice(Math.max(0, at - 80), at + 40)}…`);
  }
}

interface Case {
  readonly name: string;
  readonly args: readonly string[];
  readonly env?: Record<string, string>;
  readonly expectExit: number;
  /** Whether the command line held a secret, so `cli_command` must show `<redacted>`. */
  readonly redactedInCommand: boolean;
}

Deno.test("profile keeps --api-key, credential headers and URL passwords out of stdout, stderr and every artifact", async () => {
  await using tmp = await tempDir();
  await using keyed = await startSim(["--ttft", "2", "--itl", "0.2", "--api-key", API_KEY]);
  // URL userinfo becomes Basic auth, which a sim with --api-key would refuse: that case gets an open sim.
  await using open = await startSim(["--ttft", "2", "--itl", "0.2"]);
  const n = ["--request-count", "4"];
  const cases: Case[] = [
    {
      name: "api-key-and-header",
      args: ["--url", keyed.url, "--api-key", API_KEY, "-H", `X-Api-Key: ${HEADER_SECRET}`, ...n],
      expectExit: 0,
      redactedInCommand: true,
    },
    {
      name: "authorization-header",
      args: ["--url", keyed.url, "-H", `Authorization: Bearer ${API_KEY}`, ...n],
      expectExit: 0,
      redactedInCommand: true,
    },
    {
      name: "env-api-key",
      args: ["--url", keyed.url, ...n],
      env: { INFERMETER_API_KEY: API_KEY },
      expectExit: 0,
      redactedInCommand: false,
    },
    // The sim refuses a wrong key with 401: this proves the successful runs really sent theirs.
    {
      name: "wrong-key",
      args: ["--url", keyed.url, "--api-key", WRONG_KEY, ...n],
      expectExit: 1,
      redactedInCommand: true,
    },
    {
      name: "url-userinfo",
      args: ["--url", `http://user:${URL_PASSWORD}@127.0.0.1:${open.port}`, ...n],
      expectExit: 0,
      redactedInCommand: true,
    },
  ];
  const common = ["profile", "--ui", "none", "-v", "-m", "m", "--streaming", "--isl", "20", "--osl", "5"];
  const runs = await Promise.all(cases.map(async (c) => {
    const cwd = join(tmp.path, c.name);
    await Deno.mkdir(cwd);
    return { c, cwd, run: await runCli([...common, ...c.args], { cwd, env: c.env }) };
  }));

  for (const { c, cwd, run } of runs) {
    assertExit(run, c.expectExit);
    await assertNoSecret(run, cwd);
    const summary = await readJson<{ run_info: { cli_command: string } }>(join(cwd, DIR, "profile_export_aiperf.json"));
    assert.equal(/<redacted>/.test(summary.run_info.cli_command), c.redactedInCommand, `${c.name}: cli_command`);
    if (c.expectExit === 0) assert.equal(metric(summary, "request_count").avg, 4, `${c.name}: request_count`);
    else assert.match(run.stdout, /401/, `${c.name}: the error summary shows the 401`);
  }
  const first = runs[0];
  assert.match(first.run.stdout, /CLI Command: .*--api-key '<redacted>' -H 'X-Api-Key: <redacted>'/);
});
