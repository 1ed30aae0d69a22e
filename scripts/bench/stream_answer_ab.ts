/**
 * A/B micro-benchmark of a streamed 1-token chat answer's receive path between two source trees: serve-sim's answer
 * (one read: the response head, then the role chunk, the token chunk with its finish reason, the usage chunk and
 * `[DONE]`, each answer with its own id) through the tree's `SseFramer` (the read declared with `beginRead`, as the
 * connection does) into the tree's `ResponseCollector`, 64 answers at a time with their parse microtasks run between
 * batches, as at concurrency 64. The collector gets one reader of SSE payloads for the whole run (the adapter's
 * `eventReader`), as the engine gives it; a tree whose collector takes none makes its own per answer, as its engine did.
 *
 *   git archive <commit> | tar -x -C /tmp/base
 *   deno run -A scripts/bench/stream_answer_ab.ts --base /tmp/base [--rounds 60]
 *
 * Both trees run in one process in alternating 100 ms rounds; it prints the median ns per answer of each and the
 * median per-round B/A ratio (A = base, B = this tree).
 */
import { pathToFileURL } from "node:url";
import { AB_ANSWERS, AB_BATCH, AB_WORDS, abArgs, runAlternating, simAnswerId } from "./alternating_ab.ts";

/** Serve-sim's 1-token streamed answer number `i` (head included) and where its body starts. */
function answer(i: number): { bytes: Uint8Array; body: number } {
  const id = simAnswerId(i);
  const head = `{"id":"${id}","object":"chat.completion.chunk","created":${
    1795915599 + (i >> 6)
  },"model":"sim-model","choices":[`;
  const prompt = 30 + (i % 5);
  const body = `data: ${head}{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,` +
    `"finish_reason":null}]}\n\n` +
    `data: ${head}{"index":0,"delta":{"content":"${AB_WORDS[i % 8]}"},"logprobs":null,"finish_reason":"length"}]}\n\n` +
    `data: ${head}],"usage":{"prompt_tokens":${prompt},"completion_tokens":1,"total_tokens":${prompt + 1}}}\n\n` +
    "data: [DONE]\n\n";
  const responseHead =
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\ncache-control: no-cache\r\n" +
    `content-length: ${body.length}\r\ndate: Sun, 29 Nov 2026 01:26:39 GMT\r\n\r\n`;
  return { bytes: new TextEncoder().encode(responseHead + body), body: responseHead.length };
}

interface Collector {
  onEvent(data: string, t: number): boolean;
  readonly content: string;
  readonly usage?: { readonly totalTokens?: number };
  readonly responseTimes: readonly number[];
}

/** A batch of answers through one tree's framer and collector; resolves once their parse microtasks have run. */
async function loadTree(tree: string): Promise<(from: number) => Promise<number>> {
  const url = (path: string) => pathToFileURL(`${tree}/${path}`).href;
  const { ResponseCollector } = await import(url("src/engine/response_collector.ts"));
  const { CHAT_ADAPTER } = await import(url("src/endpoints/openai/chat.ts"));
  const { SseFramer } = await import(url("src/transport/sse_framer.ts"));
  const answers = Array.from({ length: AB_ANSWERS }, (_, i) => answer(i));
  const read = CHAT_ADAPTER.eventReader?.();
  let current: Collector | undefined;
  const framer = new SseFramer((data: string, t: number) => current!.onEvent(data, t));
  const batch: Collector[] = new Array(AB_BATCH);
  return async (from: number) => {
    for (let k = 0; k < AB_BATCH; k++) {
      const { bytes, body } = answers[(from + k) % AB_ANSWERS];
      current = new ResponseCollector(CHAT_ADAPTER, false, read) as Collector;
      framer.beginRead(bytes, 0, bytes.length);
      framer.push(bytes, body, bytes.length, from + k);
      framer.reset();
      batch[k] = current;
    }
    await Promise.resolve();
    let sink = 0;
    for (const c of batch) sink += c.content.length + (c.usage?.totalTokens ?? 0) + c.responseTimes.length;
    return sink;
  };
}

const { base, ours, rounds } = abArgs();
const runs = [await loadTree(base), await loadTree(ours)] as const;
await runAlternating(runs, rounds, AB_BATCH);
