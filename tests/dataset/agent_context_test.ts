import assert from "node:assert/strict";
import { AgentContext } from "../../src/dataset/agent_context.ts";
import type { HashBlockPrompts } from "../../src/dataset/hash_block_prompts.ts";

/** Block `id` reads `b<id>`; fresh text of n tokens reads `f<n>`. */
const TEXT = {
  block: (id: number) => Promise.resolve(`b${id}`),
  fresh: (n: number) => Promise.resolve(`f${n}`),
} as unknown as HashBlockPrompts;

const show = (d: { messages: readonly { role: string; content: string }[]; reset: boolean }) =>
  `${d.reset ? "reset " : ""}${d.messages.map((m) => `${m.role}[${m.content}]`).join(" ")}`;

Deno.test("agent context: the system prefix, then the previous answer and the new input; only what is new is sent", async () => {
  const c = new AgentContext(10, TEXT);
  // 30 tokens of tools + system = 3 blocks; 45 input tokens = 4 blocks + 5 fresh.
  await c.first([1, 2, 3, 4], 45, 20, 10);
  assert.equal(show(c.delta()), "system[b1 b2 b3] user[b4 f5]");
  // Next: shares blocks 1–4 (the tail of the previous prompt is not a block: it is cut, so the context resets).
  await c.next([1, 2, 3, 4], 15, [1, 2, 3, 4, 5, 6, 7], 70);
  assert.equal(show(c.delta()), "reset system[b1 b2 b3] user[b4] assistant[b5 b6] user[b7]");
  // Pure growth on block boundaries: only the new segments; a 1-block answer.
  await c.next([1, 2, 3, 4, 5, 6, 7], 4, [1, 2, 3, 4, 5, 6, 7, 8, 9], 93);
  assert.equal(show(c.delta()), "assistant[b8] user[b9 f3]");
});

Deno.test("agent context: a compaction that cuts into sent context starts it over; a cut removing every user input resumes with input", async () => {
  const c = new AgentContext(10, TEXT);
  await c.first([1, 2, 3], 30, 0, 0);
  assert.equal(show(c.delta()), "user[b1 b2 b3]");
  await c.next([1, 2, 3], 10, [1, 2, 3, 4, 5], 50);
  assert.equal(show(c.delta()), "assistant[b4] user[b5]");
  // Compacted: only block 1 survives; the new blocks are all input (the answer would otherwise lead).
  await c.next([1, 2, 3, 4, 5], 10, [1, 9, 10], 30);
  assert.equal(show(c.delta()), "reset user[b1] assistant[b9] user[b10]");
  // Nothing shared at all: the context is all new user input.
  await c.next([1, 9, 10], 10, [20, 21], 20);
  assert.equal(show(c.delta()), "reset user[b20 b21]");
});

Deno.test("agent context: ids that do not cover the declared system prompt are refused", async () => {
  const c = new AgentContext(10, TEXT);
  await assert.rejects(c.first([1], 40, 25, 0), /need 3 hash_ids of 10 tokens, but it records 1/);
});
