/**
 * Web Streams face of {@linkcode SseFramer}, for everything off the hot path (the `fetch` fallback, tools,
 * tests). It pays a promise per chunk, which the engine's own transport avoids by calling the framer directly.
 */
import { SseFramer } from "./sse_framer.ts";

/** One dispatched Server-Sent Event. */
export interface SseMessage {
  readonly data: string;
  /** The `event:` field, absent when the event had none (the spec's default type "message"). */
  readonly event?: string;
  /** Arrival time of the chunk holding the event's first byte. */
  readonly t: number;
}

export interface SseStreamOptions {
  /**
   * Clock read once per incoming chunk; its value becomes `t` for every byte of that chunk.
   * @default {() => performance.now()}
   */
  readonly now?: () => number;
}

/** `response.body.pipeThrough(new SseStream())` yields one {@linkcode SseMessage} per event. */
export class SseStream extends TransformStream<Uint8Array, SseMessage> {
  constructor(options: SseStreamOptions = {}) {
    const now = options.now ?? (() => performance.now());
    let sink: TransformStreamDefaultController<SseMessage> | undefined;
    const framer = new SseFramer((data, t, event) => {
      sink?.enqueue(event === undefined ? { data, t } : { data, event, t });
    });
    super({
      start(controller) {
        sink = controller;
      },
      transform(chunk) {
        framer.push(chunk, 0, chunk.length, now());
      },
      flush() {
        framer.end();
      },
    });
  }
}
