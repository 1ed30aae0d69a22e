/**
 * The simulator as a NIM stand-in: seed 004's curl examples answered in NIM's and vLLM's shapes, readiness held back
 * by `--load-delay`, `/v1/metrics` equal to `/metrics`, `/tokenize` and `/detokenize` with the server's tokenizer,
 * and deterministic embeddings of the configured length.
 */
import assert from "node:assert/strict";
import { json, makeApp, post } from "./sim_test_helpers.ts";
import { oracleTokenizer } from "./oracle_tokenizer.ts";
import { SIM_PROFILE_ID } from "../../src/sim/server_info_routes.ts";

Deno.test("NIM management routes answer in NIM's shapes", async () => {
  const { app } = makeApp({ models: ["meta/llama-3.1-8b-instruct"] });
  assert.deepEqual(await json(await app.request("/v1/health/live")), {
    object: "health.response",
    message: "Service is live.",
  });
  const ready = await app.request("/v1/health/ready");
  assert.equal(ready.status, 200);
  const version = await json(await app.request("/v1/version"));
  assert.equal(typeof version.release, "string");
  assert.equal(typeof version.api, "string");
  const metadata = await json(await app.request("/v1/metadata"));
  assert.equal(metadata.selectedModelProfileId, SIM_PROFILE_ID);
  assert.deepEqual(metadata.modelInfo, [{
    modelUrl: "sim://meta/llama-3.1-8b-instruct",
    shortName: "meta/llama-3.1-8b-instruct",
  }]);
  for (const key of ["version", "assetInfo", "licenseInfo", "repository_override"]) assert.ok(key in metadata, key);
  const manifest = await json(await app.request("/v1/manifest"));
  assert.equal((manifest.profiles as { id: string }[])[0].id, SIM_PROFILE_ID);
  const license = await json(await app.request("/v1/license"));
  for (const key of ["name", "path", "sha", "size", "url", "type", "content"]) assert.ok(key in license, key);
  assert.equal(license.size, (license.content as string).length);
  const vllm = await json(await app.request("/version"));
  assert.equal(vllm.version, version.release);
});

Deno.test("readiness waits for --load-delay; liveness does not", async () => {
  const { app } = makeApp({ loadDelaySeconds: 3600 });
  assert.equal((await app.request("/v1/health/live")).status, 200);
  const ready = await app.request("/v1/health/ready");
  assert.equal(ready.status, 503);
  assert.equal((await json(ready)).message, "Service is not ready.");
  assert.equal((await app.request("/health")).status, 503);
});

Deno.test("/v1/metrics is the /metrics exposition, and both stay open behind an API key", async () => {
  const { app } = makeApp({ apiKey: "k" });
  await post(app, "/v1/chat/completions", { model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 3 }, {
    authorization: "Bearer k",
  });
  const a = await (await app.request("/metrics")).text();
  const b = await (await app.request("/v1/metrics")).text();
  assert.equal(a, b);
  assert.match(a, /# TYPE/);
  assert.equal((await app.request("/v1/version")).status, 401);
  assert.equal((await app.request("/v1/version", { headers: { authorization: "Bearer k" } })).status, 200);
});

Deno.test("/tokenize counts with the server's tokenizer and /detokenize reverses it", async () => {
  const { app } = makeApp();
  const text = "Explain transformers briefly.";
  const tok = await json(await post(app, "/tokenize", { model: "m", prompt: text }));
  const ids = oracleTokenizer().encode(text);
  assert.deepEqual(tok.tokens, ids);
  assert.equal(tok.count, ids.length);
  const chat = await json(await post(app, "/tokenize", { messages: [{ role: "user", content: text }] }));
  assert.equal(chat.count, ids.length);
  assert.deepEqual(await json(await post(app, "/detokenize", { tokens: ids })), { prompt: text });
  assert.equal((await post(app, "/detokenize", { tokens: ["x"] })).status, 400);
  assert.equal((await post(app, "/tokenize", {})).status, 400);
});

Deno.test("/v1/embeddings: one unit vector of the configured length per input, the same for the same text", async () => {
  const { app } = makeApp({ embeddingDimensions: 16 });
  const res = await json(await post(app, "/v1/embeddings", { model: "e", input: ["alpha", "beta", "alpha"] }));
  const data = res.data as { object: string; index: number; embedding: number[] }[];
  assert.equal(data.length, 3);
  for (const [i, d] of data.entries()) {
    assert.equal(d.object, "embedding");
    assert.equal(d.index, i);
    assert.equal(d.embedding.length, 16);
    assert.ok(Math.abs(Math.hypot(...d.embedding) - 1) < 1e-4);
  }
  assert.deepEqual(data[0].embedding, data[2].embedding);
  assert.notDeepEqual(data[0].embedding, data[1].embedding);
  const usage = res.usage as { prompt_tokens: number };
  const tok = oracleTokenizer();
  assert.equal(usage.prompt_tokens, tok.count("alpha") * 2 + tok.count("beta"));
  const fewer = await json(await post(app, "/v1/embeddings", { input: "alpha", dimensions: 4 }));
  assert.equal((fewer.data as { embedding: number[] }[])[0].embedding.length, 4);
  assert.equal((await post(app, "/v1/embeddings", { input: 5 })).status, 400);
});

Deno.test("rerank routes rank every passage, best first, in each API's shape", async () => {
  const { app } = makeApp();
  const nim = await json(
    await post(app, "/v1/ranking", { model: "r", query: { text: "q" }, passages: [{ text: "a" }, { text: "b" }] }),
  );
  const rankings = nim.rankings as { index: number; logit: number }[];
  assert.deepEqual(rankings.map((r) => r.index).sort(), [0, 1]);
  assert.ok(rankings[0].logit >= rankings[1].logit);
  const tei = await (await post(app, "/rerank", { query: "q", texts: ["a", "b"] })).json() as {
    index: number;
    score: number;
  }[];
  assert.equal(tei.length, 2);
  assert.deepEqual(tei.map((r) => r.index), rankings.map((r) => r.index), "the same pair gets the same rank");
  const cohere = await json(await post(app, "/v2/rerank", { model: "r", query: "q", documents: ["a", "b"], top_n: 1 }));
  assert.equal((cohere.results as unknown[]).length, 1);
  assert.equal((await post(app, "/v1/ranking", { query: "q", passages: [] })).status, 400);
});
