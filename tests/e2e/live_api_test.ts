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
