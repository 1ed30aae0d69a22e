import assert from "node:assert/strict";
import { ResumedSession } from "../../src/engine/resumed_session.ts";
import type { PhaseSession, SendMeta } from "../../src/engine/phase_runner.ts";
import type { ChildSession } from "../../src/engine/session_tree.ts";

/** A five-turn session whose turn 1 starts child `x` (joined at turn 3) and turn 3 starts child `y` (joined at 4). */
function recording(sent: [number, number, boolean | undefined][]): PhaseSession {
  const child = (name: string): PhaseSession => ({
    turnCount: 1,
    delayBefore: () => undefined,
    timestampOf: () => undefined,
    send: () => Promise.resolve(void name),
  });
  const x = child("x");
  const y = child("y");
  return {
    turnCount: 5,
    spawns: true,
    delayBefore: (k) => k * 100,
    timestampOf: () => undefined,
    requestFree: (k) => k === 2,
    childrenAfter: (k): ChildSession<PhaseSession>[] | undefined =>
      k === 1 ? [{ session: x, joinAt: 3 }] : k === 3 ? [{ session: y, joinAt: 4 }] : undefined,
    send: (k: number, meta: SendMeta) => {
      sent.push([k, meta.turnIndex, meta.lastTurn]);
      return Promise.resolve();
    },
  };
}

const meta = (j: number): SendMeta => ({ requestIndex: 0, sessionIndex: 0, turnIndex: j, creditIssuedAt: 0 });

Deno.test("resumed session: a root resumed at turn 3 waits first, starts the live children, then sends turns 3 and 4", async () => {
  const sent: [number, number, boolean | undefined][] = [];
  const live: ChildSession<PhaseSession> = { session: recording([]), joinAt: 3 };
  const view = new ResumedSession(recording(sent), 3, 40, [live]);
  assert.equal(view.turnCount, 3, "the wait, turn 3, turn 4");
  assert.equal(view.spawns, true);
  assert.equal(view.requestFree(0), true);
  assert.equal(view.delayBefore(0), 40, "the root's offset from the lane's start");
  assert.equal(view.delayBefore(1), undefined, "turn 3 goes right after the wait");
  assert.equal(view.delayBefore(2), 400, "turn 4 keeps its own think time");
  // The live child joins the root's turn 3, which is the view's turn 1.
  assert.deepEqual(view.childrenAfter(-1)!.map((c) => c.joinAt), [1]);
  assert.equal(view.childrenAfter(0), undefined);
  // Turn 3's own child y joins turn 4: the view's turn 2.
  assert.deepEqual(view.childrenAfter(1)!.map((c) => c.joinAt), [2]);
  await view.send(1, meta(1), new AbortController().signal);
  await view.send(2, meta(2), new AbortController().signal);
  assert.deepEqual(sent, [[3, 3, false], [4, 4, true]], "records keep the conversation's turn numbers");
});

Deno.test("resumed session: a rootless lane is the wait alone; a join already passed is dropped", () => {
  const live: ChildSession<PhaseSession> = { session: recording([]), joinAt: 1 };
  const view = new ResumedSession(recording([]), 5, 0, [live]);
  assert.equal(view.turnCount, 1);
  assert.deepEqual(view.childrenAfter(-1)!.map((c) => c.joinAt), [undefined]);
});

Deno.test("resumed session: a sub-agent resumed at turn 2 starts after its delay and keeps its later turns", () => {
  const sent: [number, number, boolean | undefined][] = [];
  const view = new ResumedSession(recording(sent), 2, 15);
  assert.equal(view.turnCount, 3);
  assert.equal(view.delayBefore(0), 15);
  assert.equal(view.delayBefore(1), 300);
  assert.equal(view.requestFree(0), true, "its turn 2 sends nothing, as recorded");
  assert.deepEqual(view.childrenAfter(1)!.map((c) => c.joinAt), [2]);
  assert.equal(view.childrenAfter(-1), undefined);
});

Deno.test("resumed session: a warm-up request is the first turn alone, with no child", async () => {
  const sent: [number, number, boolean | undefined][] = [];
  const warm = new ResumedSession(recording(sent), 1, 0).firstTurnOnly();
  assert.equal(warm.turnCount, 1);
  assert.equal(warm.spawns, undefined);
  await warm.send(0, meta(0), new AbortController().signal);
  assert.deepEqual(sent, [[1, 1, false]]);
});
