/**
 * What the embeddings adapters share: reading an OpenAI-style embeddings answer (`{"object":"list","data":[{"object":
 * "embedding","embedding":[…],"index":0}],"usage":{"prompt_tokens":…,"total_tokens":…}}`), as OpenAI, vLLM, NIM and
 * TEI's OpenAI route send it. An answer without embeddings is an error: a request that returned nothing to measure
 * must not count as a success.
 */
import type { Delta } from "../endpoint_adapter.ts";
import { asObject, parseSseJson, readApiError, readUsage } from "./openai_fields.ts";

export function readEmbeddings(json: unknown): Delta {
  const obj = asObject(json);
  if (!obj) return { error: { message: "the response body is not a JSON object", type: "ParseError" } };
  const usage = readUsage(obj.usage);
  const error = readApiError(obj);
  if (error) return { error, usage };
  const data = Array.isArray(obj.data) ? obj.data : [];
  if (data.length === 0) {
    return { usage, error: { message: "the response has no embeddings ('data' is empty)", type: "ParseError" } };
  }
  for (const item of data) {
    const entry = asObject(item);
    if (!entry || entry.object !== "embedding" || entry.embedding === undefined) {
      return {
        usage,
        error: { message: "the response's 'data' holds an item that is not an embedding", type: "ParseError" },
      };
    }
  }
  return { usage };
}

/** An embeddings answer that arrived as an SSE event (no server streams them; the warm-up and odd proxies do). */
export function readEmbeddingsEvent(data: string): Delta | undefined {
  const obj = parseSseJson(data);
  return obj ? readEmbeddings(obj) : undefined;
}

const SAMPLE = '{"object":"list","data":[{"object":"embedding","embedding":[0.25,-0.5,0.125],"index":0}],"model":"m",' +
  '"usage":{"prompt_tokens":3,"total_tokens":3}}';

/** Sample responses of every embeddings adapter. */
export const EMBEDDINGS_SAMPLES = { stream: `data: ${SAMPLE}\n\n`, body: SAMPLE } as const;

/** The ISL text of an embeddings request: every input, one per line. */
export function joinedInputs(texts: readonly string[]): string {
  return texts.join("\n");
}
