/**
 * Runs the receive path (response parser → SSE framer → adapter → collector) over synthetic bytes before the
 * first request, in every engine thread.
 *
 * Why: V8 starts every function in its interpreter and optimizes it only after it has run hot. Measured with
 * `infermeter calibrate` at 256 streams, the first wave of responses of a cold process read ~2 ms late at the
 * median (p99 22 ms) while warm waves read 0.04 ms late: a batching server delivers 256 first tokens at once,
 * and the cold parser was slow to get through them. A few milliseconds of synthetic traffic removes that bias.
 */
import type { EndpointAdapter } from "../endpoints/endpoint_adapter.ts";
import { HttpResponseParser } from "../transport/http_response_parser.ts";
import { SseFramer } from "../transport/sse_framer.ts";
import { ResponseCollector } from "./response_collector.ts";

/**
 * A chunked SSE response in the adapter's own wire format: its sample stream with the content events repeated to
 * `events` content events, one HTTP chunk per event, the other events (role, usage, end) in their places.
 */
function syntheticResponse(adapter: EndpointAdapter, events: number): Uint8Array {
  const samples = adapter.sampleResponses.stream.split("\n\n").filter((e) => e.length > 0).map((e) => e + "\n\n");
  const isContent = (event: string): boolean => {
    const delta = adapter.parseEvent(event.slice(event.indexOf("data:") + 5).trim());
    return delta?.content !== undefined || delta?.reasoning !== undefined || delta?.toolCalls !== undefined;
  };
  const content = samples.filter(isContent);
  // An API without tokens (embeddings, rankings) has no content events: its sample runs through as it is.
  if (content.length === 0 && !adapter.capabilities.producesTokens) {
    let whole = "";
    for (const event of samples) whole += `${event.length.toString(16)}\r\n${event}\r\n`;
    return new TextEncoder().encode(
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" + whole + "0\r\n\r\n",
    );
  }
  if (content.length === 0) throw new RangeError(`the ${adapter.name} adapter's sample stream has no content event`);
  let body = "";
  const chunk = (s: string) => body += `${s.length.toString(16)}\r\n${s}\r\n`;
  let sent = 0;
  for (const event of samples) {
    if (!isContent(event)) {
      chunk(event);
      continue;
    }
    // All content events go out at the first one's place; repeated until there are `events` of them.
    for (; sent < events && event === content[0]; sent++) chunk(content[sent % content.length]);
  }
  return new TextEncoder().encode(
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" + body + "0\r\n\r\n",
  );
}

/** Feeds `rounds` synthetic responses through the receive path; returns the content events seen (a check). */
export function warmUpHotPath(adapter: EndpointAdapter, rounds = 8, eventsPerResponse = 100): number {
  const bytes = syntheticResponse(adapter, eventsPerResponse);
  let seen = 0;
  for (let r = 0; r < rounds; r++) {
    const collector = new ResponseCollector(adapter);
    const framer = new SseFramer((data, t) => collector.onEvent(data, t));
    const parser = new HttpResponseParser({
      onHead: () => {},
      onBody: (b, start, end) => framer.push(b, start, end, performance.now()),
    });
    parser.start();
    // Several reads per response, like a real socket.
    for (let off = 0; off < bytes.length; off += 1500) parser.push(bytes, off, Math.min(bytes.length, off + 1500));
    collector.flush();
    seen += collector.responseTimes.length;
  }
  return seen;
}
