/** The CLI against the scripted fault server: what users see on the console, and records against what arrived. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, readJsonl, runCli, tempDir } from "../e2e/cli_harness.ts";
import { type Fault, startFaultServer } from "./fault_server.ts";

const count = (text: string, re: RegExp) => text.match(new RegExp(re.source, "g"))?.length ?? 0;

Deno.test("profile says once that a server went quiet, naming it and the waiting requests, then records the timeout", async () => {
  await using tmp = await tempDir();
  const server = startFaultServer({ script: (): Fault => "never-answer" });
  try {
    // deno-fmt-ignore
    const run = await runCli([
      "profile", "--ui", "none", "-m", "m", "--url", `http://127.0.0.1:${server.port}`, "--request-count", "1",
      "--request-timeout-seconds", "2.5", "--stall-notice-seconds", "0.5", "--artifact-dir", "out",
    ], { cwd: tmp.path });
    assertExit(run, 1);
    const notice = new RegExp(
      `No response data from 127\\.0\\.0\\.1:${server.port} for \\d+ s with 1 request in flight`,
    );
    assert.equal(count(run.stderr, notice), 1, run.stderr);
    const records = await readJsonl(join(tmp.path, "out", "profile_export.jsonl"));
    assert.equal(records.length, 1);
    assert.equal(records[0].record.error?.type, "TimeoutError");
  } finally {
    await server.close();
  }
});

Deno.test("profile charges no request with an unsolicited 408 sent on an idle keep-alive connection", async () => {
  await using tmp = await tempDir();
  // Each connection answers well, then sends 408 and closes once idle for 20 ms; requests come every 500 ms.
  const server = startFaultServer({ script: (): Fault => "idle-408", idleMs: 20 });
  try {
    // deno-fmt-ignore
    const run = await runCli([
      "profile", "--ui", "none", "-m", "m", "--url", `http://127.0.0.1:${server.port}`, "--request-count", "6",
      "--request-rate", "2", "--concurrency", "1", "--streaming", "--artifact-dir", "out",
    ], { cwd: tmp.path });
    assertExit(run, 0);
    const records = await readJsonl(join(tmp.path, "out", "profile_export.jsonl"));
    assert.equal(records.length, 6);
    assert.deepEqual(records.map((r) => r.record.error ?? null), Array(6).fill(null));
    assert.ok(server.received >= 6, `the server received ${server.received} requests`);
  } finally {
    await server.close();
  }
});

Deno.test("profile cuts an endless response at --max-response-bytes into one error record per request", async () => {
  await using tmp = await tempDir();
  const server = startFaultServer({ script: (): Fault => "endless-json" });
  try {
    // deno-fmt-ignore
    const run = await runCli([
      "profile", "--ui", "none", "-m", "m", "--url", `http://127.0.0.1:${server.port}`, "--request-count", "3",
      "--max-response-bytes", "2097152", "--artifact-dir", "out",
    ], { cwd: tmp.path });
    assertExit(run, 1);
    const records = await readJsonl(join(tmp.path, "out", "profile_export.jsonl"));
    assert.deepEqual(records.map((r) => r.record.error?.type), Array(3).fill("ResponseTooLargeError"));
    assert.match(run.stdout + run.stderr, /ResponseTooLargeError/);
    assert.ok(server.endlessBytes < 3 * (2 + 16) * 1024 * 1024, `the server wrote ${server.endlessBytes} bytes`);
  } finally {
    await server.close();
  }
});

Deno.test("profile records each request the server read exactly once: a 408 met on reuse is resent, a read-then-close is not", async () => {
  await using tmp = await tempDir();
  // Request 2k is answered, and its connection's next request meets a 408 (unread); the resend reaches request
  // 2k + 1, which the server reads and then closes on without answering.
  const server = startFaultServer({ script: (n): Fault => n % 2 === 0 ? "race-408" : "read-then-close" });
  try {
    // deno-fmt-ignore
    const run = await runCli([
      "profile", "--ui", "none", "-m", "m", "--url", `http://127.0.0.1:${server.port}`, "--request-count", "6",
      "--concurrency", "1", "--streaming", "--artifact-dir", "out",
    ], { cwd: tmp.path });
    assertExit(run, 0);
    const records = await readJsonl(join(tmp.path, "out", "profile_export.jsonl"));
    assert.deepEqual(
      records.map((r) => r.record.error?.type ?? "ok"),
      Array(3).fill(["ok", "ConnectionResetError"]).flat(),
    );
    assert.equal(server.received, records.length, "every record is a request the server read, read once");
  } finally {
    await server.close();
  }
});

Deno.test("profile records bad server usage values as errors: no export holds them, the console table stays whole", async () => {
  await using tmp = await tempDir();
  const badUsage = ["1e308", "-5", "9".repeat(309)];
  const server = startFaultServer({ script: (n): Fault => n % 2 === 1 ? "bad-usage" : "ok", badUsage });
  try {
    // deno-fmt-ignore
    const run = await runCli([
      "profile", "--ui", "none", "-m", "m", "--url", `http://127.0.0.1:${server.port}`, "--request-count", "6",
      "--concurrency", "1", "--streaming", "--use-server-token-count", "--artifact-dir", "out",
    ], { cwd: tmp.path });
    assertExit(run, 0);
    const records = await readJsonl(join(tmp.path, "out", "profile_export.jsonl"));
    assert.deepEqual(
      records.map((r) => r.record.error?.type ?? "ok"),
      Array(3).fill(["ok", "InvalidUsageError"]).flat(),
    );
    for (const file of ["profile_export.jsonl", "profile_export_aiperf.json", "profile_export_aiperf.csv"]) {
      // The error message quotes the bad value in words; no value holds it.
      const text = (await Deno.readTextFile(join(tmp.path, "out", file))).replace(/"message":"[^"]*"/g, "");
      assert.doesNotMatch(text, /1e\+?308|-5\b|9{20}|Infinity/, `${file} holds no bad usage value`);
    }
    // Every row of every console table is as wide as its table's top border.
    const tables: string[][] = [];
    for (const line of run.stdout.split("\n")) {
      if (/^[┏┌]/.test(line)) tables.push([line]);
      else if (/^[┃│┡├└]/.test(line)) tables.at(-1)?.push(line);
    }
    assert.ok(tables.length >= 2, run.stdout);
    for (const rows of tables) assert.deepEqual(new Set(rows.map((l) => l.length)).size, 1, rows.join("\n"));
  } finally {
    await server.close();
  }
});

Deno.test("profile stopped by --failed-request-threshold is exported as incomplete, its own cancellations not errors", async () => {
  await using tmp = await tempDir();
  // Two requests never answered (in flight when the gate trips, then cancelled by the stop); the rest fail with 500.
  const server = startFaultServer({ script: (n): Fault => n < 2 ? "never-answer" : "http-500" });
  try {
    // deno-fmt-ignore
    const run = await runCli([
      "profile", "--ui", "none", "-m", "m", "--url", `http://127.0.0.1:${server.port}`, "--request-count", "100",
      "--concurrency", "4", "--failed-request-threshold", "0.1", "--artifact-dir", "out",
    ], { cwd: tmp.path });
    assertExit(run, 1);
    const summary = JSON.parse(await Deno.readTextFile(join(tmp.path, "out", "profile_export_aiperf.json")));
    assert.equal(summary.is_complete, false);
    assert.equal(summary.incomplete_reason, "failed_request_threshold");
    assert.equal(summary.was_cancelled, false, "nobody cancelled it: it stopped itself");
    const types = (summary.error_summary as { error_details: { type: string } }[]).map((e) => e.error_details.type);
    assert.deepEqual(types, ["Internal Server Error"], "the stop's own cancellations are not the server's errors");
    const records = await readJsonl(join(tmp.path, "out", "profile_export.jsonl"));
    // The two that never answer are in flight when the gate trips, and so may be up to two of the 500s (4 streams).
    const cancelled = records.filter((r) => r.record.error?.code === 499).length;
    assert.ok(cancelled >= 2 && cancelled <= 4, `${cancelled} cancelled records: both are still recorded`);
    assert.equal(summary.error_request_count.avg, records.length - cancelled);
  } finally {
    await server.close();
  }
});

Deno.test("profile takes a 24 MiB answer of 400,000 small events in linear time and counts its tokens", async () => {
  await using tmp = await tempDir();
  // Gathering the answer text used to copy it again every 32 events: minutes of the engine thread for this one.
  const server = startFaultServer({ script: (): Fault => "huge-answer", hugeBytes: 24 * 1024 * 1024 });
  try {
    // deno-fmt-ignore
    const run = await runCli([
      "profile", "--ui", "none", "-m", "m", "--url", `http://127.0.0.1:${server.port}`, "--request-count", "1",
      "--streaming", "--max-response-bytes", "100000000", "--artifact-dir", "out",
    ], { cwd: tmp.path, timeoutMs: 90_000 });
    assertExit(run, 0);
    const records = await readJsonl(join(tmp.path, "out", "profile_export.jsonl"));
    assert.equal(records.length, 1);
    const osl = records[0].record.metrics.output_sequence_length?.value;
    assert.ok(typeof osl === "number" && osl > 24 * 1024 * 1024 / 8, `OSL ${osl}`);
  } finally {
    await server.close();
  }
});
