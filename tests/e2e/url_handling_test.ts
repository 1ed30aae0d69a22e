/**
 * `--url` forms users copy from AIPerf docs: without a scheme (the seed's `localhost:8000`) and with the `/v1`
 * suffix that OpenAI client libraries use as their base URL.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, metric, readJson, runCli, startSim, tempDir, unusedPort } from "./cli_harness.ts";

const DIR = "artifacts/m-chat-concurrency1";

Deno.test("profile accepts a --url without a scheme, like the seed's localhost:8000", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--fast"]);
  // 127.0.0.1 rather than localhost: the sim binds IPv4 loopback, and localhost may resolve to ::1 first.
  const run = await runCli(
    [
      "profile",
      "--ui",
      "none",
      "-m",
      "m",
      "--url",
      `127.0.0.1:${sim.port}`,
      "--isl",
      "10",
      "--osl",
      "3",
      "--request-count",
      "3",
    ],
    { cwd: tmp.path },
  );
  assertExit(run, 0);
  const summary = await readJson<Record<string, unknown> & { input_config: { endpoint: { urls: string[] } } }>(
    join(tmp.path, DIR, "profile_export_aiperf.json"),
  );
  assert.equal(metric(summary, "request_count").avg, 3);
  assert.deepEqual(summary.input_config.endpoint.urls, [`http://127.0.0.1:${sim.port}`]);
});

Deno.test({
  name: "profile with a --url ending in /v1 and no --endpoint does not send to /v1/v1/…",
  fn: async () => {
    await using tmp = await tempDir();
    await using sim = await startSim(["--fast"]);
    const run = await runCli(
      [
        "profile",
        "--ui",
        "none",
        "-m",
        "m",
        "--url",
        `${sim.url}/v1`,
        "--isl",
        "10",
        "--osl",
        "3",
        "--request-count",
        "3",
      ],
      { cwd: tmp.path },
    );
    assertExit(run, 0);
    const summary = await readJson(join(tmp.path, DIR, "profile_export_aiperf.json"));
    assert.equal(metric(summary, "request_count").avg, 3);
  },
});

Deno.test("profile refuses a --url whose scheme is mistyped instead of taking the scheme for a host", async () => {
  await using tmp = await tempDir();
  for (
    const [url, meant] of [["htp//localhost:8000", "http://localhost:8000"], [
      "http:/127.0.0.1:9",
      "http://127.0.0.1:9",
    ]]
  ) {
    const run = await runCli(["profile", "--ui", "none", "-m", "m", "--url", url, "--request-count", "1"], {
      cwd: tmp.path,
    });
    assertExit(run, 2);
    assert.equal(run.stdout, "");
    assert.match(
      run.stderr,
      new RegExp(`'${url.replaceAll("/", "\\/")}' is not a well-formed URL: .*write it as ${meant}`),
    );
  }
});

Deno.test("without --model and with the server down, the run exits 3 naming the transport's cause", async () => {
  await using tmp = await tempDir();
  const run = await runCli(["profile", "--ui", "none", "--url", `http://127.0.0.1:${unusedPort()}`], { cwd: tmp.path });
  assertExit(run, 3);
  assert.match(run.stderr, /no model given, and cannot connect to http:\/\/127\.0\.0\.1:\d+ \(connection refused\)/);
  assert.doesNotMatch(run.stderr, /named none/);
});

Deno.test("a --url that already ends in the endpoint path is refused before anything is sent (exit 2)", async () => {
  await using tmp = await tempDir();
  const run = await runCli(
    ["profile", "--ui", "none", "-m", "m", "--url", `http://127.0.0.1:${unusedPort()}/v1/chat/completions`],
    { cwd: tmp.path },
  );
  assertExit(run, 2);
  assert.match(
    run.stderr,
    /already ends in the endpoint path \/v1\/chat\/completions.*--url http:\/\/127\.0\.0\.1:\d+\)/,
  );
});
