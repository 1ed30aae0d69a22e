/**
 * The conformance suite every registered endpoint adapter passes. It knows no API: expectations come from the
 * adapter's own capabilities and sample responses, so a new adapter is checked without editing this file.
 */
import assert from "node:assert/strict";
import { ENDPOINTS } from "../../src/endpoints/endpoint_registry.ts";
import {
  type BuildContext,
  type Delta,
  encodeRequestBody,
  type EndpointAdapter,
} from "../../src/endpoints/endpoint_adapter.ts";
import type { Turn } from "../../src/dataset/conversation.ts";
import { sampleMedia } from "../../src/endpoints/sample_media.ts";
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
});

Deno.test("the endpoint registry speaks every endpoint type AIPerf 0.13 lists", () => {
  // deno-fmt-ignore
  const aiperf = ["audio_transcription", "chat", "cohere_rankings", "completions", "responses", "messages",
    "chat_embeddings", "embeddings", "hf_tei_rankings", "huggingface_generate", "image_generation", "image_edit",
    "video_generation", "image_retrieval", "nim_embeddings", "nim_rankings", "solido_rag", "raw", "template"];
  assert.deepEqual(aiperf.filter((name) => ENDPOINTS.find(name) === undefined), []);
});

/** The value of `key` at the top level of a body or one object down (TGI keeps options in `parameters`). */
function fieldOf(body: Record<string, unknown>, key: string): unknown {
  if (key in body) return body[key];
  for (const v of Object.values(body)) {
    if (typeof v === "object" && v !== null && !Array.isArray(v) && key in v) {
      return (v as Record<string, unknown>)[key];
    }
  }
  return undefined;
}

/** Every registered type's adapter, loaded as a run of that type loads it. */
const ADAPTERS: readonly EndpointAdapter[] = await Promise.all(ENDPOINTS.entries().map((e) => e.load()));

Deno.test("each type's adapter starts from its declaration: the same name, help line and capabilities", async () => {
  for (const [i, declared] of ENDPOINTS.entries().entries()) {
    const adapter = ADAPTERS[i];
    assert.equal(adapter.name, declared.name);
    assert.equal(adapter.description, declared.description);
    assert.equal(adapter.capabilities, declared.capabilities, `${declared.name}: the declaration's capabilities`);
    assert.equal(await declared.load(), adapter, `${declared.name}: one adapter object`);
  }
});

for (const registered of ADAPTERS) {
  const name = registered.name;
  const caps = registered.capabilities;
  // Adapters configured per run are checked as a run would use them, with their example settings.
  let configured: EndpointAdapter | undefined;
  const ready = async (): Promise<EndpointAdapter> => {
    if (!registered.configure) return registered;
    assert.ok(registered.exampleSettings, `${name} has configure() but no exampleSettings`);
    return configured ??= await registered.configure(registered.exampleSettings);
  };
  // An adapter that sends only bodies written in the dataset is checked with such a turn; one that needs an input to
  // work on (audio to transcribe, an image to edit) gets the smallest one.
  const needs = caps.requiresMedia;
  const withMedia = (t: Turn): Turn => needs === undefined ? t : { ...t, media: [sampleMedia(needs)] };
  const turn = registered.writtenBodiesOnly ? WRITTEN : withMedia(TURN);
  const usage = caps.reportsUsage !== false;

  Deno.test(`${name}: is registered under its name, describes itself, and has a default path or none`, () => {
    assert.equal(ENDPOINTS.get(name).capabilities, registered.capabilities);
    assert.ok(registered.description.length > 10);
    assert.ok(caps.path === "" || caps.path.startsWith("/"));
    assert.ok(caps.streamingPath === undefined || caps.streamingPath.startsWith("/"));
    assert.ok(caps.metricsTitle.length > 0);
  });

  Deno.test(`${name}: builds the same JSON-serializable body for the same inputs`, async () => {
    const adapter = await ready();
    const a = JSON.stringify(adapter.buildRequest(turn, CTX, []));
    assert.equal(a, JSON.stringify(adapter.buildRequest(turn, CTX, [])));
    assert.deepEqual(JSON.parse(a), adapter.buildRequest(turn, CTX, []));
  });

  Deno.test(`${name}: merges --extra-inputs after its own fields and the turn's extras last`, async () => {
    const adapter = await ready();
    if (adapter.writtenBodiesOnly) {
      // A written body is sent as it is: nothing is merged into it.
      const body = adapter.buildRequest(WRITTEN, { ...CTX, extraInputs: { temperature: 0.7 } }, []);
      assert.deepEqual(body, JSON.parse(WRITTEN.rawPayload!));
      assert.throws(() => adapter.buildRequest(TURN, CTX, []), TypeError, "a turn without a written body");
      return;
    }
    const settings = registered.exampleSettings?.extraInputs ?? {};
    const body = adapter.buildRequest(
      withMedia({ texts: ["x"], extra: { temperature: 0.1, top_k: 5 } }),
      { ...CTX, extraInputs: { ...settings, temperature: 0.7, ignore_eos: true } },
      [],
    );
    assert.ok(fieldOf(body, "temperature") === 0.1 || fieldOf(body, "temperature") === 0.7);
    if (body.temperature !== undefined) assert.equal(body.temperature, 0.1, "the turn's extras win");
    assert.equal(fieldOf(body, "ignore_eos"), true);
    assert.equal(body.top_k, 5);
  });

  Deno.test(`${name}: a body that ignores history is the same with and without it`, async () => {
    const adapter = await ready();
    const withHistory = adapter.buildRequest(turn, CTX, [{ turn: { texts: ["earlier"] }, reply: "answer" }]);
    const without = adapter.buildRequest(turn, CTX, []);
    assert.equal(JSON.stringify(withHistory) !== JSON.stringify(without), adapter.usesHistory);
  });

  Deno.test(`${name}: headers name a content type, and carry the API key only when given, in one header`, async () => {
    const adapter = await ready();
    const plain = adapter.headers({ streaming: true });
    assert.ok(plain.some(([k]) => k.toLowerCase() === "content-type"));
    const keyed = adapter.headers({ streaming: true, apiKey: "sk-sentinel" });
    assert.equal(plain.some(([, v]) => v.includes("sk-sentinel")), false);
    assert.equal(keyed.filter(([, v]) => v.includes("sk-sentinel")).length, 1);
  });

  Deno.test(`${name}: reads its sample stream: content, then usage, [DONE] and blanks ignored`, async () => {
    const adapter = await ready();
    const deltas = ssePayloads(adapter.sampleResponses.stream).map((p) => adapter.parseEvent(p));
    if (caps.producesTokens) {
      assert.ok(deltas.some(isContent), "a content event");
      if (usage) assert.ok(deltas.some((d) => d?.usage !== undefined), "a usage event");
    } else {
      assert.equal(deltas.some(isContent), false, "an API without tokens has no content events");
      assert.ok(deltas.some((d) => d !== undefined), "an answer event");
    }
    assert.equal(adapter.parseEvent(""), undefined);
    assert.equal(deltas.some((d) => d?.error !== undefined), false);
  });

  Deno.test(`${name}: reads its sample body and reports a body that is not an object`, async () => {
    const adapter = await ready();
    const d = adapter.parseBody(JSON.parse(adapter.sampleResponses.body));
    assert.equal(d.error, undefined);
    if (caps.producesTokens) assert.ok(isContent(d) && (d.usage !== undefined || !usage));
    assert.equal(adapter.parseBody([1, 2]).error?.type, "ParseError");
    assert.equal(adapter.parseBody("text").error?.type, "ParseError");
  });

  Deno.test(`${name}: rejects a malformed event with a SyntaxError naming it`, async () => {
    const adapter = await ready();
    assert.throws(
      () => adapter.parseEvent("{not json"),
      (e: Error) => e instanceof SyntaxError && e.message.includes("{not json"),
    );
  });

  Deno.test(`${name}: its sample stream warms the receive path (HTTP parser, SSE framer, collector)`, async () => {
    const adapter = await ready();
    assert.equal(warmUpHotPath(adapter, 2, 50), caps.producesTokens ? 100 : 0);
  });

  Deno.test(`${name}: the ISL text holds every text the body sends, and the system message where it is sent`, async () => {
    const adapter = await ready();
    const turn: Turn = registered.writtenBodiesOnly
      ? { texts: [], rawPayload: '{"messages": [{"role": "user", "content": "alpha beta"}]}' }
      : withMedia({ texts: ["alpha", "beta"] });
    const sent = JSON.stringify(
      adapter.buildRequest(turn, { ...CTX, extraInputs: registered.exampleSettings?.extraInputs ?? {} }, []),
    );
    const text = adapter.inputText(turn, {});
    // An API whose input is not text (audio, images) has no ISL text.
    if (!caps.tokenizesInput) return;
    assert.ok(text.includes("alpha"));
    if (sent.includes("beta")) assert.ok(text.includes("beta"));
    const system = { ...CTX, systemMessage: "sysmsg" };
    const withSystem = JSON.stringify(
      adapter.buildRequest(turn, { ...system, extraInputs: registered.exampleSettings?.extraInputs ?? {} }, []),
    );
    assert.equal(adapter.inputText(turn, system).includes("sysmsg"), withSystem.includes("sysmsg"));
  });
}

for (const adapter of ADAPTERS.filter((a) => a.capabilities.formData)) {
  Deno.test(`${adapter.name}: its multipart body reads back as the fields it built, files as their bytes`, async () => {
    const media = sampleMedia(adapter.capabilities.requiresMedia ?? "image");
    const body = adapter.buildRequest(
      { texts: ["a red fox"], media: [media] },
      { ...CTX, extraInputs: { seed: 7 } },
      [],
    );
    const contentType = adapter.headers({ streaming: false }).find(([k]) => k.toLowerCase() === "content-type")![1];
    assert.match(contentType, /^multipart\/form-data; boundary=/);
    const bytes = encodeRequestBody(adapter, body);
    const form = await new Response(bytes, { headers: { "content-type": contentType } }).formData();
    for (const [key, value] of Object.entries(body)) {
      const got = form.get(key);
      if (typeof value === "object" && value !== null) {
        const file = got as File;
        const sent = value as { b64_data: string; filename: string; content_type: string };
        assert.equal(file.name, sent.filename);
        assert.equal(file.type, sent.content_type);
        assert.deepEqual(new Uint8Array(await file.arrayBuffer()), Uint8Array.fromBase64(sent.b64_data));
      } else {
        assert.equal(got, String(value), key);
      }
    }
    assert.equal(form.get("seed"), "7");
  });
}
