/**
 * `--scenario inferencex-agentx-mvp` end to end: the spawned CLI replays the example Weka traces against `serve-sim`
 * in the agentic replay mode, and what the server saw is read from its request journal. Nothing here depends on how
 * fast a busy machine is: only orderings, counts and the bodies are checked.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, readJsonl, runCli, startSim, tempDir } from "./cli_harness.ts";
import { readRequestJournal } from "../../src/sim/read_request_journal.ts";

const TTFT_MS = 20;
const CHAT = "/v1/chat/completions";
const TRACES = new URL("../../datasets/examples/weka_traces", import.meta.url).pathname;

type Body = { max_completion_tokens?: number; ignore_eos?: boolean; stream?: boolean; messages: unknown[] };
const rid = (body: unknown) => JSON.stringify(body).match(/\[rid:([0-9a-f]+)\]/)?.[1];

Deno.test("agentic replay: lanes resume the traces mid-way after a one-token warm-up, then take the next traces", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim(["--ttft", String(TTFT_MS), "--itl", "1", "--record-requests", journal]);
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--input-file", TRACES, "--custom-dataset-type", "weka_trace", "--model", "Qwen/Qwen3-0.6B",
    "--url", sim.url.replace("http://", ""), "--scenario", "inferencex-agentx-mvp", "--unsafe-override",
    "--benchmark-duration", "5", "--concurrency", "2", "--random-seed", "7", "--artifact-dir", "out",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  await sim.stop();
  // A local file and a short run are outside the scenario: accepted with --unsafe-override, each said.
  assert.match(run.stderr, /Scenario violation \(override active\): --custom-dataset-type \/ --input-file/);
  assert.match(run.stderr, /Scenario violation \(override active\): --benchmark-duration: got 5/);

  const sent = (await readRequestJournal(journal)).filter((e) => e.path === CHAT);
  const records = (await readJsonl(join(tmp.path, "out/profile_export.jsonl"))).map((r) =>
    r.record.metadata as Record<string, unknown>
  );
  const measured = new Set(records.map((m) => m.x_request_id as string));
  const warm = sent.filter((e) => !measured.has(e.headers["x-request-id"]));
  const profiled = sent.filter((e) => measured.has(e.headers["x-request-id"]));
  assert.ok(warm.length >= 1, "the warm-up primed the live streams");
  assert.equal(profiled.length, records.length);
  // The scenario's locks are in every body: streaming, ignore_eos and a cache-bust marker.
  for (const e of sent) {
    const body = e.body as Body;
    assert.equal(body.stream, true);
    assert.equal(body.ignore_eos, true);
    assert.ok(rid(body) !== undefined, "a cache-bust marker");
  }
  // Warm-up requests ask for one token and carry their context; the barrier holds the measured phase back.
  for (const e of warm) assert.equal((e.body as Body).max_completion_tokens, 1);
  const lastWarm = Math.max(...warm.map((e) => e.received_at_ms));
  const firstMeasured = Math.min(...profiled.map((e) => e.received_at_ms));
  assert.ok(firstMeasured >= lastWarm + TTFT_MS, "the measured phase starts once the warm-up is answered");
  // Each warmed stream goes on in the measured phase with its correlation id and its marker.
  for (const e of warm) {
    const next = profiled.find((p) => p.headers["x-correlation-id"] === e.headers["x-correlation-id"]);
    assert.ok(next !== undefined, "the warmed stream is continued");
    assert.equal(rid(next.body), rid(e.body), "with the same cache-bust marker");
    assert.ok((next.body as Body).messages.length >= (e.body as Body).messages.length);
  }

  // Root sessions: the lanes' first ones resume mid-trace; a freed lane takes the next trace from its start.
  const roots = new Map<string, Record<string, unknown>[]>();
  for (const m of records) {
    const key = m.root_correlation_id as string;
    roots.set(key, [...roots.get(key) ?? [], m]);
  }
  const firstRootTurn = (tree: Record<string, unknown>[]) =>
    Math.min(...tree.filter((m) => m.agent_depth === 0).map((m) => m.turn_index as number));
  const trees = [...roots.values()];
  assert.ok(trees.some((tree) => firstRootTurn(tree) > 0), "a lane resumed its trace mid-way");
  assert.ok(trees.some((tree) => firstRootTurn(tree) === 0), "a freed lane started the next trace from the top");
  // Never more trees in flight than lanes.
  const ns = (m: Record<string, unknown>, k: string) => Number(BigInt(String(m[k])) / 1000n);
  const spans = trees.map((tree) => ({
    from: Math.min(...tree.map((m) => ns(m, "request_start_ns"))),
    to: Math.max(...tree.map((m) => ns(m, "request_end_ns"))),
  }));
  for (const s of spans) {
    const overlapping = spans.filter((o) => o.from <= s.from && o.to > s.from).length;
    assert.ok(overlapping <= 2, `${overlapping} trees in flight at once`);
  }
});

Deno.test("agentic replay: an unknown scenario and the scenario's conflicts are input errors (exit 2)", async () => {
  await using tmp = await tempDir();
  const base = ["profile", "--input-file", TRACES, "--model", "m", "--url", "127.0.0.1:9"];
  const unknown = await runCli([...base, "--scenario", "agentx"], { cwd: tmp.path });
  assertExit(unknown, 2);
  assert.match(unknown.stderr, /Unknown scenario 'agentx'\. Valid scenarios: inferencex-agentx-mvp/);
  const locked = await runCli([...base, "--scenario", "inferencex-agentx-mvp", "--benchmark-duration", "60"], {
    cwd: tmp.path,
  });
  assertExit(locked, 2);
  assert.match(locked.stderr, /Scenario invariants violated \(2 conflicts\)/);
  assert.match(locked.stderr, /Pass --unsafe-override/);
  const twoModes = await runCli([...base, "--scenario", "inferencex-agentx-mvp", "--request-rate", "5"], {
    cwd: tmp.path,
  });
  assertExit(twoModes, 2);
  assert.match(twoModes.stderr, /--request-rate and --scenario each choose how requests are sent/);
});

Deno.test("agentic replay: a failed warm-up request stops the run before measuring (exit 1)", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", String(TTFT_MS), "--itl", "1", "--error-rate", "100"]);
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--input-file", TRACES, "--custom-dataset-type", "weka_trace", "--model", "Qwen/Qwen3-0.6B",
    "--url", sim.url.replace("http://", ""), "--scenario", "inferencex-agentx-mvp", "--unsafe-override",
    "--benchmark-duration", "5", "--concurrency", "2", "--random-seed", "7", "--artifact-dir", "out",
  ], { cwd: tmp.path });
  assertExit(run, 1);
  assert.match(run.stderr, /the warm-up failed for \d+ trace streams? \(.*session_/);
  const records = await readJsonl(join(tmp.path, "out/profile_export.jsonl"));
  assert.equal(records.length, 0, "nothing was measured");
  const summary = JSON.parse(await Deno.readTextFile(join(tmp.path, "out/profile_export_aiperf.json")));
  assert.equal(summary.incomplete_reason, "warmup_failed");
});

Deno.test("agentic replay: the system idle cap brings a trace's 29.5 s idle gaps down to the cap", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim(["--ttft", String(TTFT_MS), "--itl", "1", "--record-requests", journal]);
  // One trace whose requests are 30 s apart (0.5 s each); replayed from its start with a 2 s idle cap.
  const trace = new URL("../fixtures/weka_idle/idle.json", import.meta.url).pathname;
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--input-file", trace, "--custom-dataset-type", "weka_trace", "--model", "Qwen/Qwen3-0.6B",
    "--url", sim.url.replace("http://", ""), "--scenario", "inferencex-agentx-mvp", "--unsafe-override",
    "--benchmark-duration", "6", "--system-idle-gap-cap-seconds", "2", "--trajectory-start-max-ratio", "0",
    "--artifact-dir", "out",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  await sim.stop();
  const sent = (await readRequestJournal(journal)).filter((e) => e.path === CHAT);
  assert.ok(sent.length >= 3, `${sent.length} requests in 6 s, where the trace has one every 30 s`);
  for (let i = 1; i < sent.length; i++) {
    const gap = sent[i].received_at_ms - sent[i - 1].received_at_ms;
    // Never before the cap after the previous answer, far sooner than the recorded 29.5 s (or the 10 s default cap);
    // a fifth request, if one fits, is the next trace's first, sent once the lane is free.
    assert.ok(gap >= 2000 || i === 4, `gap ${i}: ${gap} ms`);
    assert.ok(gap < 9000, `gap ${i}: ${gap} ms`);
  }
});
