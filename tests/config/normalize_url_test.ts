import assert from "node:assert/strict";
import { normalizeUrl } from "../../src/config/normalize_url.ts";

Deno.test("normalizeUrl adds http:// to a bare host and drops a trailing slash", () => {
  assert.equal(normalizeUrl("localhost:8000"), "http://localhost:8000");
  assert.equal(normalizeUrl("127.0.0.1:8000/v1/"), "http://127.0.0.1:8000/v1");
  assert.equal(normalizeUrl("[::1]:8000"), "http://[::1]:8000");
  assert.equal(normalizeUrl("user:secret@host:1"), "http://user:secret@host:1");
  assert.equal(normalizeUrl("https://h/"), "https://h");
});

Deno.test("normalizeUrl refuses a mistyped scheme instead of taking it for the host", () => {
  for (
    const [value, meant] of [
      ["htp//localhost:8000", "http://localhost:8000"],
      ["http:/localhost:8000", "http://localhost:8000"],
      ["https:localhost", "http://localhost"],
      ["htp://x", undefined], // a well-formed scheme that is not HTTP: its own message
    ] as const
  ) {
    assert.throws(() => normalizeUrl(value), (e: unknown) => {
      assert.ok(e instanceof TypeError);
      if (meant !== undefined) assert.match(e.message, new RegExp(`not a well-formed URL: .*write it as ${meant} `));
      else assert.match(e.message, /uses htp, which is not supported/);
      return true;
    });
  }
});
