import { deepStrictEqual, throws } from "node:assert/strict";
import assert from "node:assert/strict";
import { parseTarget } from "../../src/transport/parse_target.ts";

Deno.test("parseTarget assumes http when the scheme is missing", () => {
  deepStrictEqual(parseTarget("localhost:8000"), {
    scheme: "http",
    hostname: "localhost",
    port: 8000,
    hostHeader: "localhost:8000",
    basePath: "",
  });
});

Deno.test("parseTarget uses default ports 80 and 443 and leaves them out of the Host header", () => {
  const http = parseTarget("http://example.test");
  deepStrictEqual([http.port, http.hostHeader], [80, "example.test"]);
  const https = parseTarget("HTTPS://Example.Test/");
  deepStrictEqual([https.scheme, https.port, https.hostname, https.hostHeader], [
    "https",
    443,
    "example.test",
    "example.test",
  ]);
  deepStrictEqual(parseTarget("https://h:8443").hostHeader, "h:8443");
});

Deno.test("parseTarget unbrackets IPv6 hosts for connecting and keeps brackets in the Host header", () => {
  const t = parseTarget("[::1]:8000");
  deepStrictEqual([t.hostname, t.port, t.hostHeader], ["::1", 8000, "[::1]:8000"]);
  deepStrictEqual(parseTarget("https://[::1]/v1").hostname, "::1");
});

Deno.test("parseTarget keeps the base path without trailing slashes", () => {
  deepStrictEqual(parseTarget("http://h:1/").basePath, "");
  deepStrictEqual(parseTarget("http://h:1/proxy/v1//").basePath, "/proxy/v1");
  deepStrictEqual(parseTarget("h:1/a%20b").basePath, "/a%20b");
});

Deno.test("parseTarget moves URL credentials into a Basic authorization value and nowhere else", () => {
  const t = parseTarget("http://user:p%40ss@host:9000/base");
  deepStrictEqual(t.authorization, `Basic ${btoa("user:p@ss")}`);
  deepStrictEqual([t.hostname, t.hostHeader, t.basePath], ["host", "host:9000", "/base"]);
  assert.ok(!JSON.stringify({ ...t, authorization: undefined }).includes("p%40ss"));
  deepStrictEqual(parseTarget("http://only@host").authorization, `Basic ${btoa("only:")}`);
  deepStrictEqual("authorization" in parseTarget("http://host"), false);
});

Deno.test("parseTarget rejects garbage with a TypeError naming the value and the fix", () => {
  const bad = [
    "",
    "   ",
    "ftp://host",
    "http://",
    "http://h:0",
    "http://h:99999",
    "http://a b",
    "http://h/p?q=1",
    "h/#x",
  ];
  for (const url of bad) {
    throws(() => parseTarget(url), (e: unknown) => {
      assert.ok(e instanceof TypeError, url);
      assert.match(e.message, /; /, url);
      return true;
    });
  }
});

Deno.test("parseTarget never echoes a password in its error messages", () => {
  throws(() => parseTarget("ftp://user:secret@host"), (e: unknown) => {
    assert.ok(e instanceof TypeError);
    assert.ok(!e.message.includes("secret"), e.message);
    return true;
  });
});

Deno.test("parseTarget rejects a scheme with a broken // instead of reading it as a host name", () => {
  for (const bad of ["htp:/127.0.0.1", "http:/127.0.0.1:8000", "http:localhost", "https:\\\\host"]) {
    assert.throws(() => parseTarget(bad), /starts with "\w+:" but not "\w+:\/\/"/, bad);
  }
  // host:port without a scheme stays valid.
  assert.deepStrictEqual(parseTarget("localhost:8000").hostname, "localhost");
  assert.deepStrictEqual(parseTarget("127.0.0.1:9").port, 9);
});
