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
