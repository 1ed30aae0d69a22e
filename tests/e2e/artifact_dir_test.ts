/**
 * The artifact directory as a careless user or a full disk leaves it: a file in its place, a directory that cannot
 * be written, two runs into one directory, a lock left by a killed run, a disk that fills during the run, and
 * values too large to build. Input problems exit 2 with nothing sent (the simulator's journal is empty); a failed
 * write mid-run keeps every other file and the console summary, names what is missing and exits 4.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, exists, MAIN_TS, readJsonl, runCli, spawnCli, startSim, tempDir } from "./cli_harness.ts";
import { readRequestJournal } from "../../src/sim/read_request_journal.ts";

const FAST_SIM = ["--ttft", "5", "--itl", "0.2"];
const SMALL = ["--ui", "none", "-m", "m", "--isl", "20", "--osl", "5"];

async function sent(journal: string): Promise<number> {
  if (!(await exists(journal))) return 0;
  return (await readRequestJournal(journal)).filter((e) => e.method === "POST").length;
}

Deno.test("profile exits 2 and sends nothing when the artifact directory is a file, cannot be written or values are too large", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  const sim = await startSim([...FAST_SIM, "--record-requests", journal]);
  await Deno.writeTextFile(join(tmp.path, "afile"), "x");
  await Deno.mkdir(join(tmp.path, "jdir", "profile_export.jsonl"), { recursive: true });
  let readOnly = "/sys"; // root writes anywhere but there
  if (Deno.uid() !== 0) {
    readOnly = join(tmp.path, "ro");
    await Deno.mkdir(readOnly, { mode: 0o555 });
  }
  const cases: [string[], RegExp][] = [
    [["--artifact-dir", "afile"], /the artifact directory afile is a file, not a directory/],
    [["--artifact-dir", readOnly], /cannot (create|write into) the artifact directory .*(denied|not permitted)/],
    [["--artifact-dir", "jdir"], /cannot create jdir\/profile_export\.jsonl: Is a directory/],
    [["--isl", "1e12"], /--isl: '1e12' is out of range; give a whole number between 1 and 10,000,000/],
    [["--num-dataset-entries", "1e12"], /--num-dataset-entries: '1e12' is out of range/],
    [["--isl", "0"], /--isl: '0' is out of range/],
  ];
  try {
    for (const [args, message] of cases) {
      const run = await runCli(["profile", ...SMALL, "--url", sim.url, "--request-count", "2", ...args], {
        cwd: tmp.path,
      });
      assertExit(run, 2);
      assert.match(run.stderr, message);
      assert.doesNotMatch(run.stderr, /internal error/);
    }
  } finally {
    await sim.stop();
  }
  assert.equal(await sent(journal), 0);
});

Deno.test("a second run into a directory in use refuses with exit 2 and sends nothing; the first finishes intact", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  // The first run lasts seconds (4 answers of 1 s each), so the second starts while it holds the lock even when a
  // loaded machine is slow to start a process.
  const sim = await startSim(["--ttft", "1000", "--itl", "0.2", "--record-requests", journal]);
  const args = ["profile", ...SMALL, "--url", sim.url, "--artifact-dir", "out"];
  try {
    await using first = spawnCli([...args, "--request-count", "4"], { cwd: tmp.path });
    const lock = join(tmp.path, "out", "infermeter.lock");
    const deadline = Date.now() + 20_000;
    // The lock is created, then written: wait for its whole line (the product judges a partial one by its age).
    const lockText = () => Deno.readTextFile(lock).catch(() => "");
    while (!(await lockText()).endsWith("\n") && !first.hasExited() && Date.now() < deadline) await delay(20);
    assert.ok(await exists(lock), `the first run took no lock:\n${first.stderrSoFar()}`);
    const holder = JSON.parse(await lockText());
    assert.equal(holder.pid, first.child.pid);

    const second = await runCli([...args, "--request-count", "3"], { cwd: tmp.path });
    assertExit(second, 2);
    assert.match(
      second.stderr,
      /the artifact directory out is in use by the run with pid \d+ .*its own --artifact-dir/,
    );

    const done = await first.result;
    assertExit(done, 0);
    assert.equal((await readJsonl(join(tmp.path, "out", "profile_export.jsonl"))).length, 4);
    assert.equal(await exists(lock), false, "the lock is removed at exit");
  } finally {
    await sim.stop();
  }
  assert.equal(await sent(journal), 4, "only the first run sent requests");
});

Deno.test("profile takes over the lock of a run that no longer exists and says so", async () => {
  if (Deno.build.os !== "linux") return;
  await using tmp = await tempDir();
  await using sim = await startSim(FAST_SIM);
  const gone = new Deno.Command("true").spawn();
  await gone.status;
  await Deno.mkdir(join(tmp.path, "out"));
  await Deno.writeTextFile(
    join(tmp.path, "out", "infermeter.lock"),
    JSON.stringify({ pid: gone.pid, hostname: Deno.hostname(), started_at_ms: Date.now() - 60_000 }),
  );
  const run = await runCli(["profile", ...SMALL, "--url", sim.url, "--request-count", "2", "--artifact-dir", "out"], {
    cwd: tmp.path,
  });
  assertExit(run, 0);
  assert.match(run.stderr, new RegExp(`Took over the lock of pid ${gone.pid} .*which no longer runs`));
  assert.equal(await exists(join(tmp.path, "out", "infermeter.lock")), false);
});

Deno.test("a full disk mid-run keeps the console summary and the other files, names what is missing, exits 4", async () => {
  if (Deno.build.os !== "linux") return;
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  const sim = await startSim([...FAST_SIM, "--record-requests", journal]);
  // /dev/full accepts the open and fails every write with ENOSPC: the per-record file fails mid-run, the JSON
  // summary at the end (written to a temporary name, then renamed), as on a disk that filled up.
  const out = join(tmp.path, "out");
  await Deno.mkdir(out);
  await Deno.symlink("/dev/full", join(out, "profile_export.jsonl"));
  await Deno.symlink("/dev/full", join(out, "profile_export_aiperf.json.tmp"));
  let run;
  try {
    run = await runCli(["profile", ...SMALL, "--url", sim.url, "--request-count", "6", "--artifact-dir", "out"], {
      cwd: tmp.path,
    });
  } finally {
    await sim.stop();
  }
  assertExit(run, 4);
  assert.match(run.stdout, /infermeter \| LLM Metrics/);
  assert.match(run.stdout, /│ +Request Count \(requests\) │ +6\.00 │/);
  assert.match(
    run.stdout,
    /NOT WRITTEN JSONL Export: could not write out\/profile_export\.jsonl: No space left on device.*\(0 records kept, 6 lost\)/,
  );
  assert.match(run.stdout, /NOT WRITTEN JSON Export: could not write out\/profile_export_aiperf\.json: No space left/);
  assert.match(run.stdout, /CSV Export: out\/profile_export_aiperf\.csv/);
  assert.match(run.stderr, /could not write out\/profile_export\.jsonl: No space left on device .*the run goes on/);
  // report.html is drawn from the JSON export: without it there is no page, and the footer says why.
  assert.match(run.stdout, /NOT WRITTEN HTML Report: could not write out\/report\.html: the JSON export it is drawn/);
  assert.match(run.stderr, /3 result files could not be written/);
  assert.match(await Deno.readTextFile(join(out, "profile_export_aiperf.csv")), /Request Count/);
  assert.match(await Deno.readTextFile(join(out, "profile_export_console.txt")), /NOT WRITTEN JSONL Export/);
  assert.equal(await sent(journal), 6);
  // No partial summary is left behind, and the manifest lists only what was written in full.
  assert.equal(await exists(join(out, "profile_export_aiperf.json")), false);
  const manifest = JSON.parse(await Deno.readTextFile(join(out, "run_manifest.json")));
  assert.deepEqual(
    manifest.files.filter((f: { role: string }) => f.role.startsWith("summary")).map((f: { path: string }) => f.path),
    ["profile_export_aiperf.csv"],
  );
});

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

Deno.test("a disk that fills mid-line keeps whole lines only, and the footer counts exactly the lines in the file", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "0", "--itl", "0"]);
  // The file-size limit (ulimit -f, 1024-byte blocks) stands in for a disk that fills: writes beyond 200 KiB fail
  // with EFBIG, the one that crosses it part-way (SIGXFSZ ignored, as a full disk raises no signal).
  const profile = [
    Deno.execPath(),
    "run",
    "-A",
    MAIN_TS,
    "profile",
    ...SMALL,
    "--url",
    sim.url,
    "--request-count",
    "600",
    "--concurrency",
    "8",
    "--export-level",
    "raw",
    "--artifact-dir",
    "out",
  ].map((a) => `'${a}'`).join(" ");
  const out = await new Deno.Command("bash", {
    args: ["-c", `ulimit -f 200; trap '' XFSZ; exec ${profile}`],
    cwd: tmp.path,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 4, new TextDecoder().decode(out.stderr));
  for (const [label, file] of [["JSONL Export", "profile_export.jsonl"], ["Raw Records", "profile_export_raw.jsonl"]]) {
    const text = await Deno.readTextFile(join(tmp.path, "out", file));
    assert.ok(text.length > 0 && text.endsWith("\n"), `${file} ends with a whole line`);
    const lines = text.split("\n").slice(0, -1);
    for (const line of lines) JSON.parse(line);
    const footer = new RegExp(`NOT WRITTEN ${label}: .*\\((\\d+) records kept, (\\d+) lost\\)`).exec(stdout);
    assert.ok(footer, stdout);
    assert.equal(Number(footer[1]), lines.length, `${file}: the footer's kept count is the file's line count`);
    assert.equal(Number(footer[1]) + Number(footer[2]), 600);
  }
});

Deno.test("report.html on a full disk: exit 4, no partial page, the other files kept", async () => {
  if (Deno.build.os !== "linux") return;
  await using tmp = await tempDir();
  await using sim = await startSim(FAST_SIM);
  const out = join(tmp.path, "out");
  await Deno.mkdir(out);
  // The page is written to a temporary name and renamed: /dev/full there fails the write, as a full disk would.
  await Deno.symlink("/dev/full", join(out, "report.html.tmp"));
  const run = await runCli(["profile", ...SMALL, "--url", sim.url, "--request-count", "3", "--artifact-dir", "out"], {
    cwd: tmp.path,
  });
  assertExit(run, 4);
  assert.match(run.stdout, /NOT WRITTEN HTML Report: could not write out\/report\.html: No space left on device/);
  assert.equal(await exists(join(out, "report.html")), false);
  assert.equal(await exists(join(out, "report.html.tmp")), false, "the temporary name is removed");
  assert.match(await Deno.readTextFile(join(out, "profile_export_aiperf.json")), /"request_count"/);
  assert.match(run.stderr, /1 result file could not be written/);
});
