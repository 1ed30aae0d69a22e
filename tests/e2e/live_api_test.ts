/**
 * The live API's protections over real HTTP, with `profile --api-port` spawned against `serve-sim`: the files route
 * serves only what the run wrote, and requests naming a foreign host (DNS rebinding) are refused.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, type RunningCli, spawnCli, startSim, tempDir, unusedPort } from "./cli_harness.ts";

const MARK = "pl4nted";
const RUN_DIR = join("artifacts", "m-chat-concurrency1");

/** One raw HTTP/1.1 GET with the given `Host` header (no client-side normalization): status and body. */
async function rawGet(
  port: number,
  path: string,
  host = `127.0.0.1:${port}`,
): Promise<{ status: number; body: string }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(new TextEncoder().encode(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`));
    let text = "";
    const buf = new Uint8Array(65536);
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
    return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]), body: text.slice(text.indexOf("\r\n\r\n") + 4) };
  } finally {
    conn.close();
  }
}

/** Polls `/api/results` until the run's results are published. */
async function waitForResults(cli: RunningCli, port: number): Promise<void> {
  for (let i = 0; i < 1200 && !cli.hasExited(); i++) {
    try {
      const r = await rawGet(port, "/api/results");
      if (r.status === 200 && JSON.parse(r.body).status !== "running") return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`the results never became available; stderr:\n${cli.stderrSoFar()}`);
}

function profileArgs(simUrl: string, apiPort: number, extra: readonly string[] = []): string[] {
  return [
    "profile",
    "--ui",
    "none",
    "-m",
    "m",
    "--url",
    simUrl,
    "--request-count",
    "4",
    "--isl",
    "10",
    "--osl",
    "3",
    "--api-port",
    String(apiPort),
    "--api-keep-alive",
    "60",
    ...extra,
  ];
}

Deno.test("the API lists and serves only the files the run wrote: never a planted file, a symlink or the lock", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "1", "--itl", "0.1"]);
  const dir = join(tmp.path, RUN_DIR);
  await Deno.mkdir(join(dir, ".ssh"), { recursive: true });
  await Deno.writeTextFile(join(dir, "notes.txt"), `notes ${MARK}`);
  await Deno.writeTextFile(join(dir, ".ssh", "id_rsa"), `key ${MARK}`);
  await Deno.writeTextFile(join(tmp.path, "outside.txt"), `outside ${MARK}`);
  // A name the run may write but this one does not, pointing inside and outside the directory.
  await Deno.symlink(join(dir, "notes.txt"), join(dir, "server_metrics_export.jsonl"));
  await Deno.symlink(join(tmp.path, "outside.txt"), join(dir, "gpu_telemetry_export.jsonl"));
  const port = unusedPort();
  await using cli = spawnCli(profileArgs(sim.url, port), { cwd: tmp.path, timeoutMs: 90_000 });
  await waitForResults(cli, port);

  const lockHeld = await Deno.stat(join(dir, "infermeter.lock")).then(() => true, () => false);
  assert.ok(lockHeld, "the lock is still held while the API stays up");
  const list = JSON.parse((await rawGet(port, "/api/results/list")).body);
  const names = (list.files as { name: string }[]).map((f) => f.name);
  for (const name of ["profile_export_aiperf.json", "profile_export.jsonl", "inputs.json", "logs/infermeter.log"]) {
    assert.ok(names.includes(name), `${name} not listed: ${names.join(", ")}`);
  }
  for (const name of names) {
    assert.ok(!/notes|ssh|lock|gpu_telemetry|server_metrics_export\.jsonl/.test(name), `${name} is listed`);
    const file = await rawGet(port, `/api/results/files/${name}`);
    assert.equal(file.status, 200, name);
    assert.ok(!file.body.includes(MARK), `${name} serves a planted file`);
  }
  for (
    const path of [
      "notes.txt",
      ".ssh/id_rsa",
      "%2essh/id_rsa",
      "infermeter.lock",
      "server_metrics_export.jsonl",
      "gpu_telemetry_export.jsonl",
    ]
  ) {
    const r = await rawGet(port, `/api/results/files/${path}`);
    assert.ok(r.status === 404 || r.status === 400, `${path} answered ${r.status}`);
    assert.ok(!r.body.includes(MARK), `${path} served`);
  }
  cli.kill("SIGINT");
  assertExit(await cli.result, 0);
});

Deno.test("the API refuses requests whose Host names a foreign site (DNS rebinding) on every route", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "1", "--itl", "0.1"]);
  const port = unusedPort();
  const allowed = ["--api-allowed-hosts", "bench.internal", "--api-allowed-hosts", ".corp.example"];
  await using cli = spawnCli(profileArgs(sim.url, port, allowed), { cwd: tmp.path, timeoutMs: 90_000 });
  await waitForResults(cli, port);

  const routes = [
    "/api/results",
    "/api/run",
    "/api/config",
    "/api/results/list",
    "/api/results/files/profile_export_aiperf.json",
    "/metrics",
    "/healthz",
    "/docs",
    "/nothing",
  ];
  for (
    const host of ["attacker.example", `attacker.example:${port}`, "localhost.attacker.example", "corp.example.evil"]
  ) {
    for (const route of routes) {
      const r = await rawGet(port, route, host);
      assert.equal(r.status, 403, `${host} ${route}`);
      assert.match(r.body, /--api-allowed-hosts/);
      assert.ok(!r.body.includes("request_count"), `${host} ${route} got data`);
    }
  }
  for (
    const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      "LOCALHOST",
      `[::1]:${port}`,
      "app.localhost",
      `bench.internal:${port}`,
      "corp.example",
      "a.b.corp.example",
      "10.1.2.3",
    ]
  ) {
    assert.equal((await rawGet(port, "/api/results/files/profile_export_aiperf.json", host)).status, 200, host);
  }
  cli.kill("SIGINT");
  assertExit(await cli.result, 0);
});

Deno.test("seed 000's command: /api/run while running, /api/results after it, /readyz follows the state, /api/run is the export's run_info", async () => {
  await using tmp = await tempDir();
  const key = "sk-secret-12345";
  // The sim refuses any other key, so the run's success proves the key was sent; 2 ms per answer keeps the run
  // going for about two seconds, long enough to watch it.
  await using sim = await startSim(["--ttft", "2", "--itl", "0", "--api-key", key]);
  const port = unusedPort();
  // The seed's command verbatim, but for the simulator's port and a free API port.
  const args = [
    "profile",
    "--model",
    "my-model",
    "--url",
    `http://localhost:${sim.port}`,
    "--api-key",
    key,
    "--api-port",
    String(port),
    "--request-count",
    "1000",
  ];
  await using cli = spawnCli(args, { cwd: tmp.path, timeoutMs: 120_000 });

  let running: { run: Record<string, unknown>; ready: number; health: string } | undefined;
  let states = "";
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline && !cli.hasExited()) {
    try {
      const results = JSON.parse((await rawGet(port, "/api/results")).body);
      if (!states.endsWith(`${results.status} `)) states += `${results.status} `;
      // The API answers from the start (while the servers are probed); ready once requests are being sent.
      const ready = results.status === "running" && running === undefined ? (await rawGet(port, "/readyz")).status : 0;
      if (ready === 200) {
        running = {
          run: JSON.parse((await rawGet(port, "/api/run")).body),
          ready,
          health: (await rawGet(port, "/healthz")).body,
        };
      }
      if (results.status === "complete") break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  const results = JSON.parse((await rawGet(port, "/api/results")).body);
  assert.equal(results.status, "complete", `the results could not be fetched after the run (${states})`);
  assert.equal(results.results.request_count.avg, 1000);
  const ready = await rawGet(port, "/readyz");
  assert.equal(ready.status, 503, "readiness ends with the run");
  assert.match(ready.body, /complete/);
  assert.equal((await rawGet(port, "/healthz")).body, "ok");
  const apiRun = JSON.parse((await rawGet(port, "/api/run")).body);
  const names = (JSON.parse((await rawGet(port, "/api/results/list")).body).files as { name: string }[]).map((f) =>
    f.name
  );
  assert.ok(!names.some((n) => n.includes("lock")), names.join(", "));

  const run = await cli.result; // the API stays up a few seconds (--api-keep-alive, AIPerf's 5 s), then the CLI exits
  assertExit(run, 0);
  assert.match(run.stderr, /API server: staying up 5 s/);
  const exported = JSON.parse(
    await Deno.readTextFile(join(tmp.path, "artifacts", "my-model-chat-concurrency1", "profile_export_aiperf.json")),
  );
  assert.deepEqual(Object.keys(apiRun).sort(), Object.keys(exported.run_info).sort());
  assert.deepEqual(apiRun, exported.run_info);
  assert.equal(
    apiRun.cli_command,
    `infermeter profile --model 'my-model' --url 'http://localhost:${sim.port}' --api-key '<redacted>' ` +
      `--api-port ${port} --request-count 1000`,
  );
  assert.ok(running !== undefined, `never saw the run in progress (${states})`);
  assert.equal(running.ready, 200, "ready while running");
  assert.equal(running.health, "ok");
  for (const k of Object.keys(running.run)) assert.ok(k in exported.run_info, `/api/run has ${k}, the export not`);
});
