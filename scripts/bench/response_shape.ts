/**
 * Fetches one response of a scenario and counts its SSE events, so that wrk's requests/s (wrk does not parse
 * SSE) can be turned into events/s, and so that a server answering something unexpected is caught before the
 * clients run.
 */
import type { ResponseShape } from "./bench_types.ts";

/** Counts `data:` events and those carrying non-empty `choices[0].delta.content`. */
export function countSseEvents(text: string): { sseEvents: number; contentEvents: number } {
  let sseEvents = 0;
  let contentEvents = 0;
  for (const block of text.split(/\r\n\r\n|\n\n|\r\r/)) {
    const data = block.split(/\r\n|\n|\r/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart());
    if (data.length === 0) continue;
    sseEvents++;
    const payload = data.join("\n");
    if (payload === "[DONE]") continue;
    try {
      const content = JSON.parse(payload)?.choices?.[0]?.delta?.content;
      if (typeof content === "string" && content !== "") contentEvents++;
    } catch {
      // not JSON: not a content event
    }
  }
  return { sseEvents, contentEvents };
}

export async function sampleResponse(url: string, body: string, streaming: boolean): Promise<ResponseShape> {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body,
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  const bytes = new TextEncoder().encode(text).length;
  if (!res.ok) {
    throw new Error(`the server answered HTTP ${res.status} to the scenario's request: ${text.slice(0, 200)}`);
  }
  if (!streaming) return { status: res.status, bytes, sseEvents: 0, contentEvents: 0 };
  return { status: res.status, bytes, ...countSseEvents(text) };
}
