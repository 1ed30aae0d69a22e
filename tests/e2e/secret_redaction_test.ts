/**
 * Credentials reach the server but never the user's screen or result files: --api-key, credential headers and
 * URL passwords are replaced by `<redacted>` everywhere (stdout, stderr at DEBUG level, every artifact).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  assertExit,
  type CliResult,
  metric,
  readJson,
  runCli,
  spawnCli,
  startSim,
  tempDir,
  unusedPort,
  walkFiles,
} from "./cli_harness.ts";

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

/** A pass-through proxy in front of the simulator that keeps what reached it: the request exactly as sent. */
function startRecordingProxy(target: string) {
  const seen: { headers: Headers; body: string }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.text();
    const url = new URL(req.url);
    if (req.method === "POST") seen.push({ headers: req.headers, body });
    return await fetch(target + url.pathname + url.search, {
      method: req.method,
      headers: [...req.headers].filter(([name]) => name !== "authorization" && name !== "host"),
      body: req.method === "POST" ? body : undefined,
    });
  });
  return {
    port: server.addr.port,
    seen,
    [Symbol.asyncDispose]: async () => await server.shutdown(),
  };
}

Deno.test("profile publishes no credential header, URL password with @, secret query value or secret body field, over the API either, while the wire request stays exact", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "1", "--itl", "0.1"]);
  await using proxy = startRecordingProxy(sim.url);
  const apiPort = unusedPort();
  const api = `http://127.0.0.1:${apiPort}`;
  const extra = { api_key: "k4-s3cr3t", password: "k5-s3cr3t", nested: { client_secret: "k6-s3cr3t" }, top_k: 5 };
  await using cli = spawnCli([
    "profile",
    "--ui",
    "none",
    "-v",
    "-m",
    "m",
    "--streaming",
    "--url",
    `http://user:p@ss-s3cr3t@127.0.0.1:${proxy.port}`,
    "-H",
    "X-My-Key: k1-s3cr3t",
    "-H",
    "x-functions-key: k2-s3cr3t",
    "-H",
    "X-Subscription-Key: k3-s3cr3t",
    "-H",
    "X-Tenant: tenant-s3cr3t",
    "--redact-header",
    "x-tenant",
    "-H",
    "X-Trace-Tag: visible-value",
    "--extra-inputs",
    JSON.stringify(extra),
    "--server-metrics",
    `${sim.url}/metrics?access_token=q-s3cr3t`,
    "--export-level",
    "raw",
    "--isl",
    "10",
    "--osl",
    "3",
    "--request-count",
    "3",
    "--api-port",
    String(apiPort),
    "--api-keep-alive",
    "60",
  ], { cwd: tmp.path, timeoutMs: 90_000 });

  const bodies: string[] = [];
  const get = async (path: string) => {
    const text = await (await fetch(api + path)).text();
    bodies.push(text);
    return text;
  };
  let status = "running";
  for (let i = 0; i < 600 && status === "running" && !cli.hasExited(); i++) {
    await new Promise((r) => setTimeout(r, 50));
    try {
      status = JSON.parse(await get("/api/results")).status;
    } catch {
      // not listening yet
    }
  }
  assert.equal(status, "complete", cli.stderrSoFar());
  const runInfo = JSON.parse(await get("/api/run"));
  await get("/api/config");
  const listed = JSON.parse(await get("/api/results/list")).files as { name: string }[];
  assert.ok(listed.some((f) => f.name === "inputs.json") && listed.some((f) => f.name.endsWith("_raw.jsonl")));
  for (const f of listed) await get(`/api/results/files/${f.name}`);
  cli.kill("SIGINT"); // ends the keep-alive
  const run = await cli.result;
  assertExit(run, 0);

  // The wire: every header, the URL password (as Basic auth) and every body field exactly as given.
  assert.equal(proxy.seen.length, 3);
  for (const { headers, body } of proxy.seen) {
    assert.equal(headers.get("x-my-key"), "k1-s3cr3t");
    assert.equal(headers.get("x-functions-key"), "k2-s3cr3t");
    assert.equal(headers.get("x-subscription-key"), "k3-s3cr3t");
    assert.equal(headers.get("x-tenant"), "tenant-s3cr3t");
    assert.equal(headers.get("authorization"), `Basic ${btoa("user:p@ss-s3cr3t")}`);
    const sent = JSON.parse(body);
    assert.deepEqual({ ...extra, nested: sent.nested }, {
      api_key: sent.api_key,
      password: sent.password,
      nested: extra.nested,
      top_k: sent.top_k,
    });
  }

  // Published: nowhere.
  for (const body of bodies) {
    const at = body.indexOf(MARK);
    assert.equal(at, -1, `an API response leaks a secret: …${body.slice(Math.max(0, at - 200), at + 40)}…`);
  }
  await assertNoSecret(run, tmp.path);
  assert.match(runInfo.cli_command, /--url 'http:\/\/<redacted>@127\.0\.0\.1:\d+'/);
  for (const name of ["X-My-Key", "x-functions-key", "X-Subscription-Key", "X-Tenant"]) {
    assert.ok(runInfo.cli_command.includes(`-H '${name}: <redacted>'`), `${name} in ${runInfo.cli_command}`);
  }
  assert.ok(runInfo.cli_command.includes("X-Trace-Tag: visible-value"), "a harmless header stays visible");
  const inputs = await Deno.readTextFile(join(tmp.path, DIR, "inputs.json"));
  assert.match(inputs, /"api_key": "<redacted>"/);
  assert.match(inputs, /"top_k": 5/);
  const raw = (await Deno.readTextFile(join(tmp.path, DIR, "profile_export_raw.jsonl"))).trim().split("\n");
  assert.equal(JSON.parse(raw[0]).payload.password, "<redacted>");
});

Deno.test("profile's exit-2 messages about a bad URL show no password and no secret query value", async () => {
  await using tmp = await tempDir();
  const urls = [
    "http://127.0.0.1:1/v1?api_key=q-s3cr3t",
    "http://127.0.0.1:1?x=1&access_token=q-s3cr3t&sig=q2-s3cr3t",
    "http://user:p@ss-s3cr3t@127.0.0.1:1/v1?code=q3-s3cr3t",
    "htp://user:pw-s3cr3t@127.0.0.1:1",
    "http://user:pw/s3cr3t@127.0.0.1:1",
  ];
  const runs = await Promise.all(urls.map(async (url, i) => {
    const cwd = join(tmp.path, `case${i}`);
    await Deno.mkdir(cwd);
    return { url, cwd, run: await runCli(["profile", "--ui", "none", "-m", "m", "--url", url], { cwd }) };
  }));
  for (const { url, cwd, run } of runs) {
    assert.equal(run.code, 2, `${url}: ${run.stderr}`);
    assert.match(run.stderr, /URL|--url/, `${url}: the message names the problem`);
    assert.ok(!`${run.stdout}${run.stderr}`.includes(MARK), `${url} leaks:\n${run.stderr}`);
    for (const file of await walkFiles(cwd)) {
      assert.ok(!(await Deno.readTextFile(join(cwd, file))).includes(MARK), `${url}: ${file} leaks`);
    }
  }
  assert.match(runs[0].run.stderr, /api_key=<redacted>/, "the parameter is named, its value hidden");
});
