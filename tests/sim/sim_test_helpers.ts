/** Test helpers for the simulated server: request builders and an SSE body splitter. */
import type { Hono } from "hono";
import { createSimApp } from "../../src/sim/sim_app.ts";
import type { SimOptions } from "../../src/sim/sim_options.ts";
import { SimStats } from "../../src/sim/sim_stats.ts";
import { oracleTokenizer } from "./oracle_tokenizer.ts";

export type JsonObject = Record<string, unknown>;

export const CHAT = "/v1/chat/completions";
export const COMPLETIONS = "/v1/completions";
export const PROMPT = "Explain, in plain words, why the sky looks blue on a clear afternoon.";

/** OpenAI `usage` as the simulator writes it. */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  completion_tokens_details?: { reasoning_tokens: number };
}

export async function json(res: Response): Promise<JsonObject> {
  return await res.json() as JsonObject;
}

export function firstChoice(body: JsonObject): JsonObject {
  return (body.choices as JsonObject[])[0];
}

/** A fresh app with zero latency (unless overridden) and its stats. */
export function makeApp(options: Partial<SimOptions> = {}): { app: Hono; stats: SimStats } {
  const stats = new SimStats();
  const app = createSimApp({ ttftMs: 0, itlMs: 0, seed: 1, ...options }, { tokenizer: oracleTokenizer(), stats });
  return { app, stats };
}

export function post(app: Hono, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return Promise.resolve(app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  }));
}

export function chat(content: string, extra: JsonObject = {}): JsonObject {
  return { model: "sim-model", messages: [{ role: "user", content }], ...extra };
}

/** The `data:` payloads of an SSE body, in order (`[DONE]` kept as the string). */
export function sseData(body: string): string[] {
  assertEndsWellFormed(body);
  return body.split("\n\n").filter((e) => e.length > 0).map((e) => {
    if (!e.startsWith("data: ")) throw new Error(`not a data event: ${e}`);
    return e.slice(6);
  });
}

/** Parsed JSON chunks of an SSE body (without `[DONE]`), and whether `[DONE]` ended it. */
export function sseChunks(body: string): { chunks: JsonObject[]; done: boolean } {
  const data = sseData(body);
  const done = data.at(-1) === "[DONE]";
  const chunks = data.filter((d) => d !== "[DONE]").map((d) => JSON.parse(d) as JsonObject);
  return { chunks, done };
}

/** Concatenated `content` (or completions `text`) and `reasoning_content` of stream chunks. */
export function streamTexts(chunks: readonly JsonObject[]): { content: string; reasoning: string } {
  let content = "";
  let reasoning = "";
  for (const chunk of chunks) {
    const choices = chunk.choices as JsonObject[];
    for (const choice of choices) {
      const delta = choice.delta as JsonObject | undefined;
      if (delta) {
        content += (delta.content as string | undefined) ?? "";
        reasoning += (delta.reasoning_content as string | undefined) ?? "";
      } else {
        content += (choice.text as string | undefined) ?? "";
      }
    }
  }
  return { content, reasoning };
}

function assertEndsWellFormed(body: string): void {
  if (!body.endsWith("\n\n")) throw new Error("SSE body does not end with a blank line");
}
