/**
 * The pure parts of `calibrate`'s report: the load a level's schedule gives, and the caveats printed under it.
 * (The command itself runs end to end in tests/e2e/calibrate_test.ts.)
 */
import assert from "node:assert/strict";
import { levelCaveats, scheduledEventsPerSecond } from "../../src/calibrate/level_report.ts";
import { calibrationLevel as level, DEFAULT_SCHEDULE as defaults } from "../fixtures/calibration_level.ts";

Deno.test("scheduledEventsPerSecond is streams × tokens over one response's scheduled time", () => {
  // 256 × 100 tokens every 50 + 99 × 13 = 1,337 ms.
  assert.equal(scheduledEventsPerSecond(defaults, 256), 256 * 100 / 1.337);
  assert.equal(scheduledEventsPerSecond({ ttft: 20, itl: 10, tokens: 6 }, 2), 2 * 6 / 0.07);
});

Deno.test("levelCaveats flags an overloaded client and a schedule the level did not hold, and nothing else", () => {
  assert.deepEqual(levelCaveats([level({})]), []);
  // 16 streams: 1,197 events/s scheduled; 95 % of it is held.
  const s16 = scheduledEventsPerSecond(defaults, 16);
  assert.deepEqual(levelCaveats([level({ streams: 16, eventsPerSecond: 0.95 * s16 })]), []);
  const notes = levelCaveats([
    level({ clientCpuPercentOfCore: 77.4, clientCpuOverThreshold: true }),
    level({ streams: 512, eventsPerSecond: 30_000 }),
  ]);
  assert.equal(notes.length, 2);
  assert.match(notes[0], /at 256 streams the client's engine went over ~70% of a core per thread \(77% in all\)/);
  assert.match(notes[1], /at 512 streams 30,000 events\/s arrived where the schedule gives 38,295/);
});
