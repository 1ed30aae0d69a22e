import assert from "node:assert/strict";
import { SeededRandom } from "../../src/base/seeded_random.ts";
import type { GenerationPlan } from "../../src/sim/plan_generation.ts";
import type { StreamFraming } from "../../src/sim/sim_route.ts";
import { SseEmitter } from "../../src/sim/sse_emitter.ts";
import { TokenClock } from "../../src/sim/token_clock.ts";
import { WordSource } from "../../src/sim/word_source.ts";

/** Writes each call as one line, so a test reads what the emitter asked for and in which order. */
const RECORDING: StreamFraming = {
  open: () => "open\n",
  chunk: (text, reasoning, sent, reasoningSent) =>
    `${reasoning ? "r" : "c"} ${text.split(" ").length - 1} ${sent} ${reasoningSent}\n`,
  close: (sent, reasoningSent) => `close ${sent} ${reasoningSent}\n`,
};

function emitter(plan: Partial<GenerationPlan>, tokensPerChunk: number): SseEmitter {
  const rng = new SeededRandom(4);
  return new SseEmitter({
    framing: RECORDING,
    plan: { promptTokens: 3, reasoningTokens: 0, contentTokens: 0, finishReason: "length", ...plan },
    words: new WordSource(rng),
    clock: new TokenClock({ ttftMs: 10, itlMs: 1, ttftJitter: 0, itlJitter: 0 }, rng),
    tokensPerChunk,
  });
}

Deno.test("sse emitter groups tokens per chunk without mixing reasoning and content, then closes", () => {
  const e = emitter({ reasoningTokens: 3, contentTokens: 4 }, 2);
  assert.equal(e.emit(Infinity), "open\nr 2 2 2\nr 1 3 3\nc 2 5 3\nc 2 7 3\nclose 7 3\n");
  assert.ok(e.done);
  assert.equal(e.tokensSent, 7);
});

Deno.test("sse emitter writes only what is due by the horizon, chunks due with their last token", () => {
  const e = emitter({ contentTokens: 5 }, 2);
  assert.equal(e.nextDue, 11); // tokens 0 and 1 at 10 and 11 ms
  assert.equal(e.emit(10.5), "");
  assert.equal(e.emit(11), "open\nc 2 2 0\n");
  assert.equal(e.nextDue, 13);
  assert.equal(e.emit(13.9), "c 2 4 0\n");
  assert.ok(!e.done);
  assert.equal(e.emit(14), "c 1 5 0\nclose 5 0\n");
  assert.ok(e.done);
  assert.equal(e.emit(Infinity), "");
});

Deno.test("sse emitter with nothing to generate still opens and closes the stream", () => {
  const e = emitter({}, 1);
  assert.equal(e.emit(Infinity), "open\nclose 0 0\n");
  assert.ok(e.done);
});
