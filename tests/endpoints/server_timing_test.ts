import assert from "node:assert/strict";
import {
  mergeServerTiming,
  readBodyServerTiming,
  readHeaderServerTiming,
  readLlamaCppTimings,
  readSglangMetaInfo,
} from "../../src/endpoints/server_timing.ts";
import { CHAT_ADAPTER } from "../../src/endpoints/openai/chat.ts";
import { COMPLETIONS_ADAPTER } from "../../src/endpoints/openai/completions.ts";

// The last chunk of a llama-server stream (fields as llama.cpp's server writes them).
const LLAMA_LAST = '{"choices":[{"finish_reason":"length","index":0,"delta":{}}],"created":1,"id":"c","model":"m",' +
  '"object":"chat.completion.chunk","usage":{"completion_tokens":4,"prompt_tokens":9,"total_tokens":13},' +
  '"timings":{"cache_n":3,"prompt_n":6,"prompt_ms":12.5,"prompt_per_token_ms":2.08,"prompt_per_second":480,' +
  '"predicted_n":4,"predicted_ms":30.25,"predicted_per_token_ms":7.56,"predicted_per_second":132.2}}';

Deno.test("server timing: llama.cpp's timings give prefill, decode and the token counts", () => {
  assert.deepEqual(readLlamaCppTimings(JSON.parse(LLAMA_LAST).timings), {
    source: "llama.cpp",
    prefillMs: 12.5,
    decodeMs: 30.25,
    promptTokens: 6,
    decodeTokens: 4,
    cachedTokens: 3,
  });
  assert.equal(readLlamaCppTimings({ prompt_n: 3 }), undefined, "no times: no timing");
  assert.equal(readLlamaCppTimings("x"), undefined);
});

Deno.test("server timing: the chat and completions adapters carry it on the delta, and only when present", () => {
  const delta = CHAT_ADAPTER.parseEvent(LLAMA_LAST);
  assert.equal(delta?.serverTiming?.source, "llama.cpp");
  assert.equal(delta?.serverTiming?.decodeMs, 30.25);
  const plain = CHAT_ADAPTER.parseEvent('{"choices":[{"index":0,"delta":{"content":"hi"}}]}');
  assert.equal(plain?.serverTiming, undefined);
  const body = COMPLETIONS_ADAPTER.parseBody({
    choices: [{ text: "hi", finish_reason: "stop" }],
    timings: { prompt_n: 2, prompt_ms: 1, predicted_n: 1, predicted_ms: 0 },
  });
  assert.equal(body.serverTiming?.prefillMs, 1);
});

Deno.test("server timing: SGLang's meta_info in seconds becomes ms", () => {
  assert.deepEqual(readSglangMetaInfo({ e2e_latency: 0.25, queue_time: 0.005, prompt_tokens: 8, cached_tokens: 4 }), {
    source: "sglang",
    queueMs: 5,
    totalMs: 250,
    promptTokens: 8,
    decodeTokens: undefined,
    cachedTokens: 4,
  });
  assert.equal(readBodyServerTiming({ meta_info: { prompt_tokens: 3 } }), undefined);
  assert.equal(readBodyServerTiming({ meta_info: { e2e_latency: 1 } })?.totalMs, 1000);
});

Deno.test("server timing: TGI's headers (whole ms, x-compute-time in s) and OpenAI's processing time", () => {
  const tgi = readHeaderServerTiming(
    new Map([["x-queue-time", "3"], ["x-inference-time", "120"], ["x-total-time", "125"], ["x-validation-time", "1"]]),
  );
  assert.deepEqual(tgi, { source: "tgi", queueMs: 3, inferenceMs: 120, totalMs: 125 });
  assert.equal(readHeaderServerTiming(new Map([["x-compute-time", "0.5"]]))?.totalMs, 500);
  assert.deepEqual(readHeaderServerTiming(new Map([["openai-processing-ms", "87"]])), {
    source: "openai",
    totalMs: 87,
  });
  assert.equal(readHeaderServerTiming(new Map([["openai-processing-ms", "soon"]])), undefined);
  assert.equal(readHeaderServerTiming(new Map([["content-type", "text/event-stream"]])), undefined);
  assert.equal(readHeaderServerTiming(undefined), undefined);
});

Deno.test("server timing: a body timing completed by the headers keeps the body's source and fields", () => {
  const merged = mergeServerTiming(
    { source: "llama.cpp", prefillMs: 5, decodeMs: 6 },
    { source: "openai", totalMs: 20 },
  );
  assert.deepEqual(merged, { source: "llama.cpp", prefillMs: 5, decodeMs: 6, totalMs: 20 });
  assert.equal(mergeServerTiming(undefined, undefined), undefined);
});
