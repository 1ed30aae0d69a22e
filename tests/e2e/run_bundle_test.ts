/**
 * A run bundle end to end, as users run it: `profile --bundle` against one serve-sim, `replay` against a second,
 * each server's request journal saying what it received; then `compare` of the two run directories, and bundles
 * that were cut short or altered, refused before anything is sent.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, readJson, runCli, startSim, tempDir } from "./cli_harness.ts";
import { readRequestJournal } from "../../src/sim/read_request_journal.ts";
import { type BundleRequest, readRunBundle } from "../../src/dataset/run_bundle.ts";
import { writeTarGz } from "../../src/export/tar_gz_writer.ts";
import { readTarArchive } from "../../src/base/tar_archive.ts";

const CHAT = "/v1/chat/completions";
const SIM = ["--ttft", "4", "--itl", "0.5"];
/**
 * Bounds on how late a replayed request went out against its original due time. The schedule itself is checked
 * exactly below; this is the client's lateness, on a machine whose two cores the whole suite shares, where a
 * process can wait tens of milliseconds for a core (measured here: p99 3 ms alone, 31-35 ms beside two other runs,
 * and one stall of 445 ms at load 9), so the p99 bound only catches gross errors and the median does the work.
 * The strict figure (p99 within 1 ms on a quiet machine) is measured by scripts/bundle/replay_offsets.ts and reported
 * in docs/run_bundle.md. A replay that ignored the schedule (all at once, or each turn after its think time) would be
 * hundreds of milliseconds off at the median.
 */
const SEND_P50_BOUND_MS = 20;
const SEND_P99_BOUND_MS = 1000;

/** Bodies the server received on the chat route, as JSON text, in arrival order. */
async function received(journal: string): Promise<string[]> {
  return (await readRequestJournal(journal)).filter((e) => e.path === CHAT).map((e) => JSON.stringify(e.body));
}

/** The requests of a bundle by session, each in turn order, sessions in the order they were due or started. */
function sessionRequests(requests: readonly BundleRequest[]): BundleRequest[][] {
  const by = new Map<number, BundleRequest[]>();
  for (const r of requests) by.set(r.session, [...(by.get(r.session) ?? []), r]);
  // One shard numbers its sessions as it starts them.
  const at = (r: BundleRequest) => r.scheduled_offset_ms ?? r.session;
  return [...by.values()]
    .map((turns) => turns.sort((a, b) => a.turn - b.turn))
    .sort((a, b) => at(a[0]) - at(b[0]) || a[0].request_index - b[0].request_index);
}

/** Each session's bodies in turn order, sessions in order. */
function sessionsOf(requests: readonly BundleRequest[]): string[][] {
  return sessionRequests(requests).map((turns) => turns.map((r) => r.body));
}

/** The nearest-rank quantile. */
function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

Deno.test("a bundle of an open-loop multi-turn run replays every body identically, on the original schedule", async () => {
  await using tmp = await tempDir();
  const j1 = join(tmp.path, "j1.jsonl");
  const j2 = join(tmp.path, "j2.jsonl");
  await using sim1 = await startSim([...SIM, "--record-requests", j1]);
  await using sim2 = await startSim([...SIM, "--record-requests", j2]);
  await using sim3 = await startSim(SIM);
  // deno-fmt-ignore
  const original = await runCli([
    "profile", "--url", sim1.url, "--model", "m", "--streaming", "--request-rate", "40", "--request-count", "36",
    "--conversation-num", "12", "--conversation-turn-mean", "3", "--conversation-turn-delay-mean", "40",
    "--isl", "24", "--osl", "6", "--random-seed", "11", "--artifact-dir", "orig", "--bundle", "--ui", "none",
    "-H", "Authorization: Bearer secret-token", "-H", "X-Tenant: blue",
  ], { cwd: tmp.path, timeoutMs: 60_000 });
  assertExit(original, 0);
  const bundlePath = join(tmp.path, "orig", "run.bundle.tar.gz");
  const manifest = await readJson<{ files: { role: string; path: string }[] }>(
    join(tmp.path, "orig/run_manifest.json"),
  );
  assert.ok(manifest.files.some((f) => f.role === "run_bundle" && f.path === "run.bundle.tar.gz"));
  const bundle = await readRunBundle(bundlePath);
  assert.equal(bundle.requests.length, 36);
  assert.equal(bundle.run.replay.loop, "open");
  assert.deepEqual(bundle.run.replay.secret_headers, ["Authorization"]);
  const unpacked = new Blob([await Deno.readFile(bundlePath)]).stream().pipeThrough(new DecompressionStream("gzip"));
  const text = new TextDecoder().decode(await new Response(unpacked).arrayBuffer());
  assert.match(text, /X-Tenant/);
  assert.doesNotMatch(text, /secret-token/, "no member holds the secret");
  assert.ok(bundle.member("records_jsonl") !== undefined && bundle.member("summary_json") !== undefined);
  assert.equal(bundle.run.tool.version, bundle.manifest.version);

  // deno-fmt-ignore
  const replay = await runCli([
    "replay", bundlePath, "--url", sim2.url, "--artifact-dir", "rep", "--bundle", "--ui", "none",
    "-H", "Authorization: Bearer secret-token",
  ], { cwd: tmp.path, timeoutMs: 60_000 });
  assertExit(replay, 0);
  assert.doesNotMatch(replay.stderr, /give it again/, "the secret header was given again");
  await sim1.stop();
  await sim2.stop();

  // Every body the second server received is one the first received, the same number of times.
  const first = await received(j1);
  const second = await received(j2);
  assert.equal(first.length, 36);
  assert.deepEqual([...second].sort(), [...first].sort());
  // Byte for byte as sent, in the same sessions and turn order (later turns carry the first server's replies).
  const replayed = await readRunBundle(join(tmp.path, "rep", "run.bundle.tar.gz"));
  assert.deepEqual(sessionsOf(replayed.requests), sessionsOf(bundle.requests));
  const j2Headers = (await readRequestJournal(j2)).filter((e) => e.path === CHAT).map((e) => e.headers);
  assert.ok(j2Headers.every((h) => h["x-tenant"] === "blue" && h.authorization === "<redacted>"));

  // The schedule is the original's exactly; each request went out within the bound of its due time.
  // (A conversation sent in several sessions has the same first body: requests are paired by session and turn.)
  const originals = sessionRequests(bundle.requests).flat();
  const replays = sessionRequests(replayed.requests).flat();
  const late: number[] = [];
  replays.forEach((r, i) => {
    const due = originals[i].scheduled_offset_ms!;
    assert.ok(Math.abs(r.scheduled_offset_ms! - due) < 1e-6, `request ${r.request_index} was rescheduled`);
    late.push(Math.abs(r.start_offset_ms - due));
  });
  assert.ok(quantile(late, 0.5) <= SEND_P50_BOUND_MS, `send offsets p50 ${quantile(late, 0.5).toFixed(3)} ms late`);
  assert.ok(quantile(late, 0.99) <= SEND_P99_BOUND_MS, `send offsets p99 ${quantile(late, 0.99).toFixed(3)} ms late`);

  // Half the time scale: the same requests, every offset halved.
  const fast = await runCli([
    "replay",
    bundlePath,
    "--url",
    sim3.url,
    "--time-scale",
    "0.5",
    "--artifact-dir",
    "fast",
    "--bundle",
    "--ui",
    "none",
  ], { cwd: tmp.path, timeoutMs: 60_000 });
  assertExit(fast, 0);
  const halved = await readRunBundle(join(tmp.path, "fast", "run.bundle.tar.gz"));
  assert.match(fast.stderr, /give it again with -H/);
  sessionRequests(halved.requests).flat().forEach((r, i) => {
    assert.ok(Math.abs(r.scheduled_offset_ms! - originals[i].scheduled_offset_ms! / 2) < 1e-6);
  });

  // The original as its directory, or as the bundle alone (what another machine has).
  for (const original of ["orig", "orig/run.bundle.tar.gz"]) {
    const compared = await runCli(["compare", original, "rep", "--console-width", "200"], { cwd: tmp.path });
    assertExit(compared, 0);
    assert.match(compared.stdout, new RegExp(`A  ${original}.* \\(baseline\\)\\nB  rep/`));
    assert.match(compared.stdout, /Time to First Token \(ms\) │ avg .*│ +[+-][\d.]+%/);
  }
});

Deno.test("a bundle of a closed-loop run replays its sessions in order at its concurrency, with their think times", async () => {
  await using tmp = await tempDir();
  const j2 = join(tmp.path, "j2.jsonl");
  await using sim1 = await startSim(SIM);
  await using sim2 = await startSim([...SIM, "--record-requests", j2]);
  // deno-fmt-ignore
  const original = await runCli([
    "profile", "--url", sim1.url, "--model", "m", "--streaming", "--concurrency", "3", "--request-count", "17",
    "--conversation-num", "6", "--conversation-turn-mean", "3", "--conversation-turn-delay-mean", "30",
    "--isl", "24", "--osl", "6", "--artifact-dir", "orig", "--bundle", "--ui", "none",
  ], { cwd: tmp.path, timeoutMs: 60_000 });
  assertExit(original, 0);
  const bundle = await readRunBundle(join(tmp.path, "orig", "run.bundle.tar.gz"));
  assert.equal(bundle.run.replay.loop, "closed");
  assert.equal(bundle.run.replay.concurrency, 3);
  const replay = await runCli(
    ["replay", join("orig", "run.bundle.tar.gz"), "--url", sim2.url, "--bundle", "--ui", "none"],
    { cwd: tmp.path, timeoutMs: 60_000 },
  );
  assertExit(replay, 0);
  assert.match(replay.stderr, /closed loop at concurrency 3/);
  // The default directory is named after the original's.
  const replayed = await readRunBundle(join(tmp.path, "artifacts", "orig-replay", "run.bundle.tar.gz"));
  assert.equal(replayed.run.replay.concurrency, 3);
  assert.deepEqual(sessionsOf(replayed.requests), sessionsOf(bundle.requests));
  // Think times kept: a later turn goes out no sooner than its delay after the previous turn went out.
  const bySession = new Map<number, BundleRequest[]>();
  for (const r of replayed.requests) bySession.set(r.session, [...(bySession.get(r.session) ?? []), r]);
  for (const turns of bySession.values()) {
    turns.sort((a, b) => a.turn - b.turn);
    for (let k = 1; k < turns.length; k++) {
      assert.ok(turns[k].start_offset_ms - turns[k - 1].start_offset_ms >= turns[k].delay_ms!);
    }
  }
  await sim2.stop();
  assert.equal((await received(j2)).length, 17);
});

Deno.test("replay refuses a truncated or altered bundle with exit 2 and sends nothing", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "j.jsonl");
  await using sim = await startSim([...SIM, "--record-requests", journal]);
  const original = await runCli([
    "profile",
    "--url",
    sim.url,
    "--model",
    "m",
    "--request-count",
    "4",
    "--artifact-dir",
    "orig",
    "--bundle",
    "--ui",
    "none",
  ], { cwd: tmp.path, timeoutMs: 60_000 });
  assertExit(original, 0);
  const whole = await Deno.readFile(join(tmp.path, "orig", "run.bundle.tar.gz"));
  await Deno.writeFile(join(tmp.path, "cut.bundle.tar.gz"), whole.subarray(0, Math.floor(whole.length * 0.7)));
  // Altered the way someone would: unpacked, one body edited, packed again (gzip's own checksum is then right).
  const stream = new Blob([whole]).stream().pipeThrough(new DecompressionStream("gzip"));
  const members = readTarArchive(new Uint8Array(await new Response(stream).arrayBuffer()));
  await writeTarGz(
    join(tmp.path, "edited.bundle.tar.gz"),
    members.map((m) => ({
      name: m.name,
      bytes: m.name === "requests.jsonl"
        ? new TextEncoder().encode(new TextDecoder().decode(m.bytes).replace("user", "usex"))
        : m.bytes,
    })),
  );
  await sim.stop();
  const before = (await received(journal)).length;
  await using sim2 = await startSim([...SIM, "--record-requests", journal]);
  for (
    const [file, why] of [
      ["cut.bundle.tar.gz", /is not a complete run bundle: its gzip stream is truncated or damaged/],
      ["edited.bundle.tar.gz", /member requests\.jsonl does not match its SHA-256 in the manifest \(altered\)/],
    ] as const
  ) {
    const run = await runCli(["replay", file, "--url", sim2.url, "--ui", "none"], { cwd: tmp.path });
    assertExit(run, 2);
    assert.match(run.stderr, why);
  }
  await sim2.stop();
  const compared = await runCli(["compare", "edited.bundle.tar.gz", "orig"], { cwd: tmp.path });
  assertExit(compared, 2);
  assert.match(compared.stderr, /member requests\.jsonl does not match its SHA-256/);
  assert.equal(before, 4);
  assert.equal((await received(journal)).length, 0, "the second server received nothing");
});

Deno.test("a bundle of a form-data API (audio transcription) replays the same forms, byte for byte", async () => {
  await using tmp = await tempDir();
  const j1 = join(tmp.path, "j1.jsonl");
  const j2 = join(tmp.path, "j2.jsonl");
  await using sim1 = await startSim(["--record-requests", j1]);
  await using sim2 = await startSim(["--record-requests", j2]);
  // deno-fmt-ignore
  const original = await runCli([
    "profile", "--url", sim1.url, "--model", "m", "--endpoint-type", "audio_transcription", "--audio-length-mean",
    "0.2", "--request-count", "3", "--artifact-dir", "orig", "--bundle", "--ui", "none",
  ], { cwd: tmp.path, timeoutMs: 60_000 });
  assertExit(original, 0);
  const replay = await runCli(
    ["replay", join("orig", "run.bundle.tar.gz"), "--url", sim2.url, "--artifact-dir", "rep", "--ui", "none"],
    { cwd: tmp.path, timeoutMs: 60_000 },
  );
  assertExit(replay, 0);
  await sim1.stop();
  await sim2.stop();
  const forms = async (journal: string) =>
    (await readRequestJournal(journal)).filter((e) => e.method === "POST").map((e) =>
      `${e.path} ${e.headers["content-type"]} ${e.headers["content-length"]} ${JSON.stringify(e.body)}`
    ).sort();
  const sent = await forms(j1);
  assert.equal(sent.length, 3);
  assert.match(sent[0], /^\/v1\/audio\/transcriptions multipart\/form-data; boundary=/);
  assert.deepEqual(await forms(j2), sent);
});
