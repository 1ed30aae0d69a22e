/**
 * Every endpoint type the client speaks has a simulator route that speaks it too: for each registered client
 * adapter, the route of the same name serves the adapter's path, and a request built by the adapter (its body and
 * headers) is answered over a real socket with a response the adapter parses into exactly the tokens the server
 * reports in its usage. Knows no API: a new adapter and its route are checked without editing this file.
 */
import assert from "node:assert/strict";
import type { Turn } from "../../src/dataset/conversation.ts";
import {
  type BuildContext,
  type Delta,
  encodeRequestBody,
  type EndpointAdapter,
  requestPath,
} from "../../src/endpoints/endpoint_adapter.ts";
import { sampleMedia } from "../../src/endpoints/sample_media.ts";
import { ENDPOINTS } from "../../src/endpoints/endpoint_registry.ts";
import { mergeUsage } from "../../src/engine/response_collector.ts";
import { type SimServer, startSimServer } from "../../src/sim/sim_server.ts";
import { routeForType, SIM_ROUTES } from "../../src/sim/sim_route_registry.ts";
import { oracleTokenizer } from "./oracle_tokenizer.ts";

const API_KEY = "conformance-key";
const MAX_TOKENS = 9;
const REASONING_TOKENS = 4;
const QUERY = "Name three rivers that cross more than one country.";
const PASSAGES = ["The Danube flows through ten countries.", "The Nile crosses eleven."];
/** Named texts too, so the rankings types have a query and passages. */
const TURN: Turn = { texts: [QUERY, ...PASSAGES], named: { query: [QUERY], passages: PASSAGES } };

function context(streaming: boolean): BuildContext {
  return {
    model: "sim-model",
    streaming,
    maxTokens: MAX_TOKENS,
    useLegacyMaxTokens: false,
    useServerTokenCount: true,
    extraInputs: {},
    systemMessage: "Answer briefly.",
  };
}

/** The `data:` payloads of an SSE body, whatever `event:` lines frame them. */
function ssePayloads(body: string): string[] {
  return body.split("\n\n").filter((e) => e.trim() !== "").map((e) =>
    e.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart()).join("\n")
  );
}

/**
 * An adapter with no path of its own speaks whatever API its URL points at: it is checked against the chat route,
 * with a body written as a dataset would (the chat adapter's).
 */
const CHAT = await ENDPOINTS.get("chat").load();

function target(adapter: EndpointAdapter, ctx: BuildContext): { path: string; body: Uint8Array<ArrayBuffer> } {
  if (adapter.capabilities.path !== "") {
    // An API that needs an input to work on (audio to transcribe, an image to edit) gets the smallest one.
    const needs = adapter.capabilities.requiresMedia;
    const turn: Turn = needs === undefined ? TURN : { ...TURN, media: [sampleMedia(needs)] };
    return {
      path: requestPath(adapter.capabilities, ctx.streaming),
      body: encodeRequestBody(adapter, adapter.buildRequest(turn, ctx, [])),
    };
  }
  const chat = CHAT;
  const written: Turn = { texts: [], rawPayload: JSON.stringify(chat.buildRequest(TURN, ctx, [])) };
  return { path: chat.capabilities.path, body: encodeRequestBody(adapter, adapter.buildRequest(written, ctx, [])) };
}

/** Sends one request exactly as the adapter builds it and parses the answer with the adapter. */
async function roundTrip(server: SimServer, adapter: EndpointAdapter, streaming: boolean): Promise<Delta[]> {
  const ctx = context(streaming);
  const { path, body } = target(adapter, ctx);
  const headers = adapter.headers({ streaming, apiKey: API_KEY }).map(([k, v]) => [k, v]);
  const res = await fetch(server.url + path, { method: adapter.capabilities.method, headers, body });
  let text = await res.text();
  assert.equal(res.status, 200, text);
  // A job is followed as the engine does: its status is polled until it ends, and that answer is the result.
  const job = adapter.job;
  if (job !== undefined) {
    const submitted = job.readJob(JSON.parse(text));
    assert.ok(submitted?.id !== undefined, `a job id in ${text}`);
    for (let polls = 0; job.readJob(JSON.parse(text))?.status === "pending"; polls++) {
      assert.ok(polls < 200, "the job completes");
      await new Promise((r) => setTimeout(r, 5));
      const poll: Response = await fetch(`${server.url}${path}/${submitted.id}`, { headers });
      text = await poll.text();
      assert.equal(poll.status, 200, text);
    }
    const content = await fetch(`${server.url}${path}/${submitted.id}/content`, { headers });
    assert.equal(content.status, 200);
    assert.ok((await content.arrayBuffer()).byteLength > 0, "the job's content");
  }
  if (!streaming) {
    try {
      return [adapter.parseBody(JSON.parse(text))];
    } catch {
      return [adapter.parseTextBody!(text)];
    }
  }
  assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
  return ssePayloads(text).map((data) => adapter.parseEvent(data)).filter((d): d is Delta => d !== undefined);
}

/** Endpoint types with a usual path; one without (template) speaks whatever API its template writes. */
const ADAPTERS = await Promise.all(ENDPOINTS.entries().map((e) => e.load()));
const ROUTED = ADAPTERS.filter((a) => a.capabilities.path !== "");

Deno.test("sim routes: every client endpoint type with a path has a route serving its paths", () => {
  assert.ok(ROUTED.length >= 2);
  for (const adapter of ROUTED) {
    const route = routeForType(SIM_ROUTES, adapter.name);
    assert.ok(route, `no simulator route for '${adapter.name}'`);
    for (const streaming of [false, true]) {
      const path = requestPath(adapter.capabilities, streaming);
      assert.ok(route.paths.includes(path), `route '${route.name}' serves ${route.paths.join(", ")}, not ${path}`);
    }
    assert.equal(adapter.capabilities.method, "POST");
  }
});

// An adapter that only sends written bodies (raw) round-trips through the chat route with a chat body.
for (const adapter of [...ROUTED, ...ADAPTERS.filter((a) => a.writtenBodiesOnly)]) {
  for (const streaming of adapter.capabilities.supportsStreaming ? [false, true] : [false]) {
    const mode = streaming ? "streamed" : "whole";
    Deno.test(`sim routes: ${adapter.name} ${mode} answers parse into exactly the tokens usage reports`, async () => {
      const server = await startSimServer({
        port: 0,
        seed: 11,
        ttftMs: 1,
        itlMs: 0.5,
        apiKey: API_KEY,
        reasoningTokens: REASONING_TOKENS,
        tokenizer: oracleTokenizer(),
      });
      try {
        const deltas = await roundTrip(server, adapter, streaming);
        const tok = oracleTokenizer();
        const errors = deltas.filter((d) => d.error !== undefined);
        assert.deepEqual(errors, []);
        assert.ok(deltas.length > 0, "an answer");
        const content = deltas.map((d) => d.content ?? "").join("");
        const reasoning = deltas.map((d) => d.reasoning ?? "").join("");
        // Usage as the client collects it: later reports win field by field (Anthropic splits it over two events).
        const usage = deltas.reduce<Delta["usage"]>(
          (u, d) => d.usage === undefined ? u : mergeUsage(u, d.usage),
          undefined,
        );
        if (!adapter.capabilities.producesTokens) {
          assert.equal(content + reasoning, "", "an API without tokens answers no text");
          if (usage?.promptTokens !== undefined) {
            assert.ok(usage.promptTokens >= tok.count(TURN.texts[0]), "the prompt is counted");
          }
          return;
        }
        if (adapter.capabilities.reportsUsage === false) {
          // An API without usage (Solido RAG): the answer is text the client counts itself.
          assert.ok(tok.count(content) > 0, "generated text");
          return;
        }
        assert.ok(usage, "a usage report");
        assert.equal(usage.completionTokens, MAX_TOKENS);
        const expectedReasoning = adapter.capabilities.supportsReasoning ? REASONING_TOKENS : 0;
        if (usage.reasoningTokens !== undefined) assert.equal(usage.reasoningTokens, expectedReasoning);
        assert.equal(tok.count(content), MAX_TOKENS - expectedReasoning);
        assert.equal(tok.count(reasoning), expectedReasoning);
        // TGI reports the prompt only in its stream's details.
        if (usage.promptTokens !== undefined) {
          assert.ok(usage.promptTokens >= tok.count(TURN.texts[0]), "the prompt is counted");
        }
        assert.ok(deltas.some((d) => d.finishReason !== undefined), "a finish reason");
      } finally {
        await server.close();
      }
    });
  }
}
