/**
 * What a user sees when things go wrong: server errors (partial and total), an unreachable server, command-line
 * and dataset mistakes, and the --failed-request-threshold gate. Exit codes follow src/cli/exit_codes.ts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  assertExit,
  consoleTableRows,
  exists,
  metric,
  readJson,
  readJsonl,
  runCli,
  spawnCli,
  startSim,
  tempDir,
  unusedPort,
} from "./cli_harness.ts";

const DIR = "artifacts/m-chat-concurrency1";
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SMALL = ["--isl", "20", "--osl", "5"];

interface ErrorSummaryEntry {
  readonly error_details: { readonly code: number; readonly type: string; readonly message: string };
  readonly count: number;
}

Deno.test("profile with 30 % simulated server errors exits 0 and reports them in the error summary", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "2", "--itl", "0.2", "--error-rate", "30", "--seed", "1"]);
  const run = await runCli([
    "profile",
    "--ui",
    "none",
    "-m",
    "m",
    "--streaming",
    "--url",
    sim.url,
    ...SMALL,
    "--request-count",
    "20",
  ], {
    cwd: tmp.path,
  });
  assertExit(run, 0);
  const summary = await readJson(join(tmp.path, DIR, "profile_export_aiperf.json"));
  const errors = metric(summary, "error_request_count").avg;
  assert.ok(errors >= 1 && errors < 20, `error_request_count ${errors}`);
  assert.equal(metric(summary, "request_count").avg + errors, 20, "successes + errors = requests sent");
  const entries = summary.error_summary as ErrorSummaryEntry[];
  assert.equal(entries.length, 1);
  assert.equal(entries[0].error_details.code, 500);
  assert.equal(entries[0].count, errors);

  assert.match(run.stdout, /infermeter \| Error Summary/);
  const errorRows = consoleTableRows(run.stdout, "infermeter | Error Summary");
  const row = [...errorRows.values()].find((cells) => cells.at(-1) === String(errors));
  assert.ok(errorRows.has("500") && row, `error table lacks code 500 × ${errors}:\n${run.stdout}`);

  const failed = (await readJsonl(join(tmp.path, DIR, "profile_export.jsonl"))).filter((l) =>
    l.record.error !== undefined
  );
  assert.equal(failed.length, errors);
  for (const { record } of failed) assert.equal(record.error?.code, 500);
});

Deno.test("profile exits 1 when every request fails and still writes the error summary", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "2", "--itl", "0.2", "--error-rate", "100"]);
  const run = await runCli(["profile", "--ui", "none", "-m", "m", "--url", sim.url, ...SMALL, "--request-count", "5"], {
    cwd: tmp.path,
  });
  assertExit(run, 1);
  assert.match(run.stdout, /infermeter \| Error Summary/);
  assert.match(run.stderr, /all 5 requests failed/);
  const summary = await readJson(join(tmp.path, DIR, "profile_export_aiperf.json"));
  assert.equal(metric(summary, "error_request_count").avg, 5);
  assert.equal((summary.error_summary as ErrorSummaryEntry[])[0].count, 5);
});

Deno.test("profile exits 3 within 10 s with one clear error line when nothing listens on the URL", async () => {
  await using tmp = await tempDir();
  const url = `http://127.0.0.1:${unusedPort()}`;
  const run = await runCli(["profile", "--ui", "none", "-m", "m", "--url", url, "--request-count", "5"], {
    cwd: tmp.path,
    timeoutMs: 20_000,
  });
  assertExit(run, 3);
  assert.ok(run.wallMs < 10_000, `took ${run.wallMs.toFixed(0)} ms`);
  assert.equal(run.stdout, "", "no results table when nothing was measured");
  const errorLines = run.stderr.split("\n").filter((l) => /error/i.test(l));
  assert.equal(errorLines.length, 1, `expected one error line:\n${run.stderr}`);
  assert.ok(errorLines[0].includes(url), `the error line names the URL: ${errorLines[0]}`);
  assert.match(errorLines[0], /cannot connect/);
});

Deno.test("profile rejects a misspelled flag with exit 2 and suggests the right one", async () => {
  await using tmp = await tempDir();
  const run = await runCli(["profile", "-m", "m", "--url", `http://127.0.0.1:${unusedPort()}`, "--concurrncy", "2"], {
    cwd: tmp.path,
  });
  assertExit(run, 2);
  assert.equal(run.stdout, "");
  assert.equal(run.stderr.trimEnd().split("\n").length, 1, `one stderr line:\n${run.stderr}`);
  assert.match(run.stderr, /--concurrncy/);
  assert.match(run.stderr, /did you mean '--concurrency'/);
  assert.equal(await exists(join(tmp.path, "artifacts")), false, "a usage error writes no artifacts");
});

Deno.test("profile rejects a malformed JSONL input line with exit 2 naming file:line", async () => {
  await using tmp = await tempDir();
  await Deno.writeTextFile(
    join(tmp.path, "bad.jsonl"),
    '{"texts": ["Hello!"]}\n{"texts": ["Tell me a joke."]\n{"texts": ["Bye."]}\n',
  );
  // Nothing listens on the URL: exit 2 (not 3) proves the file was rejected before any connection was tried.
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "m", "--url", `http://127.0.0.1:${unusedPort()}`,
    "--input-file", "bad.jsonl", "--custom-dataset-type", "single_turn",
  ], { cwd: tmp.path });
  assertExit(run, 2);
  assert.equal(run.stdout, "");
  assert.match(run.stderr, /bad\.jsonl:2\b/);
  const errorLines = run.stderr.split("\n").filter((l) => /error/i.test(l));
  assert.equal(errorLines.length, 1, `one error line:\n${run.stderr}`);
});

Deno.test("profile exits 1 and stops early when the failed share exceeds --failed-request-threshold", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "2", "--itl", "0.2", "--error-rate", "50", "--seed", "1"]);
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "m", "--url", sim.url, ...SMALL,
    "--request-count", "60", "--failed-request-threshold", "0.1",
  ], { cwd: tmp.path });
  assertExit(run, 1);
  assert.match(run.stderr, /--failed-request-threshold 0\.1/);
  const summary = await readJson(join(tmp.path, DIR, "profile_export_aiperf.json"));
  const sent = metric(summary, "request_count").avg + metric(summary, "error_request_count").avg;
  assert.ok(sent >= 10 && sent < 60, `the gate judges after 10 requests and stops the run; ${sent} were sent`);
});

Deno.test("profile stops with exit 3 when its server is killed mid-run, and writes the records it had", async () => {
  await using tmp = await tempDir();
  const sim = await startSim(["--ttft", "5", "--itl", "1"]);
  try {
    // deno-fmt-ignore
    await using cli = spawnCli([
      "profile", "--ui", "none", "-m", "m", "--url", sim.url, ...SMALL, "--concurrency", "4",
      "--benchmark-duration", "120",
    ], { cwd: tmp.path, timeoutMs: 60_000 });
    while (!/infermeter is PROFILING/.test(cli.stderrSoFar()) && !cli.hasExited()) await delay(50);
    await delay(1000);
    await sim.stop("SIGKILL");
    const killedAt = performance.now();
    const run = await cli.result;
    assertExit(run, 3);
    assert.ok(performance.now() - killedAt < 15_000, "stopped soon after the server died");
    assert.match(run.stderr, /the server went away: the last \d+ requests could not connect to http:\/\/127\.0\.0\.1:/);
    const summary = await readJson(
      join(tmp.path, DIR.replace("concurrency1", "concurrency4"), "profile_export_aiperf.json"),
    );
    assert.equal(summary.is_complete, false);
    assert.equal(summary.incomplete_reason, "server_gone");
    assert.ok(metric(summary, "request_count").avg > 0, "the answers before the kill are kept");
    const records = await readJsonl(
      join(tmp.path, DIR.replace("concurrency1", "concurrency4"), "profile_export.jsonl"),
    );
    const refused = records.filter((l) => l.record.error?.type === "ConnectionError").length;
    assert.ok(refused >= 10 && refused < 20_000, `${refused} refused connections recorded, not tens of thousands`);
  } finally {
    await sim.stop();
  }
});

Deno.test("profile refuses --input-file /dev/zero and a line without end at once, with exit 2 and file:line", async () => {
  await using tmp = await tempDir();
  const url = `http://127.0.0.1:${unusedPort()}`;
  const zero = await runCli(["profile", "--ui", "none", "-m", "m", "--url", url, "--input-file", "/dev/zero"], {
    cwd: tmp.path,
    timeoutMs: 20_000,
  });
  assertExit(zero, 2);
  assert.match(zero.stderr, /\/dev\/zero: is not a regular file/);
  // 80 MiB without a line break: read in linear time to the per-line cap (quadratic, it took minutes).
  const file = await Deno.open(join(tmp.path, "one_line.jsonl"), { write: true, create: true });
  const piece = new TextEncoder().encode('{"text": "' + "z".repeat(1024 * 1024));
  for (let i = 0; i < 80; i++) await file.write(piece);
  file.close();
  // deno-fmt-ignore
  const long = await runCli([
    "profile", "--ui", "none", "-m", "m", "--url", url, "--input-file", "one_line.jsonl",
    "--custom-dataset-type", "single_turn",
  ], { cwd: tmp.path, timeoutMs: 30_000 });
  assertExit(long, 2);
  assert.match(long.stderr, /one_line\.jsonl:1: the line is longer than 67108864 characters without a line break/);
});

Deno.test("profile says once, with file:line and a hint, that a dataset field is unknown; --strict-dataset exits 2", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "1", "--itl", "0.1"]);
  await Deno.writeTextFile(
    join(tmp.path, "typo.jsonl"),
    '{"text": "a"}\n{"text": "b", "output_lenght": 5}\n{"text": "c", "output_lenght": 6}\n',
  );
  const args = ["profile", "--ui", "none", "-m", "m", "--url", sim.url, "--input-file", "typo.jsonl"];
  const lenient = await runCli([...args, "--request-count", "3"], { cwd: tmp.path });
  assertExit(lenient, 0);
  const said = lenient.stderr.split("\n").filter((l) => l.includes("output_lenght"));
  assert.equal(said.length, 1, lenient.stderr);
  assert.match(
    said[0],
    /WARNING +typo\.jsonl:2: unknown field "output_lenght" is ignored: .*did you mean 'output_length'/,
  );
  const strict = await runCli([...args, "--strict-dataset"], { cwd: tmp.path });
  assertExit(strict, 2);
  assert.match(strict.stderr, /typo\.jsonl:2: unknown field "output_lenght": .*--strict-dataset/);
});

Deno.test("profile escapes terminal escape sequences of a dataset line in its error message", async () => {
  await using tmp = await tempDir();
  // A raw ESC sequence (clear screen, set title) in a line that is not valid JSON.
  await Deno.writeTextFile(join(tmp.path, "esc.jsonl"), '{"text": "ok"}\n{"text": "\x1b[2J\x1b]0;pwned\x07"\n');
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "m", "--url", `http://127.0.0.1:${unusedPort()}`, "--input-file", "esc.jsonl",
    "--custom-dataset-type", "single_turn",
  ], { cwd: tmp.path });
  assertExit(run, 2);
  assert.match(run.stderr, /esc\.jsonl:2: /);
  const shown = run.stderr + run.stdout;
  assert.ok(!shown.includes("\x1b") && !shown.includes("\x07"), "no raw control character reaches the terminal");
  assert.match(run.stderr, /\\x1b\[2J\\x1b\]0;pwned\\x07/);
});
