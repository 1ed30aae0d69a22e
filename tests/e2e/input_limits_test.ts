/**
 * Inputs that would exhaust the machine or send broken requests are refused with exit 2 before anything starts:
 * the CLI is spawned against a listening socket that must see no connection, and no artifact directory appears.
 */
import assert from "node:assert/strict";
import { assertExit, runCli, tempDir } from "./cli_harness.ts";

/** Runs `profile` with `args` against a loopback listener; returns the run and how many connections it got. */
async function refused(args: readonly string[]) {
  await using tmp = await tempDir();
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let connections = 0;
  const accepting = (async () => {
    for await (const conn of listener) {
      connections++;
      conn.close();
    }
  })();
  try {
    const run = await runCli(
      ["profile", "-m", "m", "--url", `http://127.0.0.1:${listener.addr.port}`, ...args],
      { cwd: tmp.path },
    );
    const entries = [];
    for await (const entry of Deno.readDir(tmp.path)) entries.push(entry.name);
    return { run, connections, entries };
  } finally {
    listener.close();
    await accepting.catch(() => {});
  }
}

Deno.test("--concurrency 1e12 exits 2 before any connection or shard process, naming the bound", async () => {
  const { run, connections, entries } = await refused(["--concurrency", "1e12", "--workers-mode", "processes"]);
  assertExit(run, 2);
  assert.match(run.stderr, /--concurrency: '1e12' is out of range; give a whole number between 1 and 1,000,000/);
  assert.doesNotMatch(run.stderr, /Engine:/);
  assert.equal(connections, 0);
  assert.deepEqual(entries, []);
});

Deno.test("every count option is bounded: a huge request count, warmup or user count exits 2", async () => {
  const cases: readonly (readonly [string, ...string[]])[] = [
    ["--request-count", "1e12"],
    ["--warmup-request-count", "1e12"],
    ["--prefill-concurrency", "1e9", "--streaming"],
    ["--num-users", "1e9", "--user-centric-rate", "1"],
    ["--benchmark-duration", "1e300"],
  ];
  for (const args of cases) {
    const { run, connections } = await refused(args);
    assertExit(run, 2);
    assert.match(run.stderr, new RegExp(`${args[0]}: '${args[1]}' is out of range`), args.join(" "));
    assert.equal(connections, 0, args.join(" "));
  }
});

Deno.test("--request-rate 1e-300 exits 2 saying the run would send one request and wait", async () => {
  const withDuration = await refused(["--request-rate", "1e-300", "--benchmark-duration", "30"]);
  assertExit(withDuration.run, 2);
  assert.match(
    withDuration.run.stderr,
    /--request-rate 1e-300 spaces requests 1\.0e\+300 s apart on average, longer than --benchmark-duration 30/,
  );
  const withCount = await refused(["--request-rate", "0.00001", "--request-count", "100"]);
  assertExit(withCount.run, 2);
  assert.match(withCount.run.stderr, /--request-rate 0\.00001 would take 116 days to send 100 requests/);
  assert.equal(withDuration.connections + withCount.connections, 0);
});

Deno.test("line breaks in --endpoint, --api-key or a header exit 2, and the key is never echoed", async () => {
  for (
    const args of [
      ["--endpoint", "/v1/chat/completions\r\nX-Injected: 1"],
      ["--api-key", "sk-secret-123\nX-Injected: 1"],
      ["-H", "X-Trace: 1\r\nX-Injected: 1"],
      ["--model", "m\nX"],
    ]
  ) {
    const { run, connections } = await refused(args);
    assertExit(run, 2);
    assert.match(run.stderr, /line break/, args.join(" "));
    assert.doesNotMatch(run.stderr, /sk-secret-123/);
    assert.equal(connections, 0);
  }
});
