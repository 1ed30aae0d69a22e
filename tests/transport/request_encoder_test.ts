import { deepStrictEqual, equal, throws } from "node:assert/strict";
import { POOLED_REQUEST_BYTES, RequestEncoder } from "../../src/transport/request_encoder.ts";
import type { HttpRequest } from "../../src/transport/http_exchange.ts";

const dec = new TextDecoder();
const enc = new TextEncoder();

Deno.test("RequestEncoder writes request line, Host, own headers, Content-Length and body in one buffer", () => {
  const e = new RequestEncoder("example.test:8000", false);
  const req: HttpRequest = { method: "POST", path: "/v1/x", headers: [["A", "1"]], body: enc.encode("{}") };
  deepStrictEqual(
    dec.decode(e.encode(req)),
    "POST /v1/x HTTP/1.1\r\nHost: example.test:8000\r\nA: 1\r\nContent-Length: 2\r\n\r\n{}",
  );
  deepStrictEqual(
    dec.decode(e.encode({ method: "GET", path: "/m", headers: [] })),
    "GET /m HTTP/1.1\r\nHost: example.test:8000\r\n\r\n",
  );
  // A POST without a body still says its length.
  deepStrictEqual(
    dec.decode(e.encode({ method: "POST", path: "/p", headers: [] })),
    "POST /p HTTP/1.1\r\nHost: example.test:8000\r\nContent-Length: 0\r\n\r\n",
  );
});

Deno.test("RequestEncoder puts common headers first, caches them per array, and lets headers replace Host/Length/Connection", () => {
  const e = new RequestEncoder("h", true);
  const common: [string, string][] = [["Content-Type", "application/json"], ["Host", "other"]];
  const a = dec.decode(e.encode({ method: "POST", path: "/c", commonHeaders: common, headers: [["X", "1"]] }));
  deepStrictEqual(
    a,
    "POST /c HTTP/1.1\r\nContent-Type: application/json\r\nHost: other\r\nX: 1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
  );
  // The cache is keyed by the array: changing it afterwards is not seen (documented contract).
  common[0] = ["Content-Type", "text/plain"];
  const b = dec.decode(e.encode({ method: "POST", path: "/c", commonHeaders: common, headers: [["X", "2"]] }));
  deepStrictEqual(b, a.replace("X: 1", "X: 2"));
  // A different path re-encodes the request line.
  const c = dec.decode(e.encode({ method: "POST", path: "/d", commonHeaders: common, headers: [] }));
  deepStrictEqual(c.split("\r\n")[0], "POST /d HTTP/1.1");
  const own = dec.decode(e.encode({
    method: "POST",
    path: "/o",
    headers: [["content-length", "0"], ["CONNECTION", "keep-alive"]],
  }));
  deepStrictEqual(own, "POST /o HTTP/1.1\r\nHost: h\r\ncontent-length: 0\r\nCONNECTION: keep-alive\r\n\r\n");
});

Deno.test("RequestEncoder refuses bad paths and header injection with a clear error", () => {
  const e = new RequestEncoder("h", false);
  throws(() => e.encode({ method: "GET", path: "", headers: [] }), /empty or contains whitespace/);
  throws(() => e.encode({ method: "GET", path: "/a b", headers: [] }), /empty or contains whitespace/);
  throws(() => e.encode({ method: "GET", path: "/", headers: [["X", "a\r\nEvil: 1"]] }), /line break/);
  throws(() => e.encode({ method: "GET", path: "/", headers: [["X:Y", "1"]] }), /invalid name/);
  throws(() => e.encode({ method: "GET", path: "/", commonHeaders: [["", "1"]], headers: [] }), /invalid name/);
});

Deno.test("RequestEncoder encodes non-ASCII header values as UTF-8 and keeps the body bytes exact", () => {
  const e = new RequestEncoder("h", false);
  const body = new Uint8Array([0, 255, 10, 13]);
  const out = e.encode({ method: "POST", path: "/", headers: [["X", "é"]], body });
  const text = dec.decode(out.subarray(0, out.length - body.length));
  deepStrictEqual(text, "POST / HTTP/1.1\r\nHost: h\r\nX: é\r\nContent-Length: 4\r\n\r\n");
  deepStrictEqual(out.subarray(out.length - 4), body);
});

Deno.test("RequestEncoder reuses a released buffer, never one still held, and keeps each request's bytes intact", () => {
  const e = new RequestEncoder("h", false);
  const common: [string, string][] = [["Content-Type", "application/json"]];
  const req = (id: string, body: string): HttpRequest => ({
    method: "POST",
    path: "/v1/chat/completions",
    commonHeaders: common,
    headers: [["X-Request-ID", id]],
    body: enc.encode(body),
  });
  const fresh = (r: HttpRequest) => dec.decode(new RequestEncoder("h", false).encode(r));
  const a = e.encode(req("a", '{"x":1}'));
  const b = e.encode(req("b", '{"y":22}'));
  // Both held: two buffers, neither overwritten by the other.
  equal(a.buffer === b.buffer, false);
  equal(dec.decode(a), fresh(req("a", '{"x":1}')));
  equal(dec.decode(b), fresh(req("b", '{"y":22}')));
  e.release(a);
  const c = e.encode(req("c", '{"z":333}'));
  equal(c.buffer, a.buffer, "the released buffer is taken again");
  equal(dec.decode(c), fresh(req("c", '{"z":333}')));
  equal(dec.decode(b), fresh(req("b", '{"y":22}')), "a held request is untouched");
  // A request larger than the buffer released: a new one, right bytes; then a request over the pooled size.
  e.release(c);
  const long = "w".repeat(5000);
  const d = e.encode(req("d", long));
  equal(d.buffer === c.buffer, false);
  equal(dec.decode(d), fresh(req("d", long)));
  const huge = "h".repeat(POOLED_REQUEST_BYTES * 2);
  const f = e.encode(req("f", huge));
  equal(dec.decode(f), fresh(req("f", huge)));
  e.release(d);
  e.release(f);
  const g = e.encode(req("g", "{}"));
  equal(g.buffer, d.buffer, "a buffer over the pooled size is not kept");
});
