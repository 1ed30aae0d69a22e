import assert from "node:assert/strict";
import {
  isSecretHeaderName,
  isSecretKeyName,
  isSecretQueryName,
  redactHeaders,
  redactSecretKeys,
  redactUrl,
} from "../../src/base/redact_secrets.ts";

Deno.test("isSecretHeaderName catches credential headers outside any fixed list and keeps harmless ones", () => {
  for (
    const name of [
      "Authorization",
      "X-My-Key",
      "x-functions-key",
      "X-Subscription-Key",
      "Ocp-Apim-Subscription-Key",
      "X-Amz-Security-Token",
      "X-Vault-Secret",
      "Cookie",
      "X-Hub-Signature-256",
      "X-Db-Password",
      "X-Client-Credential",
    ]
  ) assert.ok(isSecretHeaderName(name), name);
  for (const name of ["Content-Type", "Accept", "User-Agent", "X-Request-ID", "X-Trace-Tag", "Keep-Alive"]) {
    assert.ok(!isSecretHeaderName(name), name);
  }
  assert.ok(isSecretHeaderName("X-Tenant", ["x-tenant"]), "--redact-header names, case-insensitive");
  assert.deepEqual(redactHeaders([["X-Tenant", "t"], ["X-Trace-Tag", "v"], ["X-My-Key", "k"]], ["X-TENANT"]), [
    ["X-Tenant", "<redacted>"],
    ["X-Trace-Tag", "v"],
    ["X-My-Key", "<redacted>"],
  ]);
});

Deno.test("isSecretKeyName matches secret-looking field names by their last word only", () => {
  for (
    const name of ["api_key", "apiKey", "password", "client_secret", "clientSecret", "hf_token", "auth", "x-api-key"]
  ) assert.ok(isSecretKeyName(name), name);
  for (const name of ["max_tokens", "token_ids", "top_k", "monkey", "temperature", "keys", "stream"]) {
    assert.ok(!isSecretKeyName(name), name);
  }
  assert.ok(isSecretQueryName("sig") && isSecretQueryName("code") && isSecretQueryName("X-Amz-Credential"));
  assert.ok(!isSecretQueryName("format"));
});

Deno.test("redactUrl hides the whole userinfo, even a password holding @ or /, and secret query values", () => {
  assert.equal(redactUrl("http://user:p@ss@127.0.0.1:8000/v1"), "http://<redacted>@127.0.0.1:8000/v1");
  assert.equal(redactUrl("http://user:pw/x@host:1"), "http://<redacted>@host:1");
  assert.equal(redactUrl("user:p w@host:8000"), "<redacted>@host:8000");
  assert.equal(redactUrl("http://localhost:8000/v1"), "http://localhost:8000/v1");
  assert.equal(
    redactUrl("http://h/m?format=text&api_key=k&sig=s&code=c&X-Amz-Signature=z"),
    "http://h/m?format=text&api_key=<redacted>&sig=<redacted>&code=<redacted>&X-Amz-Signature=<redacted>",
  );
  assert.equal(redactUrl("http://h/?access%5Ftoken=t"), "http://h/?access%5Ftoken=<redacted>");
});

Deno.test("redactSecretKeys redacts at any depth and returns the value itself when it holds no secret", () => {
  const clean = { model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 5 };
  assert.equal(redactSecretKeys(clean), clean);
  const body = { model: "m", api_key: "k", extra: [{ password: "p", n: 1 }], nested: { clientSecret: { a: 1 } } };
  assert.deepEqual(redactSecretKeys(body), {
    model: "m",
    api_key: "<redacted>",
    extra: [{ password: "<redacted>", n: 1 }],
    nested: { clientSecret: "<redacted>" },
  });
  assert.equal(body.api_key, "k", "the input is not changed");
});
