/**
 * The conformance suite every registered endpoint adapter passes. It knows no API: expectations come from the
 * adapter's own capabilities and sample responses, so a new adapter is checked without editing this file.
 */
import assert from "node:assert/strict";
import { ENDPOINTS } from "../../src/endpoints/endpoint_registry.ts";
import type { BuildContext, Delta } from "../../src/endpoints/endpoint_adapter.ts";
import type { Turn } from "../../src/dataset/conversation.ts";
import { warmUpHotPath } from "../../src/engine/warm_up.ts";

const CTX: BuildContext = {
  model: "m",
  streaming: true,
  maxTokens: 7,
  useLegacyMaxTokens: false,
  useServerTokenCount: false,
  extraInputs: {},
};
const TURN: Turn = { texts: ["hello"] };
/** A turn whose body the dataset wrote (raw_payload), for adapters that build none. */
const WRITTEN: Turn = { texts: [], rawPayload: '{"model": "w", "messages": [{"role": "user", "content": "hello"}]}' };

/** The `data:` payloads of an SSE body. */
function ssePayloads(stream: string): string[] {
  return stream.split("\n\n").filter((e) => e.trim() !== "").map((e) =>
    e.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart()).join("\n")
  );
}

const isContent = (d: Delta | undefined) =>
  d?.content !== undefined || d?.reasoning !== undefined || d?.toolCalls !== undefined;

Deno.test("the endpoint registry has adapters, and rejects an unknown type naming the valid ones", () => {
  assert.ok(ENDPOINTS.names().length >= 2);
  assert.throws(
    () => ENDPOINTS.get("chta"),
    (e: Error) => e instanceof RangeError && /did you mean 'chat'/.test(e.message),
  );
  assert.throws(() => ENDPOINTS.get("embeddings"), /not supported yet/);
});

for (const adapter of ENDPOINTS.entries()) {
  const name = adapter.name;
  const caps = adapter.capabilities;
  const turn = adapter.writtenBodiesOnly ? WRITTEN : TURN;

  Deno.test(`${name}: is registered under its name, describes itself, and has a default path`, () => {
    assert.equal(ENDPOINTS.get(name), adapter);
    assert.ok(adapter.description.length > 10);
    // Empty: the URL given is the whole path (an adapter for arbitrary APIs).
    assert.ok(caps.path === "" || caps.path.startsWith("/"));
    assert.ok(caps.metricsTitle.length > 0);
  });

  Deno.test(`${name}: builds the same JSON-serializable body for the same inputs`, () => {
    const a = JSON.stringify(adapter.buildRequest(turn, CTX, []));
    assert.equal(a, JSON.stringify(adapter.buildRequest(turn, CTX, [])));
    assert.deepEqual(JSON.parse(a), adapter.buildRequest(turn, CTX, []));
  });

  Deno.test(`${name}: merges --extra-inputs after its own fields and the turn's extras last`, () => {
    if (adapter.writtenBodiesOnly) {
      // A written body is sent as it is: nothing is merged into it.
      const body = adapter.buildRequest(WRITTEN, { ...CTX, extraInputs: { temperature: 0.7 } }, []);
      assert.deepEqual(body, JSON.parse(WRITTEN.rawPayload!));
      assert.throws(() => adapter.buildRequest(TURN, CTX, []), TypeError, "a turn without a written body");
      return;
    }
    const body = adapter.buildRequest(
      { texts: ["x"], extra: { temperature: 0.1, top_k: 5 } },
      { ...CTX, extraInputs: { temperature: 0.7, ignore_eos: true } },
      [],
    );
    assert.equal(body.temperature, 0.1);
    assert.equal(body.ignore_eos, true);
    assert.equal(body.top_k, 5);
  });

  Deno.test(`${name}: a body that ignores history is the same with and without it`, () => {
    const withHistory = adapter.buildRequest(turn, CTX, [{ turn: { texts: ["earlier"] }, reply: "answer" }]);
    const without = adapter.buildRequest(turn, CTX, []);
    assert.equal(JSON.stringify(withHistory) !== JSON.stringify(without), adapter.usesHistory);
  });

  Deno.test(`${name}: headers name a content type, and carry the API key only when given, in one header`, () => {
    const plain = adapter.headers({ streaming: true });
    assert.ok(plain.some(([k]) => k.toLowerCase() === "content-type"));
    const keyed = adapter.headers({ streaming: true, apiKey: "sk-sentinel" });
    assert.equal(plain.some(([, v]) => v.includes("sk-sentinel")), false);
    assert.equal(keyed.filter(([, v]) => v.includes("sk-sentinel")).length, 1);
  });

  Deno.test(`${name}: reads its sample stream: content, then usage, [DONE] and blanks ignored`, () => {
    const deltas = ssePayloads(adapter.sampleResponses.stream).map((p) => adapter.parseEvent(p));
    if (caps.producesTokens) assert.ok(deltas.some(isContent), "a content event");
    assert.ok(deltas.some((d) => d?.usage !== undefined), "a usage event");
    assert.equal(adapter.parseEvent(""), undefined);
    assert.equal(deltas.some((d) => d?.error !== undefined), false);
  });

  Deno.test(`${name}: reads its sample body and reports a body that is not an object`, () => {
    const d = adapter.parseBody(JSON.parse(adapter.sampleResponses.body));
    if (caps.producesTokens) assert.ok(isContent(d));
    assert.ok(d.usage !== undefined);
    assert.equal(adapter.parseBody([1, 2]).error?.type, "ParseError");
  });

  Deno.test(`${name}: rejects a malformed event with a SyntaxError naming it`, () => {
    assert.throws(
      () => adapter.parseEvent("{not json"),
      (e: Error) => e instanceof SyntaxError && e.message.includes("{not json"),
    );
  });

  Deno.test(`${name}: its sample stream warms the receive path (HTTP parser, SSE framer, collector)`, () => {
    assert.equal(warmUpHotPath(adapter, 2, 50), caps.producesTokens ? 100 : 0);
  });

  Deno.test(`${name}: the ISL text holds the turn's texts`, () => {
    const text = adapter.inputText({ texts: ["alpha", "beta"] }, {});
    assert.ok(text.includes("alpha") && text.includes("beta"));
  });
}
