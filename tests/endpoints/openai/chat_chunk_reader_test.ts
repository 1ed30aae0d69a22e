import assert from "node:assert/strict";
import { CHAT_ADAPTER } from "../../../src/endpoints/openai/chat.ts";
import { ChatChunkReader } from "../../../src/endpoints/openai/chat_chunk_reader.ts";
import type { Delta } from "../../../src/endpoints/endpoint_adapter.ts";

/** What reading `data` gives: the Delta, or the error's message. */
function outcome(read: (data: string) => Delta | undefined, data: string): Delta | undefined | string {
  try {
    return read(data);
  } catch (err) {
    return `throws: ${(err as Error).message}`;
  }
}

/** A deterministic generator (mulberry32). */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PREFIXES = [
  '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":',
  '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":2,"model":"m","choices":[{"index":0,"delta":',
  '{"id":"x","model":"delta","choices":[{"index":0,"delta":',
  '{"id":"x","model":"a\\\\b","choices":[{"index":0,"delta":',
  '{"id":"x","choices":[{"index":0,"d\\u0065lta":{"content":"shadow"},"delta":',
  '{"id":"x","choices":[{"index":0,"delta" :{"content":"first"},"delta":',
  '{"id":"x","choices":[{"index":0,"delta":',
  '{"id":"x","choices":[{"index":1},{"index":0,"delta":',
  '{"id":"x","metrics":{"speculative_decoding":{"n":1}},"choices":[{"index":0,"delta":',
  '{"id":"x","choices":[{"index":0,"delta": ',
  '{"error":{"message":"bad"},"choices":[{"index":0,"delta":',
  '{"id":"é😀","choices":[{"index":0,"delta":',
  '{"id":"x","content":"top","choices":[{"index":0,"delta":',
  '{"id":"x","choices":[{"index":0,"message":{"content":"m"},"delta":',
];
const SUFFIXES = [
  ',"logprobs":null,"finish_reason":null}]}',
  ',"logprobs":null,"finish_reason":"length"}]}',
  ',"finish_reason":null}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}',
  ',"finish_reason":null,"delta":{"content":"late"}}]}',
  ',"finish_reason":null,"d\\u0065lta":{"content":"late"}}]}',
  ',"finish_reason":null}]',
  ',"finish_reason":null}]} ',
  "}]}",
  ',"x":"}"}]}',
];
const TEXTS = [" tok", "", "a}b", 'say \\"hi\\"', "line\\nbreak", "tab\there", "é😀中", "\\u00e9", '"', "\\", " "];
const DELTAS = [
  (t: string) => `{"content":"${t}"}`,
  (t: string) => `{"role":"assistant","content":"${t}"}`,
  (t: string) => `{"content":"${t}","reasoning_content":"r"}`,
  (t: string) => `{"reasoning_content":"${t}"}`,
  (t: string) => `{"content": "${t}"}`,
  (t: string) => `{"content":"${t}","tool_calls":[{"function":{"name":"f","arguments":"{}"}}]}`,
  () => `{"content":null}`,
  () => `{}`,
  (t: string) => `{"content":"${t}"`,
  (t: string) => `{"role":null,"content":"${t}","reasoning_content":null,"tool_calls":null}`,
  (t: string) => `{"content":"${t}","reasoning_content":"think"}`,
  (t: string) => `{"content":"${t}","x":{"content":"inner"}}`,
  (t: string) => `{"x":"content","content":"${t}"}`,
  (t: string) => `{"content":"${t}","c\\u006fntent":"shadow"}`,
];

Deno.test("the chat chunk reader gives what parseEvent gives, on streams of every chunk shape, errors included", () => {
  const rand = seeded(34);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  for (let stream = 0; stream < 1000; stream++) {
    const reader = new ChatChunkReader(CHAT_ADAPTER.parseEvent);
    // A stream mostly keeps its prefix and suffix, as servers do, and sometimes changes them.
    let prefix = pick(PREFIXES);
    let suffix = pick(SUFFIXES);
    // A stream mostly keeps its delta's shape too: OpenAI's, or SGLang's with its null fields.
    const delta = rand() < 0.5 ? 0 : 9;
    for (let event = 0; event < 30; event++) {
      if (rand() < 0.1) prefix = pick(PREFIXES);
      if (rand() < 0.15) suffix = pick(SUFFIXES);
      const r = rand();
      const data = r < 0.02 ? "[DONE]" : r < 0.04 ? "" : prefix + (rand() < 0.6 ? DELTAS[delta] : pick(DELTAS))(
        rand() < 0.7 ? pick(TEXTS.slice(0, 2)) : pick(TEXTS),
      ) + suffix;
      assert.deepEqual(outcome(reader.read, data), outcome(CHAT_ADAPTER.parseEvent, data), data);
    }
  }
});

Deno.test("the chat chunk reader parses in full only until a token chunk has shown the stream's shape", () => {
  let parsed = 0;
  const reader = new ChatChunkReader((data) => {
    parsed++;
    return CHAT_ADAPTER.parseEvent(data);
  });
  const chunk = (delta: string, finish: string) =>
    `{"id":"chatcmpl-9","object":"chat.completion.chunk","created":7,"model":"m","choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish}}]}`;
  const contents: (string | undefined)[] = [];
  contents.push(reader.read(chunk('{"role":"assistant","content":""}', "null"))?.content);
  for (let i = 0; i < 100; i++) contents.push(reader.read(chunk(`{"content":" t${i}"}`, "null"))?.content);
  const last = reader.read(chunk('{"content":" end"}', '"length"'));
  // The role chunk and the first token chunk are parsed in full; the other 99 token chunks are read from the template.
  assert.equal(parsed, 3);
  assert.deepEqual(contents, [undefined, ...Array.from({ length: 100 }, (_, i) => ` t${i}`)]);
  assert.equal(last?.finishReason, "length");
  assert.equal(last?.content, " end");
});

Deno.test("the chat adapter reads a stream's events through a chunk reader of its own per response", () => {
  const a = CHAT_ADAPTER.eventReader!();
  const b = CHAT_ADAPTER.eventReader!();
  assert.notEqual(a, b);
  const data = '{"id":"1","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}';
  assert.deepEqual(a(data), CHAT_ADAPTER.parseEvent(data));
});
