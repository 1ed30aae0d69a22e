/**
 * Seeded fuzzing of the HTTP response parser and the SSE framer with random and mutated inputs. Properties:
 * nothing hangs (every loop is bounded by the input), every failure is a `SyntaxError`/`RangeError` with a
 * message (never a crash of another kind), memory stays bounded by the input, and how the bytes are split into
 * pushes never changes the result. Used by the test suite (small budgets) and scripts/fuzz/transport_fuzz.ts.
 */
import { HttpResponseParser } from "../../src/transport/http_response_parser.ts";
import { SseFramer } from "../../src/transport/sse_framer.ts";

const enc = new TextEncoder();

/** mulberry32: small, fast, seeded. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VALID_RESPONSES = [
  "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" +
  'e\r\ndata: {"a":1}\n\n\r\n12\r\ndata: [DONE]\n\nxxxx\r\n0\r\n\r\n',
  "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
  "HTTP/1.0 200 OK\r\n\r\nclose-delimited body",
  "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n",
  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n0\r\nTrailer: x\r\n\r\n",
  "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n",
];

const SSE_SAMPLES = [
  "data: a\n\n",
  "event: x\ndata: 1\ndata: 2\n\n",
  ": comment\r\ndata:no-space\r\n\r\n",
  "data: é€😀\n\n",
  "\ufeffdata: bom\n\nid: 1\nretry: 5\n\n",
  "data\n\ndata:\n\n",
];

const ALPHABET: readonly number[] = [...enc.encode(
  "HTTP/1.1 200 OK\r\n:;0123456789abcdefABCDEF chunked Content-Length Transfer-Encoding\n\0\xff",
)];

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)];
}

/** A random input: pure noise, noise from the protocol's alphabet, or a mutated valid sample. */
export function fuzzInput(r: () => number, samples: readonly string[], maxLen: number): Uint8Array {
  const mode = r();
  if (mode < 0.15) return Uint8Array.from({ length: Math.floor(r() * maxLen) }, () => Math.floor(r() * 256));
  if (mode < 0.3) return Uint8Array.from({ length: Math.floor(r() * maxLen) }, () => pick(r, ALPHABET));
  let bytes: Uint8Array = enc.encode(pick(r, samples).repeat(1 + Math.floor(r() * 3)));
  const mutations = 1 + Math.floor(r() * 4);
  for (let m = 0; m < mutations && bytes.length < maxLen; m++) {
    const at = Math.floor(r() * (bytes.length + 1));
    const kind = r();
    if (kind < 0.3 && bytes.length > 0) {
      bytes[Math.min(at, bytes.length - 1)] = Math.floor(r() * 256);
    } else if (kind < 0.5) {
      const ins = Uint8Array.from({ length: 1 + Math.floor(r() * 8) }, () => pick(r, ALPHABET));
      bytes = concat(bytes.subarray(0, at), ins, bytes.subarray(at));
    } else if (kind < 0.7) {
      bytes = concat(bytes.subarray(0, at), bytes.subarray(Math.min(bytes.length, at + 1 + Math.floor(r() * 8))));
    } else if (kind < 0.85) {
      bytes = bytes.slice(0, at); // truncation
    } else {
      const seg = bytes.subarray(at, Math.min(bytes.length, at + 1 + Math.floor(r() * 16)));
      bytes = concat(bytes.subarray(0, at), seg, seg, bytes.subarray(at)); // duplication
    }
  }
  return bytes;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

/** Random split points of `n` bytes into pushes. */
function splits(r: () => number, n: number): number[] {
  const cuts = [0];
  while (cuts[cuts.length - 1] < n) cuts.push(Math.min(n, cuts[cuts.length - 1] + 1 + Math.floor(r() * 24)));
  return cuts;
}

interface ParseOutcome {
  readonly status: number | undefined;
  readonly body: string;
  readonly done: boolean;
  readonly error: string | undefined;
}

function parseAll(bytes: Uint8Array, cuts: readonly number[]): ParseOutcome {
  let status: number | undefined;
  let body = "";
  const p = new HttpResponseParser({
    onHead: (h) => (status = h.status),
    onBody: (b, s, e) => (body += String.fromCharCode(...b.subarray(s, e))),
  });
  p.start(false);
  try {
    for (let i = 1; i < cuts.length && !p.done; i++) {
      // A fresh copy per push, as reads land in a reused buffer.
      const piece = bytes.slice(cuts[i - 1], cuts[i]);
      const consumed = p.push(piece, 0, piece.length);
      if (consumed < 0 || consumed > piece.length) throw new Error(`push consumed ${consumed} of ${piece.length}`);
      if (p.done) break;
    }
    if (!p.done) p.finish();
  } catch (e) {
    if (!(e instanceof SyntaxError || e instanceof RangeError) || e.message === "") throw e;
    return { status, body, done: p.done, error: e.constructor.name };
  }
  return { status, body, done: p.done, error: undefined };
}

/**
 * Response parser: random/mutated inputs, each parsed whole and in random pieces. Fails (throws) on a crash that
 * is not a clear SyntaxError/RangeError, or when the outcome depends on how the bytes were split.
 */
export function fuzzResponseParser(seed: number, iterations: number, maxLen = 2048): void {
  const r = rng(seed);
  for (let i = 0; i < iterations; i++) {
    const input = fuzzInput(r, VALID_RESPONSES, maxLen);
    const whole = parseAll(input, [0, input.length]);
    const pieces = parseAll(input, splits(r, input.length));
    if (JSON.stringify(whole) !== JSON.stringify(pieces)) {
      throw new Error(
        `seed ${seed} case ${i}: split-dependent outcome ${JSON.stringify(whole)} vs ${JSON.stringify(pieces)} for ${
          JSON.stringify(new TextDecoder().decode(input))
        }`,
      );
    }
  }
}

function frameAll(bytes: Uint8Array, cuts: readonly number[]): string[] {
  const events: string[] = [];
  const f = new SseFramer((data, _t, event) => {
    events.push(`${event ?? ""}|${data}`);
  });
  for (let i = 1; i < cuts.length; i++) {
    const piece = bytes.slice(cuts[i - 1], cuts[i]);
    f.push(piece, 0, piece.length, i);
  }
  f.end();
  return events;
}

/** SSE framer: random/mutated streams give the same events however they are split; nothing throws. */
export function fuzzSseFramer(seed: number, iterations: number, maxLen = 2048): void {
  const r = rng(seed);
  for (let i = 0; i < iterations; i++) {
    const input = fuzzInput(r, SSE_SAMPLES, maxLen);
    const whole = frameAll(input, [0, input.length]);
    const pieces = frameAll(input, splits(r, input.length));
    if (JSON.stringify(whole) !== JSON.stringify(pieces)) {
      throw new Error(
        `seed ${seed} case ${i}: split-dependent events ${JSON.stringify(whole)} vs ${JSON.stringify(pieces)}`,
      );
    }
  }
}
