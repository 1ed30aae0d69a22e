import { deepStrictEqual, throws } from "node:assert/strict";
import assert from "node:assert/strict";
import { type HttpResponseHead, HttpResponseParser } from "../../src/transport/http_response_parser.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

interface Run {
  readonly parser: HttpResponseParser;
  readonly heads: HttpResponseHead[];
  readonly body: () => string;
  /** Buffers that onBody ranges pointed into. */
  readonly sources: Uint8Array[];
}

function setup(noBody = false): Run {
  const heads: HttpResponseHead[] = [];
  const parts: Uint8Array[] = [];
  const sources: Uint8Array[] = [];
  const parser = new HttpResponseParser({
    onHead: (h) => heads.push(h),
    onBody: (bytes, start, end) => {
      sources.push(bytes);
      parts.push(bytes.slice(start, end));
    },
  });
  parser.start(noBody);
  return { parser, heads, sources, body: () => parts.map((p) => dec.decode(p)).join("") };
}

/** Pushes `text` split at `cuts`; each piece is its own buffer. Returns the consumed byte count. */
function pushSplit(run: Run, text: string, cuts: readonly number[] = []): number {
  const bytes = enc.encode(text);
  let consumed = 0;
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    const piece = bytes.slice(start, cut);
    consumed += run.parser.push(piece, 0, piece.length);
    start = cut;
  }
  return consumed;
}

const CHUNKED = "HTTP/1.1 200 OK\r\n" +
  "Content-Type: text/event-stream\r\n" +
  "Transfer-Encoding: chunked\r\n\r\n" +
  "5\r\nhello\r\n" +
  '7;ext=1;other="x"\r\n, world\r\n' +
  "A \r\n0123456789\r\n" +
  "0\r\nX-Trailer: yes\r\nAnother: 1\r\n\r\n";

Deno.test("HttpResponseParser decodes chunked bodies identically when split at every position", () => {
  const length = enc.encode(CHUNKED).length;
  for (let cut = 0; cut <= length; cut++) {
    const run = setup();
    const consumed = pushSplit(run, CHUNKED, [cut]);
    deepStrictEqual(run.body(), "hello, world0123456789", `split at ${cut}`);
    deepStrictEqual(consumed, length);
    assert.ok(run.parser.done, `split at ${cut}`);
    assert.ok(run.parser.keepAlive);
    deepStrictEqual(run.heads.length, 1);
    deepStrictEqual(run.heads[0].headers.get("content-type"), "text/event-stream");
  }
});

Deno.test("HttpResponseParser decodes chunked bodies fed one byte at a time", () => {
  const run = setup();
  const cuts = Array.from({ length: enc.encode(CHUNKED).length - 1 }, (_, i) => i + 1);
  pushSplit(run, CHUNKED, cuts);
  deepStrictEqual(run.body(), "hello, world0123456789");
  assert.ok(run.parser.done);
});

Deno.test("HttpResponseParser hands body ranges on the caller's buffer without copying", () => {
  const run = setup();
  const bytes = enc.encode(CHUNKED);
  run.parser.push(bytes, 0, bytes.length);
  assert.ok(run.sources.length >= 3);
  assert.ok(run.sources.every((s) => s === bytes));
});

Deno.test("HttpResponseParser reads Content-Length bodies and stops at their end", () => {
  const run = setup();
  const text = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloEXTRA";
  const consumed = pushSplit(run, text);
  deepStrictEqual(run.body(), "hello");
  deepStrictEqual(consumed, text.length - "EXTRA".length);
  assert.ok(run.parser.done && run.parser.keepAlive);
  deepStrictEqual(run.parser.framing, "length");
  deepStrictEqual(run.parser.contentLength, 5);
  deepStrictEqual(run.heads[0].status, 200);
  deepStrictEqual(run.heads[0].reason, "OK");
});

Deno.test("HttpResponseParser accepts repeated identical Content-Length values and rejects conflicting ones", () => {
  const ok = setup();
  pushSplit(ok, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nhi");
  deepStrictEqual(ok.body(), "hi");
  const bad = setup();
  throws(() => pushSplit(bad, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nhi"), SyntaxError);
  throws(() => pushSplit(setup(), "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n"), SyntaxError);
});

Deno.test("HttpResponseParser reads close-delimited bodies until end of file", () => {
  const run = setup();
  pushSplit(run, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\npart one,", [20]);
  pushSplit(run, " part two");
  assert.ok(!run.parser.done);
  assert.ok(run.parser.finish());
  assert.ok(run.parser.done);
  assert.ok(!run.parser.keepAlive);
  deepStrictEqual(run.parser.framing, "close");
  deepStrictEqual(run.body(), "part one, part two");
});

Deno.test("HttpResponseParser reports a cut-short body when end of file arrives early", () => {
  const run = setup();
  pushSplit(run, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc");
  assert.ok(!run.parser.finish());
  deepStrictEqual(run.parser.phase, "body");
  deepStrictEqual(run.parser.bodyBytes, 3);
  const head = setup();
  pushSplit(head, "HTTP/1.1 200 OK\r\nContent-");
  assert.ok(!head.parser.finish());
  deepStrictEqual(head.parser.phase, "head");
});

Deno.test("HttpResponseParser skips 100 Continue and other interim responses", () => {
  const text = "HTTP/1.1 100 Continue\r\n\r\n" +
    "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" +
    "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok";
  for (let cut = 0; cut <= text.length; cut++) {
    const run = setup();
    pushSplit(run, text, [cut]);
    deepStrictEqual(run.heads.map((h) => [h.status, h.headers.has("link")]), [[201, false]], `split at ${cut}`);
    deepStrictEqual(run.body(), "ok");
  }
});

Deno.test("HttpResponseParser rejects a bad status line with a clear SyntaxError", () => {
  for (const line of ["HTTP/2 200 OK", "garbage", "HTTP/1.1 20 OK", "HTTP/1.1 099 Low", "ICY 200 OK"]) {
    throws(() => pushSplit(setup(), `${line}\r\n\r\n`), (e: unknown) => {
      assert.ok(e instanceof SyntaxError, line);
      assert.match(e.message, /status/, line);
      return true;
    });
  }
  throws(() => pushSplit(setup(), "HTTP/1.1 101 Switching Protocols\r\n\r\n"), SyntaxError);
});

Deno.test("HttpResponseParser lower-cases header names and joins repeated fields with a comma", () => {
  const run = setup();
  pushSplit(
    run,
    "HTTP/1.1 200 OK\r\nX-Multi: a\r\nx-multi:b\r\nX-Folded: one\r\n  two\r\nContent-Length:  0 \r\n\r\n",
  );
  const headers = run.heads[0].headers;
  deepStrictEqual(headers.get("x-multi"), "a, b");
  deepStrictEqual(headers.get("x-folded"), "one two");
  deepStrictEqual(headers.get("content-length"), "0");
  assert.ok(run.parser.done);
});

Deno.test("HttpResponseParser accepts LF-only line endings in the head and the chunked framing", () => {
  const run = setup();
  pushSplit(run, "HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n3\nabc\n0\n\n");
  deepStrictEqual(run.body(), "abc");
  assert.ok(run.parser.done);
});

Deno.test("HttpResponseParser decides keep-alive from the version and the Connection header", () => {
  const cases: [string, boolean][] = [
    ["HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", true],
    ["HTTP/1.1 200 OK\r\nConnection: Close\r\nContent-Length: 0\r\n\r\n", false],
    ["HTTP/1.1 200 OK\r\nConnection: upgrade, close\r\nContent-Length: 0\r\n\r\n", false],
    ["HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", false],
    ["HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n", true],
    ["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n", false],
  ];
  for (const [text, keepAlive] of cases) {
    const run = setup();
    pushSplit(run, text);
    assert.ok(run.parser.done, text);
    deepStrictEqual(run.parser.keepAlive, keepAlive, text);
  }
});

Deno.test("HttpResponseParser expects no body for 204, 304 and HEAD responses", () => {
  for (const status of [204, 304]) {
    const run = setup();
    const text = `HTTP/1.1 ${status} X\r\nContent-Length: 10\r\n\r\n`;
    deepStrictEqual(pushSplit(run, text), text.length);
    assert.ok(run.parser.done);
  }
  const head = setup(true);
  pushSplit(head, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n");
  assert.ok(head.parser.done);
  deepStrictEqual(head.parser.framing, "none");
});

Deno.test("HttpResponseParser rejects broken chunked framing", () => {
  const head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (const body of ["zz\r\n", "\r\nabc", "3\r\nabcd\r\n", "3\r\nabc\rX", "FFFFFFFFFFFFFFFF\r\n"]) {
    throws(() => pushSplit(setup(), head + body), SyntaxError, JSON.stringify(body));
  }
});

Deno.test("HttpResponseParser rejects header lines without a colon and oversized heads", () => {
  throws(() => pushSplit(setup(), "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n"), SyntaxError);
  throws(() => pushSplit(setup(), `HTTP/1.1 200 OK\r\nX: ${"a".repeat(300 * 1024)}`), SyntaxError);
});

Deno.test("HttpResponseParser can be restarted for the next response on a kept-alive connection", () => {
  const run = setup();
  pushSplit(run, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na");
  run.parser.start();
  assert.ok(!run.parser.done);
  pushSplit(run, "HTTP/1.1 404 Not Found\r\nContent-Length: 1\r\n\r\nb");
  deepStrictEqual(run.heads.map((h) => h.status), [200, 404]);
  deepStrictEqual(run.body(), "ab");
});

Deno.test("HttpResponseParser reads header bytes as ISO-8859-1, each byte one code point, lines of any length", () => {
  const run = setup();
  const long = "v".repeat(10_000);
  const head = enc.encode(`HTTP/1.1 200 Caf\xe9\r\nX-Bytes: ??\r\nX-Long: ${long}\r\nContent-Length: 0\r\n\r\n`);
  // "??" stands for two raw bytes outside ASCII and UTF-8: 0x80 (windows-1252 would read it as "€") and 0xff.
  const at = head.indexOf(0x3f);
  head[at] = 0x80;
  head[at + 1] = 0xff;
  run.parser.push(head, 0, head.length);
  deepStrictEqual(run.heads[0].reason, "Caf\u00c3\u00a9"); // the two UTF-8 bytes of "é", one code point each
  deepStrictEqual(run.heads[0].headers.get("x-bytes"), "\u0080\u00ff");
  deepStrictEqual(run.heads[0].headers.get("x-long"), long);
});

Deno.test("header lines seen before on a connection give the same fields as on a fresh parser", () => {
  // 100 responses on one parser: repeated lines, a changing date and length, lines that share a slot of the seen-line
  // table (x-m-0 … x-m-99 cannot all have their own among 64), a repeated field, a folded line and latin-1 bytes.
  const kept = setup();
  for (let i = 0; i < 100; i++) {
    const status = ["HTTP/1.1 200 OK", "HTTP/1.0 200 OK", "HTTP/1.1 201 Created", "HTTP/1.1 200 Fine"][i % 4];
    const head = `${status}\r\ncontent-type: application/json\r\ndate: Sat, 28 Nov 2026 18:09:` +
      `${String(i % 3).padStart(2, "0")} GMT\r\nX-N-${i % 7}: ${i % 5}\r\nx-m-${i}:  v\t\r\nVia: a\r\nvia: b\r\n` +
      `X-Long: one\r\n two\r\nX-Latin: caf\u00e9\r\ncontent-length: ${2 + i % 3}\r\n\r\nok${"k".repeat(i % 3)}`;
    const bytes = new Uint8Array([...head].map((c) => c.charCodeAt(0))); // latin-1, as servers send it
    const fresh = setup();
    fresh.parser.push(bytes, 0, bytes.length);
    kept.parser.start();
    kept.parser.push(bytes, 0, bytes.length);
    const got = kept.heads[kept.heads.length - 1];
    deepStrictEqual([...got.headers], [...fresh.heads[0].headers], `response ${i}`);
    deepStrictEqual([got.status, got.minorVersion, got.reason], [
      fresh.heads[0].status,
      fresh.heads[0].minorVersion,
      fresh.heads[0].reason,
    ]);
    assert.equal(got.headers.get("x-latin"), "caf\u00e9");
    assert.equal(got.headers.get("via"), "a, b");
    assert.equal(got.headers.get("x-long"), "one two");
    assert.equal(got.headers.get(`x-m-${i}`), "v");
  }
});

Deno.test("a header line is taken from the seen-line table only when every byte matches", () => {
  // 900 lines of one length that differ in their digits: many share a slot of the table, some differing in one byte.
  const kept = setup();
  for (let i = 0; i < 1800; i++) {
    const value = String(100 + (i * 7) % 900);
    const head = `HTTP/1.1 200 OK\r\nx-k: ${value}\r\ncontent-length: 0\r\n\r\n`;
    const bytes = new TextEncoder().encode(head);
    kept.parser.start();
    kept.parser.push(bytes, 0, bytes.length);
    assert.equal(kept.heads[kept.heads.length - 1].headers.get("x-k"), value);
  }
});

Deno.test("a kept-alive parser reads seeded heads whose lines change order, value and ending as a fresh one does", () => {
  let a = 77;
  const rand = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  // Lines of equal length that differ in a byte, a name or a value, as well as folded and bare-LF ones.
  const pool = [
    "content-type: application/json",
    "content-type: application/jsoN",
    "content-typf: application/json",
    "date: Sun, 29 Nov 2026 01:26:10 GMT",
    "date: Sun, 29 Nov 2026 01:26:11 GMT",
    "server: uvicorn",
    "x-a: 1",
    "x-a: 12",
    "server: uvicorm",
    "x-b: 1",
    "x-a: 2",
    "x-a:1",
    "Via: a",
    "via: b",
    " folded",
    "\tfolded",
  ];
  const kept = setup();
  for (let i = 0; i < 3000; i++) {
    const lines: string[] = [];
    const n = Math.floor(rand() * 6);
    for (let k = 0; k < n; k++) {
      const line = pool[Math.floor(rand() * (rand() < 0.7 ? 7 : pool.length))];
      if (lines.length === 0 && (line[0] === " " || line[0] === "\t")) continue;
      lines.push(line + (rand() < 0.2 ? "\n" : "\r\n"));
    }
    const body = "x".repeat(Math.floor(rand() * 3));
    const interim = rand() < 0.05 ? "HTTP/1.1 100 Continue\r\nx-a: 1\r\n\r\n" : "";
    const text = interim + (rand() < 0.5 ? "HTTP/1.1 200 OK\r\n" : "HTTP/1.1 201 Made\r\n") + lines.join("") +
      `content-length: ${body.length}\r\n\r\n${body}`;
    const cuts = rand() < 0.3 ? [1 + Math.floor(rand() * (text.length - 1))] : [];
    const fresh = setup();
    pushSplit(fresh, text, cuts);
    const heads = kept.heads.length;
    kept.parser.start();
    pushSplit(kept, text, cuts);
    assert.equal(kept.heads.length, heads + 1, text);
    const got = kept.heads[heads];
    const want = fresh.heads[0];
    deepStrictEqual([got.status, got.reason, [...got.headers]], [want.status, want.reason, [...want.headers]], text);
    assert.ok(kept.parser.done, text);
  }
});
