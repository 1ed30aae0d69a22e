import assert from "node:assert/strict";
import { EarlyWorker, type WorkerRole } from "../../src/runtime/spawn_worker.ts";
import type { TokenCounterReply } from "../../src/tokenizer/token_counter_worker.ts";

/** The first reply of a token-counter Worker to its init message. */
function initReply(worker: Worker): Promise<TokenCounterReply> {
  return new Promise((resolve) => {
    worker.onmessage = (event: MessageEvent<TokenCounterReply>) => resolve(event.data);
    worker.postMessage({ type: "init", spec: "builtin" });
  });
}

/** A stand-in Worker that records what is done to it. */
function fakeWorker() {
  const fake = {
    onerror: null as ((event: ErrorEvent) => void) | null,
    roles: [] as WorkerRole[],
    terminated: 0,
    terminate() {
      fake.terminated++;
    },
  };
  const spawn = (role: WorkerRole) => {
    fake.roles.push(role);
    return fake as unknown as Worker;
  };
  return { fake, spawn };
}

Deno.test("EarlyWorker hands its Worker out once, and closing it afterwards leaves that Worker running", async () => {
  const early = new EarlyWorker("token-counter");
  const worker = early.take();
  assert.ok(worker instanceof Worker);
  assert.equal(early.taken, true);
  assert.equal(early.take(), undefined);
  early.close();
  try {
    assert.deepEqual(await initReply(worker), { type: "ready", name: "builtin" });
  } finally {
    worker.terminate();
  }
});

Deno.test("EarlyWorker starts its Worker at once and terminates it on close when it was never taken", () => {
  const { fake, spawn } = fakeWorker();
  const early = new EarlyWorker("token-counter", spawn);
  assert.deepEqual(fake.roles, ["token-counter"]);
  early.close();
  assert.equal(fake.terminated, 1);
  assert.equal(early.take(), undefined);
  assert.equal(early.taken, false);
  early.close();
  assert.equal(fake.terminated, 1);
});

Deno.test("EarlyWorker close does not terminate the Worker it handed out", () => {
  const { fake, spawn } = fakeWorker();
  const early = new EarlyWorker("token-counter", spawn);
  assert.equal(early.take(), fake as unknown as Worker);
  assert.equal(fake.onerror, null, "the taker's error handler is its own");
  early.close();
  assert.equal(fake.terminated, 0);
});

Deno.test("EarlyWorker keeps a load error from the thread and does not hand out a Worker that failed", () => {
  const { fake, spawn } = fakeWorker();
  const early = new EarlyWorker("token-counter", spawn);
  const event = new ErrorEvent("error", { message: "load failed", cancelable: true });
  fake.onerror!(event);
  assert.equal(event.defaultPrevented, true, "an unprevented Worker error ends the process");
  assert.equal(early.failed, true);
  assert.equal(early.take(), undefined);
  assert.equal(fake.terminated, 1);
  assert.equal(early.taken, false);
});
