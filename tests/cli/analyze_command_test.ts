import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, runCli, startSim, tempDir } from "../e2e/cli_harness.ts";
import { layoutSwimLanes, swimLaneOption } from "../../src/report/swim_lane.ts";
import { buildTurnMessages, decodePagePayload } from "../../src/report/turn_messages.ts";
import { valueAt } from "../../src/metrics/sweep_line.ts";

const MS = 1e6;

Deno.test("swim lanes by hand: sessions take the first free slot, overlapping requests stack, idle = alive − active", () => {
  const r = (session: string, startMs: number, endMs: number, turnIndex = 0) => ({
    session,
    startNs: 1e18 + startMs * MS,
    endNs: 1e18 + endMs * MS,
    turnIndex,
  });
  const layout = layoutSwimLanes([
    r("a", 0, 100),
    r("a", 300, 400, 1),
    r("b", 50, 150),
    r("c", 420, 500), // a ended at 400: c reuses slot 0
    r("c", 450, 480, 1), // overlaps c's first request: a second row in slot 0
  ]);
  assert.equal(layout.slots, 2);
  assert.deepEqual(layout.sessions.map((s) => [s.id, s.slot]), [["a", 0], ["b", 1], ["c", 0]]);
  assert.deepEqual(layout.sessions[2].rows, [0, 1]);
  assert.deepEqual(layout.slotRows, [2, 1]);
  assert.deepEqual(layout.slotOffset, [0, 2]);
  assert.equal(layout.totalRows, 3);
  assert.equal(valueAt(layout.active, 60), 2);
  assert.equal(valueAt(layout.active, 460), 2);
  // a is between its requests from 100 to 300: idle 1; at 460 c's requests overlap, idle stays 0.
  assert.equal(valueAt(layout.idle, 200), 1);
  assert.equal(valueAt(layout.idle, 460), 0);
  const option = swimLaneOption({ name: "run", layout, benchmarkS: 0.5 }, 2) as { series: { name: string }[] };
  assert.ok(option.series.some((s) => s.name === "Active requests (peak 2)"));
  assert.ok(JSON.stringify(option).includes("Target concurrency (2)"), "the option is plain data");
});

Deno.test("turn messages by hand: replays apart, messages interned once, caps on conversations, turns and bodies", () => {
  const rec = (conv: string, corr: string, turn: number, start: number, messages: unknown[]) => ({
    conv,
    turn,
    depth: 0,
    xCorr: corr,
    cancelled: false,
    error: false,
    messages,
    startNs: start,
  });
  const sys = { role: "system", content: "Be brief." };
  const payload = buildTurnMessages(
    [
      rec("c1", "x1", 0, 1, [sys, { role: "user", content: "hello there" }]),
      rec("c1", "x1", 1, 3, [sys, { role: "user", content: "hello there" }, { role: "assistant", content: "hi" }]),
      rec("c1", "x2", 0, 2, [sys, { role: "user", content: [{ type: "text", text: "x" }] }]),
      rec("c2", "x3", 0, 4, [{ role: "user", content: "z".repeat(30) }]),
    ],
    1,
    { limitConversations: 2, maxTurns: 1, contentCap: 10 },
  );
  assert.equal(payload.stat, "3 conversations (2 shown) · 4 turns · 8 message refs (3 unique) · from 1 raw shard(s)");
  assert.deepEqual(payload.convs.map((c) => [c.id, c.replayTag, c.nt, c.moreTurns]), [["c1", "", 2, 1], [
    "c1",
    "replay 2",
    1,
    0,
  ]]);
  // Only the shown turns' messages are stored (c2 is beyond the cap, c1's turn 1 beyond --max-turns).
  assert.deepEqual(payload.msgs.map((m) => m.role), ["system", "user", "user"]);
  assert.equal(payload.msgs[2].body, '{"content"', "structured content as JSON, cut to 10 characters");
  assert.equal(payload.msgs[2].trunc, payload.msgs[2].len - 10);
  assert.deepEqual(payload.legend[0], ["user", 4]);
});

Deno.test("analyze swim-lane and turn-messages draw a real run: PNG, zoomable page, message viewer", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "5", "--itl", "1"]);
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "sim-model", "--url", sim.url, "--conversation-num", "6",
    "--conversation-turn-mean", "3", "--conversation-turn-delay-mean", "50", "--concurrency", "2",
    "--request-count", "12", "--osl", "5", "--export-level", "raw", "--artifact-dir", "run",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  const lanes = await runCli(["analyze", "swim-lane", "run", "-c", "2", "--html"], { cwd: tmp.path });
  assertExit(lanes, 0);
  assert.match(lanes.stdout, /saved run\/swim_lane\.png\nsaved run\/swim_lane\.html/);
  const png = await Deno.readFile(join(tmp.path, "run", "swim_lane.png"));
  assert.deepEqual([...png.subarray(1, 4)], [0x50, 0x4e, 0x47], "a PNG");
  const page = await Deno.readTextFile(join(tmp.path, "run", "swim_lane.html"));
  const option = JSON.parse(/<script type="application\/json" id="option">(.*?)<\/script>/s.exec(page)![1]);
  assert.match(option.title.text, /^run {2}— {2}\d+ sessions across 2 slots$/);
  assert.ok(page.includes("default-src 'none'"), "the page fetches nothing");

  const messages = await runCli(["analyze", "turn-messages", "run", "-n", "3"], { cwd: tmp.path });
  assertExit(messages, 0);
  assert.match(messages.stdout, /saved run\/turn_messages\.html \(\d+ KB\)/);
  const payload = await decodePagePayload(await Deno.readTextFile(join(tmp.path, "run", "turn_messages.html")));
  assert.equal(payload.convs.length, 3);
  assert.match(payload.stat, /^\d+ conversations \(3 shown\) · 12 turns · /);
  // A later turn resends the history: its first message is the first turn's user message, stored once.
  const multi = payload.convs.find((c) => (c.turns as { ids: number[] }[]).length > 1)!;
  const turns = multi.turns as { ids: number[] }[];
  assert.equal(turns[1].ids[0], turns[0].ids[0]);
  assert.ok(payload.msgs.some((m) => m.role === "assistant"), "the replies resent as history");
});

Deno.test("analyze: a run without raw records is skipped (exit 1); --out with two runs and unknown words exit 2", async () => {
  await using tmp = await tempDir();
  await Deno.mkdir(join(tmp.path, "empty"));
  const skipped = await runCli(["analyze", "turn-messages", "empty"], { cwd: tmp.path });
  assertExit(skipped, 1);
  assert.match(
    skipped.stderr,
    /skip empty: no raw records under empty; run infermeter profile with --export-level raw/,
  );
  const lanes = await runCli(["analyze", "swim-lane", "empty"], { cwd: tmp.path });
  assertExit(lanes, 1);
  assert.match(lanes.stderr, /skip empty: .*profile_export\.jsonl not found/);
  assertExit(await runCli(["analyze", "swim-lane", "a", "b", "-o", "x.png"], { cwd: tmp.path }), 2);
  const unknown = await runCli(["analyze", "swimlane", "a"], { cwd: tmp.path });
  assertExit(unknown, 2);
  assert.match(unknown.stderr, /did you mean 'swim-lane'/);
});
