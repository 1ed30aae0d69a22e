import assert from "node:assert/strict";
import { DurationStop, PhaseStops, RequestCountStop, SessionCountStop } from "../../src/timing/stop_conditions.ts";

const at = (requestsSent: number, sessionsStarted: number, now = 0) => ({ requestsSent, sessionsStarted, now });

Deno.test("a request count stops every turn once the budget is spent", () => {
  const c = new RequestCountStop(3);
  assert.equal(c.canSendAnyTurn(at(2, 1)), true);
  assert.equal(c.canSendAnyTurn(at(3, 1)), false);
  assert.equal(c.canStartNewSession(at(3, 1)), false);
});

Deno.test("a session count stops new sessions but not the turns of started ones", () => {
  const c = new SessionCountStop(2);
  assert.equal(c.canStartNewSession(at(5, 1)), true);
  assert.equal(c.canStartNewSession(at(5, 2)), false);
  assert.equal(c.canSendAnyTurn(at(500, 2)), true);
});

Deno.test("a duration stops issuing at its deadline, not before", () => {
  const c = new DurationStop(100, 50);
  assert.equal(c.deadline, 150);
  assert.equal(c.canSendAnyTurn(at(0, 0, 149.9)), true);
  assert.equal(c.canSendAnyTurn(at(0, 0, 150)), false);
});

Deno.test("phase stops: the first condition reached wins; no condition means no limit", () => {
  const stops = new PhaseStops({ requestCount: 10, durationMs: 1000, gracePeriodMs: 5 }, 0);
  assert.equal(stops.deadline, 1000);
  assert.equal(stops.gracePeriodMs, 5);
  assert.equal(stops.canSendAnyTurn(at(9, 1, 999)), true);
  assert.equal(stops.canSendAnyTurn(at(10, 1, 10)), false);
  assert.equal(stops.canSendAnyTurn(at(1, 1, 1000)), false);
  const none = new PhaseStops({ gracePeriodMs: 0 }, 0);
  assert.equal(none.deadline, Infinity);
  assert.equal(none.canStartNewSession(at(1e9, 1e9, 1e9)), true);
});
