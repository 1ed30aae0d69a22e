import { deepStrictEqual as assertEquals } from "node:assert/strict";
import assert from "node:assert/strict";
import { MAX_SSE_LINE_BYTES, SseFramer } from "../../src/transport/sse_framer.ts";

interface Seen {
  readonly data: string;
  readonly t: number;
  readonly event: string | undefined;
}

const enc = new TextEncoder();

function collector(): { framer: SseFramer; events: Seen[] } {
  const events: Seen[] = [];
  const framer = new SseFramer((data, t, event) => events.push({ data, t, event }));
  return { framer, events };
}

/** Feeds `bytes` split at the given offsets; push k carries time k + 1. */
function feed(bytes: Uint8Array, cuts: readonly number[]): Seen[] {
  const { framer, events } = collector();
  let start = 0;
  let t = 1;
  for (const cut of [...cuts, bytes.length]) {
    framer.push(bytes, start, cut, t++);
    start = cut;
  }
  framer.end();
  return events;
}

function byteOffset(text: string, marker: string): number {
  const at = text.indexOf(marker);
  assert.ok(at >= 0, marker);
  return enc.encode(text.slice(0, at)).length;
}

// Every feature at once: BOM, CRLF, LF, bare CR, comments, multi-line data, multi-byte UTF-8, event field,
// a second space kept, id/retry ignored, a field without colon, [DONE].
const STREAM = "\uFEFF: keep-alive\r\n\r\n" +
  'data: {"a":1}\r\n\r\n' +
  "event: delta\ndata: héllo 🌍\ndata:second\n\n" +
  ": ping\rdata:  two spaces\r\r" +
  "id: 7\nretry: 10\ndata\n\n" +
  "event: ignored-without-data\n\n" +
  "data: [DONE]\r\n\r\n";
const BYTES = enc.encode(STREAM);
const EXPECTED: readonly { data: string; event: string | undefined; offset: number }[] = [
  { data: '{"a":1}', event: undefined, offset: byteOffset(STREAM, 'data: {"a"') },
  { data: "héllo 🌍\nsecond", event: "delta", offset: byteOffset(STREAM, "event: delta") },
  { data: " two spaces", event: undefined, offset: byteOffset(STREAM, "data:  two") },
  { data: "", event: undefined, offset: byteOffset(STREAM, "id: 7") },
  { data: "[DONE]", event: undefined, offset: byteOffset(STREAM, "data: [DONE]") },
];

/** The stream's ranges between `cuts` laid out in one read buffer with `junk` before each (like chunk framing). */
function spreadWithJunk(
  stream: Uint8Array,
  cuts: readonly number[],
  junk: Uint8Array,
): { read: Uint8Array; ranges: [number, number][]; w: number } {
  const read = new Uint8Array(stream.length + junk.length * cuts.length);
  const ranges: [number, number][] = [];
  let w = 0;
  for (let k = 0; k + 1 < cuts.length; k++) {
    read.set(junk, w);
    w += junk.length;
    read.set(stream.subarray(cuts[k], cuts[k + 1]), w);
    ranges.push([w, w + cuts[k + 1] - cuts[k]]);
    w += cuts[k + 1] - cuts[k];
  }
  return { read, ranges, w };
}

Deno.test("SseFramer parses a mixed stream in one push", () => {
  const events = feed(BYTES, []);
  assertEquals(events, EXPECTED.map((e) => ({ data: e.data, t: 1, event: e.event })));
});

Deno.test("SseFramer gives identical events and first-byte times when the stream is split at every byte boundary", () => {
  for (let cut = 0; cut <= BYTES.length; cut++) {
    const events = feed(BYTES, [cut]);
    const expected = EXPECTED.map((e) => ({ data: e.data, t: e.offset < cut ? 1 : 2, event: e.event }));
    assertEquals(events, expected, `split at byte ${cut}`);
  }
});

Deno.test("SseFramer stamps each event with the push holding its first field byte when fed one byte per push", () => {
  const cuts = Array.from({ length: BYTES.length - 1 }, (_, i) => i + 1);
  const events = feed(BYTES, cuts);
  // Push k (1-based) holds byte k - 1.
  assertEquals(events, EXPECTED.map((e) => ({ data: e.data, t: e.offset + 1, event: e.event })));
});

Deno.test("SseFramer gives identical events for random three-way splits", () => {
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let round = 0; round < 300; round++) {
    const a = Math.floor(random() * (BYTES.length + 1));
    const b = Math.floor(random() * (BYTES.length + 1));
    const cuts = [Math.min(a, b), Math.max(a, b)];
    const events = feed(BYTES, cuts);
    assertEquals(events.map((e) => [e.data, e.event]), EXPECTED.map((e) => [e.data, e.event]), `cuts ${cuts}`);
  }
});

Deno.test("SseFramer handles CRLF, CR-only and mixed line endings alike", () => {
  for (const nl of ["\n", "\r\n", "\r"]) {
    const events = feed(enc.encode(`data: a${nl}data: b${nl}${nl}data: c${nl}${nl}`), []);
    assertEquals(events.map((e) => e.data), ["a\nb", "c"], JSON.stringify(nl));
  }
  const mixed = feed(enc.encode("data: a\rdata: b\r\n\ndata: c\n\r"), []);
  assertEquals(mixed.map((e) => e.data), ["a\nb", "c"]);
});

Deno.test("SseFramer treats CR at the end of one push and LF at the start of the next as one line ending", () => {
  const { framer, events } = collector();
  framer.push(enc.encode("data: a\r"), 0, 8, 1);
  framer.push(enc.encode("\ndata: b\r"), 0, 9, 2);
  framer.push(enc.encode("\n\r"), 0, 2, 3);
  framer.push(enc.encode("\n"), 0, 1, 4);
  // Had either LF been taken as a blank line, "a" and "b" would have been dispatched separately.
  assertEquals(events, [{ data: "a\nb", t: 1, event: undefined }]);
});

Deno.test("SseFramer dispatches on a bare CR followed by a non-LF byte in the next push", () => {
  const { framer, events } = collector();
  framer.push(enc.encode("data: a\r\r"), 0, 9, 1);
  framer.push(enc.encode("data: b\n\n"), 0, 9, 2);
  assertEquals(events.map((e) => [e.data, e.t]), [["a", 1], ["b", 2]]);
});

Deno.test("SseFramer ignores comments and keep-alives and does not start an event's clock on them", () => {
  const { framer, events } = collector();
  framer.push(enc.encode(": ping\n\n:\n"), 0, 10, 1);
  framer.push(enc.encode(": another comment\n"), 0, 18, 2);
  framer.push(enc.encode("data: x\n"), 0, 8, 3);
  framer.push(enc.encode(": between\n\n"), 0, 11, 4);
  assertEquals(events, [{ data: "x", t: 3, event: undefined }]);
});

Deno.test("SseFramer joins multiple data lines with a newline and keeps empty data lines", () => {
  const events = feed(enc.encode("data: one\ndata:\ndata: three\n\ndata:\n\n"), []);
  assertEquals(events.map((e) => e.data), ["one\n\nthree", ""]);
});

Deno.test("SseFramer does not dispatch events without data", () => {
  const events = feed(enc.encode("event: x\n\nid: 1\n\nretry: 5\n\n\n\n"), []);
  assertEquals(events, []);
});

Deno.test("SseFramer passes the event field as the third argument", () => {
  const events = feed(enc.encode("event: error\ndata: {}\n\nevent:\ndata: y\n\ndata: z\n\n"), []);
  assertEquals(events.map((e) => e.event), ["error", undefined, undefined]);
});

Deno.test("SseFramer strips a UTF-8 BOM at stream start even when split, and only there", () => {
  const bom = enc.encode("\uFEFFdata: \uFEFFx\n\n");
  for (let cut = 0; cut <= bom.length; cut++) {
    const events = feed(bom, [cut]);
    assertEquals(events.map((e) => e.data), ["\uFEFFx"], `split at ${cut}`);
  }
});

Deno.test("SseFramer decodes a multi-byte UTF-8 character split across pushes", () => {
  const bytes = enc.encode("data: 🌍é中\n\n");
  for (let cut = 0; cut <= bytes.length; cut++) {
    for (let cut2 = cut; cut2 <= bytes.length; cut2 += 3) {
      assertEquals(feed(bytes, [cut, cut2]).map((e) => e.data), ["🌍é中"], `cuts ${cut},${cut2}`);
    }
  }
});

Deno.test("SseFramer respects start and end offsets into a larger buffer", () => {
  const { framer, events } = collector();
  const bytes = enc.encode("XXXXdata: inside\n\nYYYY");
  framer.push(bytes, 4, bytes.length - 4, 7);
  assertEquals(events, [{ data: "inside", t: 7, event: undefined }]);
});

Deno.test("SseFramer discards an unterminated event at end and starts clean after reset", () => {
  const { framer, events } = collector();
  framer.push(enc.encode("data: partial\n"), 0, 14, 1);
  framer.end();
  framer.push(enc.encode("\uFEFFdata: next\n\n"), 0, 17, 2);
  framer.push(enc.encode("data: half"), 0, 10, 3);
  framer.reset();
  framer.push(enc.encode("data: fresh\n\n"), 0, 13, 4);
  assertEquals(events, [{ data: "next", t: 2, event: undefined }, { data: "fresh", t: 4, event: undefined }]);
});

Deno.test("SseFramer carries a very long data line across many pushes", () => {
  const payload = "x".repeat(100_000);
  const bytes = enc.encode(`data: ${payload}\n\n`);
  const cuts: number[] = [];
  for (let i = 1000; i < bytes.length; i += 1000) cuts.push(i);
  assertEquals(feed(bytes, cuts).map((e) => e.data.length), [100_000]);
});

Deno.test("SseFramer gives the same events with and without the beginRead hint on random byte streams", () => {
  const pieces: Uint8Array[] = [
    "data:",
    "data: ",
    "event: e",
    ": c",
    "\n",
    "\r",
    "\r\n",
    "\n\n",
    "abc",
    '{"k":1}',
    "é",
    "🌍",
    "中文",
    "\uFEFF",
  ].map((p) => enc.encode(p)).concat([
    new Uint8Array([0xff]),
    new Uint8Array([0xc3]),
    new Uint8Array([0xe2, 0x82]),
    new Uint8Array([0xed, 0xa0, 0x80]),
    new Uint8Array([0x80]),
  ]);
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return Math.floor((seed / 2147483648) * n);
  };
  const dataOf = (events: Seen[]) => events.map((e) => [e.data, e.event]);
  for (let round = 0; round < 400; round++) {
    const parts: Uint8Array[] = [];
    const count = 1 + random(60);
    // Odd rounds avoid valid multi-byte text, so the sliced (1:1 bytes-to-chars) path is taken, lone bad bytes too.
    const pool = round % 2 === 0 ? pieces : pieces.filter((p) => p.every((b) => b < 0x80) || p.length === 1);
    for (let k = 0; k < count; k++) parts.push(pool[random(pool.length)]);
    const stream = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      stream.set(p, at);
      at += p.length;
    }
    // Reference: one byte per push, so every line goes through the carry and is decoded on its own.
    const reference = feed(stream, Array.from({ length: Math.max(0, stream.length - 1) }, (_, i) => i + 1));

    // Hinted: the stream sits in one "read buffer" with junk (like chunk framing) between random segments.
    const cuts = [0];
    for (let k = 0; k < 3; k++) cuts.push(random(stream.length + 1));
    cuts.push(stream.length);
    cuts.sort((a, b) => a - b);
    const junk = enc.encode("\r\n1f;x\r\n");
    const { read, ranges, w } = spreadWithJunk(stream, cuts, junk);
    const hinted = collector();
    hinted.framer.beginRead(read, 0, w);
    for (const [s, e] of ranges) hinted.framer.push(read, s, e, 1);
    assertEquals(dataOf(hinted.events), dataOf(reference), `round ${round}`);

    const whole = collector();
    whole.framer.push(stream, 0, stream.length, 1);
    assertEquals(dataOf(whole.events), dataOf(reference), `round ${round} (one push)`);
  }
});

Deno.test("SseFramer with beginRead slices values from a read holding many events", () => {
  const { framer, events } = collector();
  const text = Array.from({ length: 50 }, (_, i) => `data: {"i":${i}}\n\n`).join("");
  const bytes = enc.encode(`5\r\nhead\r\n${text}`);
  framer.beginRead(bytes, 0, bytes.length);
  framer.push(bytes, 9, bytes.length, 3);
  assertEquals(events.length, 50);
  assertEquals(events[49], { data: '{"i":49}', t: 3, event: undefined });
});

Deno.test("SseFramer refuses a line longer than the cap with a clear error, and a reset frees it", () => {
  const events: string[] = [];
  const framer = new SseFramer((d) => {
    events.push(d);
  });
  const piece = new Uint8Array(1024 * 1024).fill(0x78);
  framer.push(new TextEncoder().encode("data: "), 0, 6, 0);
  let thrown: unknown;
  try {
    for (let i = 0; i <= MAX_SSE_LINE_BYTES / piece.length; i++) framer.push(piece, 0, piece.length, 0);
  } catch (e) {
    thrown = e;
  }
  assert.ok(thrown instanceof SyntaxError && /exceeds \d+ bytes without a line break/.test(thrown.message));
  framer.reset();
  const ok1 = new TextEncoder().encode("data: fine\n\n");
  framer.push(ok1, 0, ok1.length, 1);
  assertEquals(events, ["fine"]);
});

Deno.test("SseFramer finds lines in a read's text as it does byte by byte: same events, same first-byte times", () => {
  // Without CR and with every char one byte, a declared read's lines are found in its text; elsewhere byte by byte.
  const pieces = ["data:", "data: ", "data", "event: e", "event:", ": c", "id: 1", "\n", "\n\n", "abc", '{"k":1}', " "]
    .map((p) => enc.encode(p)).concat([new Uint8Array([0xff]), new Uint8Array([0x80])]);
  let seed = 11;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return Math.floor((seed / 2147483648) * n);
  };
  for (let round = 0; round < 600; round++) {
    const parts: Uint8Array[] = [];
    for (let k = 1 + random(60); k > 0; k--) parts.push(pieces[random(pieces.length)]);
    const stream = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      stream.set(p, at);
      at += p.length;
    }
    const cuts = [0, random(stream.length + 1), random(stream.length + 1), stream.length].sort((a, b) => a - b);
    // Reference: each range pushed alone (under 512 bytes, undeclared: read byte by byte), at its own time.
    const reference = collector();
    for (let k = 0; k + 1 < cuts.length; k++) {
      reference.framer.push(stream.slice(cuts[k], cuts[k + 1]), 0, cuts[k + 1] - cuts[k], k + 1);
    }
    // Declared: every range in one read buffer, junk between them, each pushed at its own time.
    const junk = enc.encode("\r\n1f\r\n");
    const { read, ranges, w } = spreadWithJunk(stream, cuts, junk);
    const hinted = collector();
    hinted.framer.beginRead(read, 0, w);
    ranges.forEach(([s, e], k) => hinted.framer.push(read, s, e, k + 1));
    assertEquals(hinted.events, reference.events, `round ${round}`);
  }
});

Deno.test("SseFramer does not start an event's clock on a comment when it reads a declared read's text", () => {
  const { framer, events } = collector();
  const bytes = enc.encode(": ping\ndata: x\n\n");
  framer.beginRead(bytes, 0, bytes.length);
  framer.push(bytes, 0, 7, 1);
  framer.push(bytes, 7, bytes.length, 2);
  assertEquals(events, [{ data: "x", t: 2, event: undefined }]);
});
