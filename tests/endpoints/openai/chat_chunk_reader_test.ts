import assert from "node:assert/strict";
import { CHAT_ADAPTER } from "../../../src/endpoints/openai/chat.ts";
import { ChatChunkReader } from "../../../src/endpoints/openai/chat_chunk_reader.ts";
import { type JsonObject, parseSseJson, readUsage } from "../../../src/endpoints/openai/openai_fields.ts";
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

/** A reader as the chat adapter makes one, whose full parses `onParse` sees. */
function reader(onParse: (data: string) => void = () => {}): ChatChunkReader {
  return new ChatChunkReader(
    (data) => {
      onParse(data);
      return parseSseJson(data);
    },
    (obj: JsonObject) => CHAT_ADAPTER.parseEvent(JSON.stringify(obj))!,
    readUsage,
  );
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
    const chunks = reader();
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
      assert.deepEqual(outcome(chunks.read, data), outcome(CHAT_ADAPTER.parseEvent, data), data);
    }
  }
});

Deno.test("the chat chunk reader parses in full only until each chunk shape has been seen, across answers", () => {
  let parsed = 0;
  const chunks = reader((data) => data.startsWith("{") && parsed++);
  const head = (i: number) =>
    `{"id":"chatcmpl-${(i * 7919).toString(16)}","object":"chat.completion.chunk","created":${1795915599 + i},` +
    `"model":"m","choices":[`;
  const contents: (string | undefined)[] = [];
  let usage = 0;
  for (let answer = 0; answer < 50; answer++) {
    const chunk = (delta: string, finish: string) =>
      `${head(answer)}{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish}}]}`;
    contents.push(chunks.read(chunk('{"role":"assistant","content":""}', "null"))?.content);
    for (let i = 0; i < 3; i++) contents.push(chunks.read(chunk(`{"content":" t${i}"}`, "null"))?.content);
    const last = chunks.read(chunk('{"content":" end"}', '"length"'));
    assert.equal(last?.finishReason, "length");
    assert.equal(last?.content, " end");
    const total = chunks.read(
      `${head(answer)}],"usage":{"prompt_tokens":${answer},"completion_tokens":4,"total_tokens":${answer + 4}}}`,
    )?.usage;
    usage += total?.totalTokens ?? 0;
    assert.equal(chunks.read("[DONE]"), undefined);
  }
  // The first answer's role, token and usage chunks are parsed in full; every other chunk is read from them.
  assert.equal(parsed, 3);
  assert.deepEqual(contents, Array.from({ length: 50 }, () => [undefined, " t0", " t1", " t2"]).flat());
  assert.equal(usage, Array.from({ length: 50 }, (_, i) => i + 4).reduce((a, b) => a + b));
});

Deno.test("the chat adapter makes a new chunk reader on each call", () => {
  const a = CHAT_ADAPTER.eventReader!();
  const b = CHAT_ADAPTER.eventReader!();
  assert.notEqual(a, b);
  const data = '{"id":"1","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}';
  assert.deepEqual(a(data), CHAT_ADAPTER.parseEvent(data));
});

/** One of `xs`, or a value the fast reading must refuse. */
const IDS = ['"chatcmpl-1"', '"chatcmpl-2"', '"x"', '""', '"a\\"b"', '"é😀"', "7", "null", '"tab\there"'];
const CREATED = ["1", "0", "1795915599", "12.5", "-3", "1e3", "01", "12345678901234567", "999999999999999", '"7"'];
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
const FINISHES = ["null", '"length"', '"stop"', '""', '"tool_calls"', "5", "true", '"a\\"b"', "nul"];
const COUNTS = [
  "0",
  "1",
  "32",
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

Deno.test("the chat chunk reader gives what parseEvent gives on generated answers, one reader for all of them", () => {
  const rand = seeded(2026);
  const pick = <T>(xs: readonly T[], common = 2): T =>
    xs[Math.floor(rand() < 0.8 ? rand() * Math.min(common, xs.length) : rand() * xs.length)];
  const count = () => pick(COUNTS, 4);
  const usageVariants: (() => string)[] = [
    () => `{"prompt_tokens":${count()},"completion_tokens":${count()},"total_tokens":${count()}}`,
    () => `{"prompt_tokens":${count()},"total_tokens":${count()},"completion_tokens":${count()}}`,
    () =>
      `{"prompt_tokens":${count()},"completion_tokens":${count()},"total_tokens":${count()},` +
      `"prompt_tokens_details":{"cached_tokens":${count()}}}`,
    () =>
      `{"prompt_tokens":${count()},"completion_tokens":${count()},"total_tokens":${count()},` +
      `"completion_tokens_details":{"reasoning_tokens":${count()}}}`,
    () => `{"input_tokens":${count()},"output_tokens":${count()},"cache_read_input_tokens":${count()}}`,
    () => `{"input_tokens":${count()},"cache_creation_input_tokens":${count()},"output_tokens":${count()}}`,
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
    "",
    ',"system_fingerprint":"fp"',
    ',"timings":{"prompt_n":3,"predicted_n":1,"prompt_ms":1.5,"predicted_ms":2}',
    ',"meta_info":{"id":"x","e2e_latency":0.5}',
    ',"metrics":{"speculative_decoding":{"num_drafts":1}}',
    ',"error":{"message":"bad","type":"x"}',
    ',"object":"error","message":"m"',
    ',"id":"again"',
    ',"usage":null',
    ',"content":"top"',
    ',"choices":[{"index":0,"delta":{"content":"late"},"finish_reason":null}]',
  ];
  const deltas: ((content: string) => string)[] = [
    (c) => `{"content":${c}}`,
    (c) => `{"role":"assistant","content":${c}}`,
    (c) => `{"role":null,"content":${c},"reasoning_content":null,"tool_calls":null}`,
    (c) => `{"content":${c},"reasoning_content":"think"}`,
    (c) => `{"reasoning_content":${c}}`,
    (c) => `{"reasoning":${c}}`,
    (c) => `{"content":${c},"tool_calls":[{"index":0,"function":{"name":"f","arguments":"{}"}}]}`,
    () => `{"tool_calls":[{"index":0,"function":{"arguments":"x"}}]}`,
    () => `{"function_call":{"name":"f"}}`,
    (c) => `{"content":${c},"content":" shadow"}`,
    (c) => `{"content" : ${c} }`,
    (c) => `{"content":${c},"x":{"content":"inner"}}`,
    () => `{}`,
    () => `"text"`,
    () => `null`,
  ];
  const choiceOf = (delta: string, finish: string, shape: number): string => {
    switch (shape) {
      case 0:
        return `[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish}}]`;
      case 1:
        return `[{"index":0,"delta":${delta},"finish_reason":${finish}}]`;
      case 2:
        return `[{"index":0,"finish_reason":${finish},"delta":${delta}}]`;
      case 3:
        return `[{"index":1,"delta":{"content":"other"}},{"index":0,"delta":${delta},"finish_reason":${finish}}]`;
      case 4:
        return `{"0":{"index":0,"delta":${delta},"finish_reason":${finish}}}`;
      case 5:
        return `[{"index":0,"message":${delta},"finish_reason":${finish}}]`;
      default:
        return `[ {"index":0, "delta":${delta}, "finish_reason":${finish}} ]`;
    }
  };
  const chunks = reader();
  const usages = new Set<object>();
  let reads = 0;
  for (let answer = 0; answer < 3000; answer++) {
    // A server keeps its shape for a while; answers differ in id, created, text, finish reason and counts.
    const server = Math.floor(answer / 25);
    const local = seeded(server);
    const shape = local() < 0.4 ? 0 : Math.floor(local() * 7);
    const deltaShape = local() < 0.4 ? 0 : Math.floor(local() * deltas.length);
    const extra = local() < 0.5 ? "" : extras[Math.floor(local() * extras.length)];
    const usageShape = local() < 0.4 ? 0 : Math.floor(local() * usageVariants.length);
    const model = local() < 0.8 ? '"m"' : '"a\\b"';
    const odd = () => rand() < 0.1;
    const head = () =>
      `{"id":${pick(IDS)},"object":"chat.completion.chunk","created":${pick(CREATED)},"model":${model},"choices":`;
    const stream: string[] = [];
    stream.push(head() + choiceOf(deltas[1](pick(CONTENTS.slice(2, 3))), "null", shape) + "}");
    const tokens = rand() < 0.7 ? 1 : Math.floor(rand() * 4);
    for (let i = 0; i < tokens; i++) {
      const delta = odd() ? pick(deltas, deltas.length) : deltas[deltaShape];
      const finish = i === tokens - 1 ? pick(FINISHES.slice(1), 1) : odd() ? pick(FINISHES, 9) : "null";
      stream.push(
        head() + choiceOf(delta(pick(CONTENTS)), finish, odd() ? Math.floor(rand() * 7) : shape) + extra + "}",
      );
    }
    const usage = odd() ? pick(usageVariants, usageVariants.length) : usageVariants[usageShape];
    stream.push(head() + `[],"usage":${usage()}${odd() ? pick(extras, extras.length) : ""}}`);
    if (rand() < 0.05) stream.push(stream[1 + Math.floor(rand() * (stream.length - 1))].slice(0, -1));
    if (rand() < 0.05) stream.push(stream[Math.floor(rand() * stream.length)] + " ");
    if (rand() < 0.05) stream.push("");
    stream.push("[DONE]");
    for (const data of stream) {
      reads++;
      const read = outcome(chunks.read, data);
      assert.deepEqual(read, outcome(CHAT_ADAPTER.parseEvent, data), data);
      // No two Deltas share a usage object (records keep theirs).
      const usage = typeof read === "object" ? read.usage : undefined;
      if (usage !== undefined) {
        assert.ok(!usages.has(usage), data);
        usages.add(usage);
      }
    }
  }
  assert.ok(reads > 12_000);
});

Deno.test("the chat chunk reader reads serve-sim's 1-token answers without a full parse once it has seen one", () => {
  let parsed = 0;
  const chunks = reader((data) => data.startsWith("{") && parsed++);
  const rand = seeded(7);
  for (let answer = 0; answer < 500; answer++) {
    const head = `{"id":"chatcmpl-${Math.floor(rand() * 2 ** 52).toString(16)}","object":"chat.completion.chunk",` +
      `"created":${1795915599 + (answer >> 4)},"model":"sim-model","choices":[`;
    const prompt = 20 + Math.floor(rand() * 30);
    const stream = [
      `${head}{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`,
      `${head}{"index":0,"delta":{"content":" w${answer % 13}"},"logprobs":null,"finish_reason":"length"}]}`,
      `${head}],"usage":{"prompt_tokens":${prompt},"completion_tokens":1,"total_tokens":${prompt + 1}}}`,
      "[DONE]",
    ];
    for (const data of stream) assert.deepEqual(chunks.read(data), CHAT_ADAPTER.parseEvent(data), data);
  }
  assert.equal(parsed, 3); // the three shapes, once
});

Deno.test("the chat chunk reader reads in full what a template would get wrong: a timing, an error, statistics", () => {
  const chunk = (id: string, finish: string, extra: string) =>
    `{"id":"${id}","choices":[{"index":0,"delta":{"content":"x${id}"},"finish_reason":${finish}}]${extra}}`;
  for (
    const extra of [
      ',"timings":{"prompt_n":3,"predicted_n":1,"prompt_ms":1.5,"predicted_ms":2}',
      ',"meta_info":{"id":"x","e2e_latency":0.5,"prompt_tokens":3,"completion_tokens":1}',
      ',"error":{"message":"bad","type":"x"}',
      ',"object":"error","message":"m"',
      ',"metrics":{"speculative_decoding":{"num_drafts":1,"num_draft_tokens":2,"num_accepted_tokens":1}}',
      ',"usage":{"prompt_tokens":3,"prompt_tokens_details":{"cached_tokens":1}}',
    ]
  ) {
    const chunks = reader();
    const stream = [
      chunk("1", "null", extra),
      chunk("2", "null", extra),
      chunk("3", '"length"', extra),
      chunk("4", '"stop"', extra),
      chunk("5", "null", extra),
    ];
    const reads = stream.map((data) => chunks.read(data));
    assert.deepEqual(reads, stream.map((data) => CHAT_ADAPTER.parseEvent(data)), extra);
    for (let i = 0; i < reads.length; i++) {
      for (let j = 0; j < i; j++) {
        for (const key of ["usage", "error", "serverTiming", "specDecode"] as const) {
          if (reads[i]?.[key] !== undefined) assert.notEqual(reads[i]?.[key], reads[j]?.[key], `${extra} ${key}`);
        }
      }
    }
  }
});
