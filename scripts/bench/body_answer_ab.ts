/**
 * A/B micro-benchmark of a non-streaming 1-token chat answer's reading between two source trees: serve-sim's body
 * (each answer with its own id, `created` and counts) handed to the tree's `ResponseCollector.addBody` as the engine
 * hands it, 64 answers at a time. The collector gets one reader of bodies for the whole run (the adapter's
 * `bodyReader`), as the engine gives it; a tree without one parses every body.
 *
 *   git archive <commit> | tar -x -C /tmp/base
 *   deno run -A scripts/bench/body_answer_ab.ts --base /tmp/base [--rounds 60]
 *
 * Both trees run in one process in alternating 100 ms rounds; it prints the median ns per answer of each and the
 * median per-round B/A ratio (A = base, B = this tree).
 */
import { pathToFileURL } from "node:url";
import { AB_ANSWERS, AB_BATCH, AB_WORDS, abArgs, runAlternating, simAnswerId } from "./alternating_ab.ts";

/** Serve-sim's 1-token answer number `i`, as its bytes. */
function answer(i: number): Uint8Array {
  const id = simAnswerId(i);
  const prompt = 30 + (i % 5);
  return new TextEncoder().encode(
    `{"id":"${id}","object":"chat.completion","created":${1795915599 + (i >> 6)},"model":"sim-model",` +
      `"choices":[{"index":0,"message":{"role":"assistant","content":"${AB_WORDS[i % 8]}"},"logprobs":null,` +
      `"finish_reason":"length"}],"usage":{"prompt_tokens":${prompt},"total_tokens":${prompt + 1},` +
      `"completion_tokens":1}}`,
  );
}

interface Collector {
  addBody(body: Uint8Array, t: number): void;
  readonly content: string;
  readonly usage?: { readonly totalTokens?: number };
  readonly finishReason?: string;
}

/** A batch of answers through one tree's collector. */
async function loadTree(tree: string): Promise<(from: number) => number> {
  const url = (path: string) => pathToFileURL(`${tree}/${path}`).href;
  const { ResponseCollector } = await import(url("src/engine/response_collector.ts"));
  const { CHAT_ADAPTER } = await import(url("src/endpoints/openai/chat.ts"));
  const answers = Array.from({ length: AB_ANSWERS }, (_, i) => answer(i));
  const readEvent = CHAT_ADAPTER.eventReader?.();
  const readBody = CHAT_ADAPTER.bodyReader?.();
  return (from: number) => {
    let sink = 0;
    for (let k = 0; k < AB_BATCH; k++) {
      const c = new ResponseCollector(CHAT_ADAPTER, false, readEvent, readBody) as Collector;
      c.addBody(answers[(from + k) % AB_ANSWERS], from + k);
      sink += c.content.length + (c.usage?.totalTokens ?? 0) + (c.finishReason?.length ?? 0);
    }
    return sink;
  };
}

const { base, ours, rounds } = abArgs();
const runs = [await loadTree(base), await loadTree(ours)] as const;
await runAlternating(runs, rounds, AB_BATCH);
