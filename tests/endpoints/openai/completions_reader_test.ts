import assert from "node:assert/strict";
import { COMPLETIONS_ADAPTER } from "../../../src/endpoints/openai/completions.ts";
import { ChatChunkReader } from "../../../src/endpoints/openai/chat_chunk_reader.ts";
import { asObject, parseSseJson, readUsage } from "../../../src/endpoints/openai/openai_fields.ts";
import type { Delta } from "../../../src/endpoints/endpoint_adapter.ts";

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

/** What reading `data` gives: the Delta, or the error's message. */
function outcome(read: (data: string) => Delta | undefined, data: string): Delta | undefined | string {
  try {
    return read(data);
  } catch (err) {
    return `throws: ${(err as Error).message}`;
  }
}

/** The adapter's body reading in full: `parseBody` of the parsed JSON, undefined where the JSON is not an object. */
function fullBody(text: string): Delta | undefined {
  const json = JSON.parse(text);
  return asObject(json) === undefined ? undefined : COMPLETIONS_ADAPTER.parseBody(json);
}

const IDS = ['"cmpl-1"', '"cmpl-2"', '"x"', '""', '"a\\"b"', '"é😀"', "7", "null"];
const CREATED = ["1", "1795915599", "0", "12.5", "-3", "01", "12345678901234567", '"7"'];
const TEXTS = ['" tok"', '" word"', '""', '"a}b"', '"say \\"hi\\""', '"line\\nbreak"', '"é😀中"', "null", "5", '"\t"'];
const FINISHES = ['"length"', "null", '"stop"', '""', "5", '"a\\"b"', "nul"];
const COUNTS = ["1", "32", "0", "01", "1.5", "-1", "null", '"7"', "90071992547409935", "999999999999999"];

/** A completions answer's payloads: token chunks and the usage chunk (streaming) or the body. */
function generate(rand: () => number, server: number, streaming: boolean): string[] {
  const pick = <T>(xs: readonly T[], common = 2): T =>
    xs[Math.floor(rand() < 0.95 ? rand() * Math.min(common, xs.length) : rand() * xs.length)];
  const local = seeded(server);
  const count = () => pick(COUNTS, 2);
  const usages = [
    () => `{"prompt_tokens":${count()},"total_tokens":${count()},"completion_tokens":${count()}}`,
    () =>
      `{"prompt_tokens":${count()},"completion_tokens":${count()},"total_tokens":${count()},` +
      `"prompt_tokens_details":{"cached_tokens":${count()}}}`,
    () => `{"prompt_tokens":${count()},"prompt_tokens":${count()}}`,
    () => "null",
    () => `{}`,
  ];
  const choices = [
    (t: string, f: string) => `[{"index":0,"text":${t},"logprobs":null,"finish_reason":${f},"stop_reason":null}]`,
    (t: string, f: string) => `[{"index":0,"text":${t},"finish_reason":${f}}]`,
    (t: string, f: string) => `[{"index":0,"finish_reason":${f},"text":${t}}]`,
    (t: string, f: string) => `[{"index":0,"text":${t},"reasoning_content":"r","finish_reason":${f}}]`,
    (t: string, f: string) => `[{"index":0,"text":${t},"text":" shadow","finish_reason":${f}}]`,
    (t: string, f: string) => `[{"index":0,"text":{"text":${t}},"finish_reason":${f}}]`,
    (t: string, f: string) => `[{"index":0,"text":{"content":${t}},"finish_reason":${f}}]`,
    (t: string, f: string) => `[{"index":0,"delta":{"content":${t}},"finish_reason":${f}}]`,
    (t: string, f: string) => `{"0":{"index":0,"text":${t},"finish_reason":${f}}}`,
    () => "[]",
  ];
  const extras = [
    "",
    ',"timings":{"prompt_n":3,"predicted_n":1,"prompt_ms":1.5,"predicted_ms":2}',
    ',"error":{"message":"bad","type":"x"}',
    ',"metrics":{"speculative_decoding":{"num_drafts":1,"num_draft_tokens":2,"num_accepted_tokens":1}}',
    ',"id":"again"',
    ',"system_fingerprint":null',
  ];
  const choice = local() < 0.6 ? 0 : Math.floor(local() * choices.length);
  const usage = local() < 0.6 ? 0 : Math.floor(local() * usages.length);
  const extra = local() < 0.7 ? "" : extras[Math.floor(local() * extras.length)];
  const odd = () => rand() < 0.05;
  const head = () => `{"id":${pick(IDS)},"object":"text_completion","created":${pick(CREATED)},"model":"m","choices":`;
  const out: string[] = [];
  const choiceOf = (f: string) => (odd() ? pick(choices, choices.length) : choices[choice])(pick(TEXTS), f);
  const usageOf = () => (odd() ? pick(usages, usages.length) : usages[usage])();
  if (!streaming) out.push(`${head()}${choiceOf(pick(FINISHES, 1))},"usage":${usageOf()}${extra}}`);
  else {
    const tokens = 1 + Math.floor(rand() * 3);
    for (let i = 0; i < tokens; i++) {
      out.push(`${head()}${choiceOf(i === tokens - 1 ? pick(FINISHES, 1) : odd() ? pick(FINISHES) : "null")}${extra}}`);
    }
    out.push(`${head()}[],"usage":${usageOf()}}`);
    out.push("[DONE]");
  }
  const r = rand();
  if (r < 0.03) out[0] = out[0].slice(0, -1);
  else if (r < 0.05) out[0] = " " + out[0];
  else if (r < 0.06) out[0] = pick(["[]", "5", "null", "", "{}"], 5);
  return out;
}

Deno.test("the completions readers give what the full parse gives on generated streams and bodies", () => {
  const rand = seeded(9);
  let parses = 0;
  const counted = (parse: (text: string) => ReturnType<typeof parseSseJson>) => (text: string) => {
    parses++;
    return parse(text);
  };
  const readEvent = new ChatChunkReader(
    counted(parseSseJson),
    (o) => COMPLETIONS_ADAPTER.parseEvent(JSON.stringify(o))!,
    readUsage,
    "text",
  ).read;
  const readBody =
    new ChatChunkReader(counted((t) => asObject(JSON.parse(t))), COMPLETIONS_ADAPTER.parseBody, readUsage, "text").read;
  let reads = 0;
  for (let server = 0; server < 60; server++) {
    for (let answer = 0; answer < 60; answer++) {
      const streaming = answer % 2 === 0;
      for (const data of generate(rand, server, streaming)) {
        reads++;
        if (streaming) assert.deepEqual(outcome(readEvent, data), outcome(COMPLETIONS_ADAPTER.parseEvent, data), data);
        else assert.deepEqual(outcome(readBody, data), outcome(fullBody, data), data);
      }
    }
  }
  // Both readings were compared: a good share of the payloads came from templates.
  assert.ok(parses < reads * 0.8 && parses > reads * 0.1, `${parses} of ${reads}`);
});

Deno.test("the completions adapter's readers read serve-sim-like answers without a full parse once seen", () => {
  const readEvent = COMPLETIONS_ADAPTER.eventReader!();
  const readBody = COMPLETIONS_ADAPTER.bodyReader!();
  let parsed = 0;
  const counting = new ChatChunkReader(
    (t) => {
      parsed++;
      return asObject(JSON.parse(t));
    },
    COMPLETIONS_ADAPTER.parseBody,
    readUsage,
    "text",
  ).read;
  for (let i = 0; i < 200; i++) {
    const head = `{"id":"cmpl-${i.toString(16)}","object":"text_completion","created":${1795915599 + (i >> 4)},` +
      `"model":"sim-model","choices":`;
    const body = `${head}[{"index":0,"text":" w${i % 7}","logprobs":null,"finish_reason":"length"}],` +
      `"usage":{"prompt_tokens":${30 + i % 5},"total_tokens":${31 + i % 5},"completion_tokens":1}}`;
    assert.deepEqual(counting(body), fullBody(body));
    assert.deepEqual(readBody(body), fullBody(body));
    const chunk = `${head}[{"index":0,"text":" w${i % 7}","logprobs":null,"finish_reason":"length"}]}`;
    assert.deepEqual(readEvent(chunk), COMPLETIONS_ADAPTER.parseEvent(chunk));
    assert.equal(readEvent(chunk)?.content, ` w${i % 7}`);
  }
  assert.equal(parsed, 1);
});

Deno.test("the completions body reader takes content from choices[0].text only, not from an object under it", () => {
  const readBody = COMPLETIONS_ADAPTER.bodyReader!();
  const readEvent = COMPLETIONS_ADAPTER.eventReader!();
  for (let i = 0; i < 4; i++) {
    for (const part of ['"text":{"content":" w"}', '"message":{"content":" w"}', '"delta":{"content":" w"}']) {
      const body = `{"id":"cmpl-${i}","choices":[{"index":0,${part},"finish_reason":"stop"}],` +
        `"usage":{"prompt_tokens":${i},"completion_tokens":1}}`;
      assert.deepEqual(readBody(body), fullBody(body), body);
      assert.deepEqual(readEvent(body), COMPLETIONS_ADAPTER.parseEvent(body), body);
      assert.equal(readBody(body)?.content, undefined);
    }
  }
});
