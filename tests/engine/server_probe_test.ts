/**
 * Readiness, model discovery and server identity against the simulator on a real port; waiting runs on a manual
 * clock, so a server that stays loading is given up on after exactly the timeout's checks.
 */
import assert from "node:assert/strict";
import { startSimServer } from "../../src/sim/sim_server.ts";
import { discoverModel, readServerIdentity, waitForModel } from "../../src/engine/server_probe.ts";
import { discoverModels } from "../../src/engine/prepare_server.ts";
import { CHAT_ADAPTER } from "../../src/endpoints/openai/chat.ts";
import { parseTarget } from "../../src/transport/parse_target.ts";
import { oracleTokenizer } from "../sim/oracle_tokenizer.ts";
import { SIM_PROFILE_ID } from "../../src/sim/server_info_routes.ts";

async function sim(loadDelaySeconds: number) {
  const server = await startSimServer({
    port: 0,
    ttftMs: 0,
    itlMs: 0,
    models: ["nim/model-a", "nim/model-b"],
    apiKey: "k",
    loadDelaySeconds,
    tokenizer: oracleTokenizer(),
  });
  const probe = { target: parseTarget(server.url), headers: CHAT_ADAPTER.headers({ streaming: false, apiKey: "k" }) };
  return { server, probe };
}

function manualClock() {
  let t = 0;
  return { now: () => t, sleep: (ms: number) => Promise.resolve(void (t += ms)) };
}

Deno.test("waitForModel gives up after the timeout while /v1/health/ready answers 503, naming why", async () => {
  const { server, probe } = await sim(3600);
  try {
    const reasons: string[] = [];
    const outcome = await waitForModel(probe, {
      timeoutS: 10,
      intervalS: 2,
      mode: "models",
      adapter: CHAT_ADAPTER,
      path: "/v1/chat/completions",
      model: "nim/model-a",
      ...manualClock(),
      onWaiting: (r) => reasons.push(r),
    });
    assert.equal(outcome.ready, false);
    assert.equal(outcome.attempts, 6, "checks at 0, 2, 4, 6, 8 and 10 s");
    assert.equal(outcome.waitedMs, 10_000);
    assert.match(outcome.reason!, /health\/ready answers 503/);
    assert.equal(reasons.length, 6);
  } finally {
    await server.close();
  }
});

Deno.test("waitForModel is ready at once in every mode when the server is up, with the key in its header", async () => {
  const { server, probe } = await sim(0);
  try {
    for (const mode of ["models", "inference", "both"] as const) {
      const outcome = await waitForModel(probe, {
        timeoutS: 5,
        intervalS: 1,
        mode,
        adapter: CHAT_ADAPTER,
        path: "/v1/chat/completions",
        model: "nim/model-a",
        ...manualClock(),
      });
      assert.deepEqual([outcome.ready, outcome.attempts], [true, 1], mode);
    }
    const keyless = { ...probe, headers: CHAT_ADAPTER.headers({ streaming: false }) };
    const outcome = await waitForModel(keyless, {
      timeoutS: 0,
      intervalS: 1,
      mode: "inference",
      adapter: CHAT_ADAPTER,
      path: "/v1/chat/completions",
      model: "nim/model-a",
      ...manualClock(),
    });
    assert.equal(outcome.ready, false);
    assert.match(outcome.reason!, /answers 401/);
  } finally {
    await server.close();
  }
});

Deno.test("discoverModel takes the first listed model; readServerIdentity records NIM's and vLLM's answers", async () => {
  const { server, probe } = await sim(0);
  try {
    assert.deepEqual(await discoverModel(probe), { model: "nim/model-a" });
    const identity = await readServerIdentity(probe);
    assert.equal(identity?.selected_model_profile_id, SIM_PROFILE_ID);
    assert.equal(typeof identity?.nim_release, "string");
    assert.equal(identity?.engine_version, identity?.nim_release);
    const logs: string[] = [];
    const log = { info: (m: string) => logs.push(m), debug: () => {} };
    const prepared = await discoverModels(probe, {
      modelNames: [],
      adapter: CHAT_ADAPTER,
      path: "/v1/chat/completions",
      log,
    });
    assert.deepEqual(prepared, { ok: true, modelNames: ["nim/model-a"] });
    assert.ok(logs.some((l) => l.includes("nim/model-a") && l.includes("/v1/models")));
  } finally {
    await server.close();
  }
  const gone = await discoverModels(probe, {
    modelNames: [],
    adapter: CHAT_ADAPTER,
    path: "/v1/chat/completions",
    log: { info: () => {}, debug: () => {} },
  });
  assert.equal(gone.ok, false);
  // The transport's own words, not "named none": the user sees the server is down.
  assert.match(gone.ok ? "" : gone.message, /cannot connect to http:\/\/127\.0\.0\.1:\d+ \(.*refused.*\)/i);
});
