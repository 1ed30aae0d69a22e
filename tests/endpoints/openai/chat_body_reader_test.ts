import assert from "node:assert/strict";
import { CHAT_ADAPTER } from "../../../src/endpoints/openai/chat.ts";
import { ChatChunkReader } from "../../../src/endpoints/openai/chat_chunk_reader.ts";
import { asObject, readUsage } from "../../../src/endpoints/openai/openai_fields.ts";
import type { Delta } from "../../../src/endpoints/endpoint_adapter.ts";
import { ResponseCollector } from "../../../src/engine/response_collector.ts";

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

/** What the collector makes of a body: every field a record takes from it. */
function collected(collector: ResponseCollector, body: string): unknown {
  try {
    collector.addBody(new TextEncoder().encode(body), 5);
  } catch (err) {
    return `throws: ${(err as Error).message}`;
  }
  return {
    content: collector.content,
    reasoning: collector.reasoning,
    responseTimes: collector.responseTimes,
    firstOutputAt: collector.firstOutputAt,
    lastResponseAt: collector.lastResponseAt,
    usage: collector.usage,
    serverTiming: collector.serverTiming,
    finishReason: collector.finishReason,
    apiError: collector.apiError,
    parseError: collector.parseError,
    specDecode: collector.specDecode,
    video: collector.video,
    raw: collector.raw,
  };
}

const IDS = ['"chatcmpl-1"', '"chatcmpl-2"', '"x"', '""', '"a\\"b"', '"é😀"', "7", "null", '"tab\there"'];
const CREATED = ["1", "1795915599", "0", "12.5", "-3", "1e3", "01", "12345678901234567", "999999999999999", '"7"'];
const CONTENTS = [
  '" tok"',
  '" word"',
  '""',
  '"a}b"',
  '"say \\"hi\\""',
  '"line\\nbreak"',
  '"raw\tcontrol"',
  '"é😀中"',
  '"\\u00e9"',
  "null",
  "5",
  '"\u0001"',
];
const FINISHES = ['"length"', '"stop"', "null", '""', '"tool_calls"', "5", "true", '"a\\"b"', "nul"];
const COUNTS = [
  "1",
  "32",
  "0",
  "33",
  "1000000",
  "01",
  "1.5",
  "-1",
  "1e3",
  "null",
  '"7"',
  "90071992547409935",
  "999999999999999",
  "9007199254740993",
];

Deno.test("the chat body reader gives what the full parse gives on generated bodies, one reader for all of them", () => {
  const rand = seeded(4242);
  const pick = <T>(xs: readonly T[], common = 2): T =>
    xs[Math.floor(rand() < 0.95 ? rand() * Math.min(common, xs.length) : rand() * xs.length)];
  const count = () => pick(COUNTS, 3);
  const usageVariants: (() => string)[] = [
    () => `{"prompt_tokens":${count()},"total_tokens":${count()},"completion_tokens":${count()}}`,
    () => `{"prompt_tokens":${count()},"completion_tokens":${count()},"total_tokens":${count()}}`,
    () =>
      `{"prompt_tokens":${count()},"completion_tokens":${count()},"total_tokens":${count()},` +
      `"prompt_tokens_details":{"cached_tokens":${count()}}}`,
    () =>
      `{"prompt_tokens":${count()},"completion_tokens":${count()},"total_tokens":${count()},` +
      `"completion_tokens_details":{"reasoning_tokens":${count()}}}`,
    () =>
      `{"prompt_tokens":${count()},"total_tokens":${count()},"completion_tokens":${count()},` +
      `"prompt_tokens_details":null}`,
    () => `{"input_tokens":${count()},"output_tokens":${count()},"cache_read_input_tokens":${count()}}`,
    () => `{"prompt_tokens":${count()},"prompt_tokens":${count()},"total_tokens":${count()}}`,
    () => `{"meta":{"tokens":{"input_tokens":${count()}}},"total_tokens":${count()}}`,
    () => `{"foo":${count()}}`,
    () => `{}`,
    () => "null",
    () => `[${count()}]`,
    () => `{"prompt_tokens":${count()} ,"completion_tokens" : ${count()}}`,
  ];
  const extras = [
    "",
    "",
    ',"system_fingerprint":"fp","prompt_logprobs":null,"kv_transfer_params":null',
    ',"timings":{"prompt_n":3,"predicted_n":1,"prompt_ms":1.5,"predicted_ms":2}',
    ',"meta_info":{"id":"x","e2e_latency":0.5}',
    ',"metrics":{"speculative_decoding":{"num_drafts":1,"num_draft_tokens":2,"num_accepted_tokens":1}}',
    ',"error":{"message":"bad","type":"x"}',
    ',"object":"error","message":"m"',
    ',"id":"again"',
    ',"usage":null',
    ',"content":"top"',
    ',"choices":[{"index":0,"message":{"content":"late"},"finish_reason":"stop"}]',
  ];
  const messages: ((content: string) => string)[] = [
    (c) => `{"role":"assistant","content":${c}}`,
    (c) => `{"role":"assistant","content":${c},"refusal":null,"annotations":null,"audio":null,"tool_calls":[]}`,
    (c) => `{"role":"assistant","content":${c},"reasoning_content":"think"}`,
    (c) => `{"role":"assistant","reasoning_content":${c},"content":" answer"}`,
    (c) => `{"role":"assistant","content":null,"reasoning":${c}}`,
    (c) =>
      `{"role":"assistant","content":${c},"tool_calls":[{"id":"c1","type":"function",` +
      `"function":{"name":"f","arguments":"{\\"a\\":1}"}}]}`,
    () => `{"role":"assistant","content":null,"tool_calls":[{"function":{"name":"f","arguments":"{}"}}]}`,
    () => `{"function_call":{"name":"f","arguments":"x"}}`,
    (c) => `{"content":${c},"content":" shadow"}`,
    (c) => `{"content" : ${c} }`,
    (c) => `{"content":${c},"x":{"content":"inner"}}`,
    (c) => `{"c\\u006fntent":${c}}`,
    () => `{}`,
    () => `"text"`,
    () => `null`,
  ];
  const choiceOf = (message: string, finish: string, shape: number): string => {
    switch (shape) {
      case 0:
        return `[{"index":0,"message":${message},"logprobs":null,"finish_reason":${finish},"stop_reason":null}]`;
      case 1:
        return `[{"index":0,"message":${message},"finish_reason":${finish}}]`;
      case 2:
        return `[{"index":0,"finish_reason":${finish},"message":${message}}]`;
      case 3:
        return `[{"index":0,"message":${message},"finish_reason":${finish}},{"index":1,"message":{"content":"o"}}]`;
      case 4:
        return `{"0":{"index":0,"message":${message},"finish_reason":${finish}}}`;
      case 5:
        return `[{"index":0,"delta":${message},"finish_reason":${finish}}]`;
      case 6:
        return `[{"index":0,"delta":{"content":"d"},"message":${message},"finish_reason":${finish}}]`;
      case 7:
        return "[]";
      default:
        return `[ {"index":0, "message":${message}, "finish_reason":${finish}} ]`;
    }
  };
  // The adapter's reader, whose full parses are counted.
  let fullParses = 0;
  const readBody = new ChatChunkReader(
    (text) => {
      fullParses++;
      return asObject(JSON.parse(text));
    },
    CHAT_ADAPTER.parseBody,
    readUsage,
    "message",
  ).read;
  let bodies = 0;
  for (let server = 0; server < 40; server++) {
    // A server keeps its shape for a while; answers differ in id, created, text, finish reason and counts.
    const local = seeded(server);
    const shape = local() < 0.4 ? 0 : Math.floor(local() * 9);
    const messageShape = local() < 0.6 ? 0 : Math.floor(local() * messages.length);
    const extra = local() < 0.7 ? "" : extras[Math.floor(local() * extras.length)];
    const usageShape = local() < 0.6 ? 0 : Math.floor(local() * usageVariants.length);
    const model = local() < 0.8 ? '"m"' : '"a\\b"';
    const keepRaw = local() < 0.2;
    for (let answer = 0; answer < 100; answer++) {
      const odd = () => rand() < 0.05;
      const message = (odd() ? pick(messages, messages.length) : messages[messageShape])(pick(CONTENTS));
      const usage = (odd() ? pick(usageVariants, usageVariants.length) : usageVariants[usageShape])();
      let body = `{"id":${pick(IDS)},"object":"chat.completion","created":${pick(CREATED)},"model":${model},` +
        `"choices":${choiceOf(message, pick(FINISHES), odd() ? Math.floor(rand() * 9) : shape)},"usage":${usage}` +
        `${odd() ? pick(extras, extras.length) : extra}}`;
      const r = rand();
      if (r < 0.03) body = body.slice(0, -1); // malformed
      else if (r < 0.05) body = " " + body;
      else if (r < 0.07) body += "\n";
      else if (r < 0.08) body = pick(["[]", "5", "null", '"text"', "", "{}", "not json"], 7);
      bodies++;
      const fast = new ResponseCollector(CHAT_ADAPTER, keepRaw, undefined, readBody);
      const full = new ResponseCollector(CHAT_ADAPTER, keepRaw);
      const got = collected(fast, body);
      assert.deepEqual(got, collected(full, body), body);
      // The reader alone: what parseBody gives for a body that is a JSON object, nothing it could read wrong.
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        assert.throws(() => readBody(body));
        continue;
      }
      const read = readBody(body);
      if (asObject(parsed) === undefined) assert.equal(read, undefined, body);
      else assert.deepEqual(read, CHAT_ADAPTER.parseBody(parsed), body);
    }
  }
  assert.equal(bodies, 4000);
  // Both readings were compared: over 1,500 of the 8,000 reads came from templates, the rest from full parses.
  assert.ok(fullParses > 1000 && fullParses < 6500, String(fullParses));
});

Deno.test("the chat body reader reads serve-sim's answers without a full parse once it has seen one", () => {
  let parsed = 0;
  const read = new ChatChunkReader(
    (text) => {
      parsed++;
      return asObject(JSON.parse(text));
    },
    CHAT_ADAPTER.parseBody,
    readUsage,
    "message",
  ).read;
  const rand = seeded(7);
  const usages = new Set<object>();
  for (let answer = 0; answer < 500; answer++) {
    const prompt = 20 + Math.floor(rand() * 30);
    const body = `{"id":"chatcmpl-${Math.floor(rand() * 2 ** 52).toString(16)}","object":"chat.completion",` +
      `"created":${1795915599 + (answer >> 4)},"model":"sim-model","choices":[{"index":0,"message":` +
      `{"role":"assistant","content":" w${answer % 13}"},"logprobs":null,"finish_reason":"length"}],` +
      `"usage":{"prompt_tokens":${prompt},"total_tokens":${prompt + 1},"completion_tokens":1}}`;
    const delta = read(body);
    assert.deepEqual(delta, CHAT_ADAPTER.parseBody(JSON.parse(body)), body);
    assert.equal(delta?.content, ` w${answer % 13}`);
    // Records do not share their usage object.
    assert.ok(!usages.has(delta!.usage!));
    usages.add(delta!.usage!);
  }
  assert.equal(parsed, 1);
});

Deno.test("the chat body reader reads in full what a template would get wrong: a timing, an error, statistics", () => {
  const body = (id: string, extra: string) =>
    `{"id":"${id}","choices":[{"index":0,"message":{"content":"x${id}"},"finish_reason":"stop"}]${extra}}`;
  for (
    const extra of [
      ',"timings":{"prompt_n":3,"predicted_n":1,"prompt_ms":1.5,"predicted_ms":2}',
      ',"meta_info":{"id":"x","e2e_latency":0.5,"prompt_tokens":3,"completion_tokens":1}',
      ',"error":{"message":"bad","type":"x"}',
      ',"metrics":{"speculative_decoding":{"num_drafts":1,"num_draft_tokens":2,"num_accepted_tokens":1}}',
    ]
  ) {
    const read = CHAT_ADAPTER.bodyReader!();
    const bodies = ["1", "2", "3"].map((id) => body(id, extra));
    const reads = bodies.map((text) => read(text));
    assert.deepEqual(reads, bodies.map((text) => CHAT_ADAPTER.parseBody(JSON.parse(text))), extra);
    for (const key of ["error", "serverTiming", "specDecode"] as const) {
      if (reads[2]?.[key] !== undefined) assert.notEqual(reads[2]?.[key], reads[1]?.[key], `${extra} ${key}`);
    }
  }
});

Deno.test("the chat adapter makes a new body reader on each call", () => {
  const a = CHAT_ADAPTER.bodyReader!();
  const b = CHAT_ADAPTER.bodyReader!();
  assert.notEqual(a, b);
  const body = '{"id":"1","choices":[{"index":0,"message":{"content":"x"},"finish_reason":"stop"}]}';
  assert.deepEqual(a(body), CHAT_ADAPTER.parseBody(JSON.parse(body)) as Delta);
});
