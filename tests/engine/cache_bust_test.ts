import assert from "node:assert/strict";
import {
  placeholderOffsets,
  sessionDigest,
  stampBody,
  stampText,
  withPlaceholder,
} from "../../src/engine/cache_bust.ts";
import type { Conversation } from "../../src/dataset/conversation.ts";

const conv: Conversation = {
  id: "c",
  systemMessage: "Be brief.",
  turns: [{ texts: ["Hi", "there"] }, { texts: ["More"] }],
};
const P = "[rid:000000000000]";

Deno.test("cache-bust markers go where the target says, system targets falling back to the first user turn", () => {
  assert.equal(withPlaceholder(conv, "system_prefix")!.conversation.systemMessage, `${P}\n\nBe brief.`);
  assert.equal(withPlaceholder(conv, "system_suffix")!.conversation.systemMessage, `Be brief.\n\n${P}`);
  const first = withPlaceholder(conv, "first_turn_prefix")!;
  assert.deepEqual(first.conversation.turns[0].texts, [`${P}\n\nHi`, "there"]);
  assert.deepEqual(first.conversation.turns[1].texts, ["More"]);
  assert.equal(first.turnIndex, 0);
  const noSystem = withPlaceholder({ ...conv, systemMessage: undefined }, "system_suffix")!;
  assert.deepEqual(noSystem.conversation.turns[0].texts, [`Hi\n\n${P}`, "there"]);
  // A written payload is sent as written: nowhere to put a marker.
  assert.equal(withPlaceholder({ id: "r", turns: [{ texts: [], rawPayload: "{}" }] }, "first_turn_suffix"), undefined);
});

Deno.test("a session stamps its digest over every placeholder, in bytes and in text", () => {
  const body = new TextEncoder().encode(JSON.stringify({ s: `${P}\n\nsys`, u: `x\n\n${P}` }));
  const at = placeholderOffsets(body);
  assert.equal(at.length, 2);
  const digest = sessionDigest(7, 3, "c");
  assert.match(digest, /^[0-9a-f]{12}$/);
  assert.equal(digest, sessionDigest(7, 3, "c"), "seeded");
  assert.notEqual(digest, sessionDigest(7, 4, "c"));
  const stamped = new TextDecoder().decode(stampBody(body, at, digest));
  assert.equal(stamped, JSON.stringify({ s: `[rid:${digest}]\n\nsys`, u: `x\n\n[rid:${digest}]` }));
  assert.equal(stampText(new TextDecoder().decode(body), digest), stamped);
  assert.equal(new TextDecoder().decode(body).includes(P), true, "the prepared body is left as it was");
});

Deno.test("messages sent as written carry the marker in their first user message, or their system message", () => {
  const messages = [
    { role: "system", content: "Tools." },
    { role: "user", content: [{ type: "image_url" }, { type: "text", text: "Fix it" }] },
    { role: "user", content: "later" },
  ];
  const agent: Conversation = { id: "a", turns: [{ texts: ["Tools.", "Fix it"], messages }] };
  const user = withPlaceholder(agent, "first_turn_prefix")!.conversation.turns[0].messages!;
  assert.deepEqual(user[1].content, [{ type: "image_url" }, { type: "text", text: `${P}\n\nFix it` }]);
  assert.deepEqual([user[0], user[2]], [messages[0], messages[2]]);
  const system = withPlaceholder(agent, "system_suffix")!.conversation.turns[0].messages!;
  assert.equal(system[0].content, `Tools.\n\n${P}`);
  const plain = withPlaceholder(
    { id: "p", turns: [{ texts: ["x"], messages: [{ role: "user", content: "x" }] }] },
    "first_turn_suffix",
  )!;
  assert.equal(plain.conversation.turns[0].messages![0].content, `x\n\n${P}`);
});

Deno.test("a turn that starts its context over carries the marker too", () => {
  const msg = (content: string) => [{ role: "user", content }];
  const agent: Conversation = {
    id: "a",
    turns: [
      { texts: ["one"], messages: msg("one") },
      { texts: ["two"], messages: msg("two") },
      { texts: ["all again"], messages: msg("all again"), resetContext: true },
    ],
  };
  const turns = withPlaceholder(agent, "first_turn_prefix")!.conversation.turns;
  assert.deepEqual(turns.map((t) => t.messages![0].content), [`${P}\n\none`, "two", `${P}\n\nall again`]);
});
