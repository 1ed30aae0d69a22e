/**
 * A shard over a real socket: sessions send their turns in order, with think time, one correlation id, and — for
 * conversations that carry their history — the server's real earlier replies.
 */
import assert from "node:assert/strict";
import { runShard, type ShardSpec } from "../../src/engine/run_shard.ts";
import { prepareConversations } from "../../src/engine/prepared_conversation.ts";
import { CHAT_ADAPTER } from "../../src/endpoints/openai/chat.ts";
import { TargetSet } from "../../src/engine/target_set.ts";
import { parseTarget } from "../../src/transport/parse_target.ts";
import { SystemClock } from "../../src/timing/clock.ts";
import { SeededRandom } from "../../src/base/seeded_random.ts";
import type { Dataset } from "../../src/dataset/conversation.ts";
import type { RequestRecord } from "../../src/records/request_record.ts";

interface Received {
  readonly at: number;
  readonly correlation: string | null;
  readonly body: { messages: { role: string; content: string }[] };
}

/** A chat server whose n-th answer is "reply-n", finishing `serviceMs` after the request arrived. */
function replyServer(serviceMs: number) {
  const received: Received[] = [];
  let n = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const at = performance.now();
    const body = await req.json();
    received.push({ at, correlation: req.headers.get("x-correlation-id"), body });
    const reply = `reply-${++n}`;
    await new Promise((r) => setTimeout(r, serviceMs));
    return Response.json({
      object: "chat.completion",
      choices: [{ index: 0, message: { role: "assistant", content: reply }, finish_reason: "stop" }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
  });
  return { received, server, url: `http://127.0.0.1:${server.addr.port}` };
}

async function runDataset(dataset: Dataset, url: string, concurrency: number, requestCount: number) {
  const settings = { streaming: false, useLegacyMaxTokens: false, useServerTokenCount: false, extraInputs: {} };
  const conversations = await prepareConversations(dataset, {
    ...settings,
    adapter: CHAT_ADAPTER,
    modelNames: ["m"],
    modelSelectionStrategy: "round_robin",
    outputTokensStddev: 0,
    rng: new SeededRandom(1),
    tokenizer: { name: "n", encode: () => [], decode: () => "", count: (t) => t.length },
  });
  const spec: ShardSpec = {
    workerId: "worker_0",
    shardIndex: 0,
    shardCount: 1,
    endpointType: "chat",
    path: "/v1/chat/completions",
    explicitEndpoint: false,
    headers: CHAT_ADAPTER.headers({ streaming: false }),
    timeoutMs: 10_000,
    conversations,
    bodySettings: settings,
    sampling: "sequential",
    seed: 1,
    phases: [{
      name: "profiling",
      strategy: { name: "concurrency", options: { concurrency } },
      stops: { requestCount, gracePeriodMs: 0 },
    }],
  };
  const records: RequestRecord[] = [];
  const sender = new TargetSet([parseTarget(url)], { reuse: "pooled" });
  try {
    const outcome = await runShard(spec, {
      sender,
      clock: new SystemClock(),
      clockOffsetMs: 0,
      signal: new AbortController().signal,
      onRecord: (r) => records.push(r),
    });
    return { outcome, records };
  } finally {
    sender.close();
  }
}

Deno.test("a conversation's turns go in order on one session, with the server's real replies as history", async () => {
  const { received, server, url } = replyServer(5);
  try {
    const dataset: Dataset = {
      conversations: [{
        id: "c",
        turns: [{ texts: ["first"] }, { texts: ["second"], delayMs: 40 }, { texts: ["third"] }],
      }],
      defaultSampling: "sequential",
      source: "file",
    };
    const { outcome, records } = await runDataset(dataset, url, 1, 3);
    assert.equal(outcome.profiling?.issued, 3);
    assert.deepEqual(received.map((r) => r.body.messages.at(-1)?.content), ["first", "second", "third"]);
    assert.deepEqual(received[2].body.messages, [
      { role: "user", content: "first" },
      { role: "assistant", content: "reply-1" },
      { role: "user", content: "second" },
      { role: "assistant", content: "reply-2" },
      { role: "user", content: "third" },
    ]);
    assert.equal(new Set(received.map((r) => r.correlation)).size, 1, "one correlation id for the session");
    assert.deepEqual(records.map((r) => [r.turnIndex, r.sessionNum, r.content]), [
      [0, 0, "reply-1"],
      [1, 0, "reply-2"],
      [2, 0, "reply-3"],
    ]);
    // The second turn waited for the first answer, then its 40 ms of think time.
    assert.ok(received[1].at - records[0].endAt >= 40, `think time ${received[1].at - records[0].endAt} ms`);
    assert.equal(records[1].scheduledAt! - records[0].endAt >= 40, true);
  } finally {
    await server.shutdown();
  }
});

Deno.test("lines of a single_turn session are sent one after another as written, sessions side by side", async () => {
  const { received, server, url } = replyServer(200);
  try {
    const dataset: Dataset = {
      conversations: [
        { id: "a", contextMode: "message_array_with_responses", turns: [{ texts: ["a1"] }, { texts: ["a2"] }] },
        { id: "b", turns: [{ texts: ["b1"] }] },
      ],
      defaultSampling: "sequential",
      source: "file",
    };
    const { records } = await runDataset(dataset, url, 2, 3);
    const a2 = received.find((r) => r.body.messages.at(-1)?.content === "a2")!;
    assert.deepEqual(a2.body.messages, [{ role: "user", content: "a2" }], "no history added");
    const a1 = records.find((r) => r.conversationId === "a" && r.turnIndex === 0)!;
    assert.ok(a2.at >= a1.endAt, "a2 after a1's answer");
    const b1 = received.find((r) => r.body.messages.at(-1)?.content === "b1")!;
    assert.ok(b1.at < a1.endAt, "the other session did not wait for it");
    assert.notEqual(b1.correlation, a2.correlation);
  } finally {
    await server.shutdown();
  }
});

Deno.test("a fork's child starts with its parent's conversation so far; a spawn's child starts fresh; records say where each sits", async () => {
  const { received, server, url } = replyServer(5);
  try {
    const dataset: Dataset = {
      conversations: [
        {
          id: "root",
          turns: [
            { texts: ["plan"], spawns: [{ children: ["fork"], inheritContext: true, joinAt: 1 }] },
            { texts: ["merge"], spawns: [{ children: ["spawn"] }] },
          ],
        },
        { id: "fork", child: true, turns: [{ texts: ["explore"] }] },
        { id: "spawn", child: true, turns: [{ texts: ["fresh"] }] },
      ],
      defaultSampling: "sequential",
      source: "file",
    };
    const { outcome, records } = await runDataset(dataset, url, 1, 4);
    assert.equal(outcome.profiling?.issued, 4);
    assert.equal(outcome.profiling?.sessionsStarted, 1, "children are started by their parent, never sampled");
    const byConversation = new Map(records.map((r) => [r.conversationId + r.turnIndex, r]));
    const root0 = byConversation.get("root0")!;
    const fork = byConversation.get("fork0")!;
    const spawn = byConversation.get("spawn0")!;
    const forkBody = received.find((r) => r.body.messages.at(-1)?.content === "explore")!.body;
    assert.deepEqual(forkBody.messages, [
      { role: "user", content: "plan" },
      { role: "assistant", content: root0.content },
      { role: "user", content: "explore" },
    ]);
    const spawnBody = received.find((r) => r.body.messages.at(-1)?.content === "fresh")!.body;
    assert.deepEqual(spawnBody.messages, [{ role: "user", content: "fresh" }]);
    // The root's second turn went after the fork's child had answered (its join).
    assert.ok(byConversation.get("root1")!.startAt >= fork.endAt);
    assert.equal(root0.lineage, undefined);
    assert.deepEqual(fork.lineage, {
      agentDepth: 1,
      parentCorrelationId: root0.xCorrelationId,
      rootCorrelationId: root0.xCorrelationId,
    });
    assert.notEqual(fork.xCorrelationId, root0.xCorrelationId, "a child has a correlation id of its own");
    assert.equal(spawn.lineage?.parentCorrelationId, root0.xCorrelationId);
    assert.ok(records.every((r) => r.sessionNum === 0), "a tree's requests carry its root's session number");
  } finally {
    await server.shutdown();
  }
});

Deno.test("recorded-context turns are sent after the earlier turns without the live replies; a reset starts over", async () => {
  const { received, server, url } = replyServer(5);
  try {
    const m = (role: string, content: string) => ({ role, content });
    const dataset: Dataset = {
      conversations: [{
        id: "c",
        contextMode: "deltas_with_responses",
        turns: [
          { texts: [""], messages: [m("system", "s"), m("user", "u1")] },
          { texts: [""], messages: [m("assistant", "recorded answer"), m("user", "u2")] },
          { texts: [""], messages: [m("system", "s"), m("user", "compacted")], resetContext: true },
          { texts: [""], messages: [m("user", "u4")] },
        ],
      }],
      defaultSampling: "sequential",
      source: "file",
    };
    await runDataset(dataset, url, 1, 4);
    const sent = received.map((r) => r.body.messages.map((x) => `${x.role}:${x.content}`).join(" "));
    assert.deepEqual(sent, [
      "system:s user:u1",
      "system:s user:u1 assistant:recorded answer user:u2",
      "system:s user:compacted",
      "system:s user:compacted user:u4",
    ]);
  } finally {
    await server.shutdown();
  }
});
