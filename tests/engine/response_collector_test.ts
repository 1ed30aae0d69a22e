import assert from "node:assert/strict";
import { ResponseCollector } from "../../src/engine/response_collector.ts";
import { ENDPOINTS } from "../../src/endpoints/endpoint_registry.ts";

const chunk = (delta: Record<string, string>) =>
  JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta }] });

const CHAT = await ENDPOINTS.get("chat").load();

Deno.test("collector keeps every part of long answers and reasoning, in order, with one time per response", () => {
  const c = new ResponseCollector(CHAT);
  const words: string[] = [];
  const thoughts: string[] = [];
  for (let i = 0; i < 150; i++) {
    const word = ` w${i}é`;
    words.push(word);
    c.onEvent(chunk({ content: word }), 10 + i);
    if (i % 3 === 0) {
      thoughts.push(`t${i}`);
      c.onEvent(chunk({ reasoning_content: `t${i}` }), 10.5 + i);
    }
  }
  c.flush();
  assert.equal(c.content, words.join(""));
  assert.equal(c.reasoning, thoughts.join(""));
  // Reading the text twice gives the same string (joined once, then kept).
  assert.equal(c.content, words.join(""));
  assert.equal(c.responseTimes.length, 150 + 50);
  assert.equal(c.firstOutputAt, 10);
  assert.equal(c.lastResponseAt, 10 + 149);
});

Deno.test("collector with no output reports empty texts", () => {
  const c = new ResponseCollector(CHAT);
  c.flush();
  assert.equal(c.content, "");
  assert.equal(c.reasoning, "");
  assert.equal(c.firstOutputAt, undefined);
});

Deno.test("ResponseCollector keeps a long answer of many events whole and in order, read midway or not", () => {
  const c = new ResponseCollector(CHAT);
  let expected = "";
  // 40,000 events: more than three levels of joined blocks (32, 1,024 and 32,768 parts).
  for (let i = 0; i < 40_000; i++) {
    const part = `${i},`;
    expected += part;
    c.onEvent(chunk({ content: part }), i);
    if (i % 1000 === 999) c.flush();
    if (i === 20_000) {
      c.flush();
      assert.equal(c.content, expected, "read midway");
    }
  }
  c.flush();
  assert.equal(c.content, expected);
  assert.equal(c.responseTimes.length, 40_000);
});

Deno.test("ResponseCollector reads its events with the run's reader when given one, shared by its responses", () => {
  const read = CHAT.eventReader!();
  const seen: string[] = [];
  const spy = (data: string) => {
    seen.push(data);
    return read(data);
  };
  for (let answer = 0; answer < 3; answer++) {
    const c = new ResponseCollector(CHAT, false, spy);
    c.onEvent(chunk({ role: "assistant", content: "" }), 1);
    c.onEvent(chunk({ content: ` a${answer}` }), 2);
    c.onEvent("[DONE]", 3);
    c.flush();
    assert.equal(c.content, ` a${answer}`);
    assert.deepEqual(c.responseTimes, [2]);
    assert.equal(c.lastResponseAt, 2);
  }
  assert.equal(seen.length, 9);
});
