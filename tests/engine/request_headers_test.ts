import assert from "node:assert/strict";
import { credentialNotices, endpointPath, requestHeaders, targetPath } from "../../src/engine/request_headers.ts";
import { parseTarget } from "../../src/transport/parse_target.ts";
import { CHAT_ADAPTER } from "../../src/endpoints/openai/chat.ts";

const chatHeaders = (streaming: boolean, apiKey?: string) => CHAT_ADAPTER.headers({ streaming, apiKey });

Deno.test("targetPath drops a repeated /v1 only for the default endpoint path", () => {
  assert.equal(targetPath("/v1", "/v1/chat/completions", false), "/v1/chat/completions");
  assert.equal(targetPath("/proxy/v1", "/v1/completions", false), "/proxy/v1/completions");
  assert.equal(targetPath("/v1", "/v1/chat/completions", true), "/v1/v1/chat/completions");
  assert.equal(targetPath("/proxy", "/v1/chat/completions", false), "/proxy/v1/chat/completions");
  assert.equal(targetPath("", "/v1/completions", false), "/v1/completions");
});

Deno.test("endpointPath adds the leading slash", () => {
  assert.equal(endpointPath("v1/custom"), "/v1/custom");
  assert.equal(endpointPath("/v1/custom"), "/v1/custom");
});

Deno.test("request headers: defaults, bearer key, user headers override but never Content-Type or Host", () => {
  const headers = requestHeaders(parseTarget("http://127.0.0.1:8000"), {
    endpointHeaders: chatHeaders(true, "k"),
    userHeaders: [["content-type", "text/plain"], ["X-Extra", "1"], ["User-Agent", "me"], ["Host", "evil"]],
  });
  const map = new Map(headers.map(([k, v]) => [k.toLowerCase(), v]));
  assert.equal(map.get("content-type"), "application/json");
  assert.equal(map.get("accept"), "text/event-stream");
  assert.equal(map.get("authorization"), "Bearer k");
  assert.equal(map.get("x-extra"), "1");
  assert.equal(map.get("user-agent"), "me");
  assert.equal(map.has("host"), false);
});

Deno.test("request headers carry URL user info as Basic auth unless an API key is given", () => {
  const target = parseTarget("http://user:pw@127.0.0.1:8000");
  const basic = new Map(requestHeaders(target, { endpointHeaders: chatHeaders(false), userHeaders: [] }));
  assert.match(basic.get("Authorization") ?? "", /^Basic /);
  assert.equal(basic.get("Accept"), "application/json");
  const bearer = new Map(requestHeaders(target, { endpointHeaders: chatHeaders(false, "k"), userHeaders: [] }));
  assert.equal(bearer.get("Authorization"), "Bearer k");
});

Deno.test("credentialNotices says which credential wins, naming sources and never values", () => {
  const plain = parseTarget("http://127.0.0.1:8000");
  const withUser = parseTarget("http://u:secret-pw@127.0.0.1:8000");
  const key: [string, string][] = [["Authorization", "Bearer sk-secret"]];
  const userAuth: [string, string][] = [["authorization", "Bearer mine-secret"]];
  assert.deepStrictEqual(credentialNotices(plain, { endpointHeaders: [], userHeaders: [] }), []);
  assert.deepStrictEqual(credentialNotices(plain, { endpointHeaders: key, userHeaders: [] }), []);
  assert.deepStrictEqual(credentialNotices(plain, { endpointHeaders: key, userHeaders: userAuth }), [
    "-H Authorization wins over --api-key: the --api-key value is not sent.",
  ]);
  assert.deepStrictEqual(credentialNotices(withUser, { endpointHeaders: key, userHeaders: [] }), [
    "--api-key wins over the URL's user:password, which is not sent.",
  ]);
  const both = credentialNotices(withUser, { endpointHeaders: key, userHeaders: userAuth });
  assert.deepStrictEqual(both.length, 2);
  for (const n of both) assert.ok(!/secret/.test(n));
});
