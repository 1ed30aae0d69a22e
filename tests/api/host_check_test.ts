import assert from "node:assert/strict";
import { hostName, isAllowedHost } from "../../src/api/host_check.ts";

Deno.test("hostName drops the port, IPv6 brackets, case and a trailing dot", () => {
  assert.equal(hostName("Example.COM:8080"), "example.com");
  assert.equal(hostName("[::1]:9097"), "::1");
  assert.equal(hostName("localhost."), "localhost");
  assert.equal(hostName("fe80::1"), "fe80::1");
});

Deno.test("isAllowedHost answers addresses, localhost, the bound name and allowed names only", () => {
  const policy = { boundHost: "127.0.0.1", allowedHosts: [] };
  for (const host of ["127.0.0.1:9097", "localhost", "LocalHost:1", "[::1]:9097", "x.localhost", "192.168.1.7", null]) {
    assert.ok(isAllowedHost(host, policy), String(host));
  }
  for (const host of ["attacker.example", "127.0.0.1.nip.io", "localhost.evil", "999.1.1.1", "[::1]evil"]) {
    assert.ok(!isAllowedHost(host, policy), host);
  }
  assert.ok(isAllowedHost("bench-node:9097", { boundHost: "bench-node", allowedHosts: [] }));
  const allowed = { boundHost: "0.0.0.0", allowedHosts: ["svc.ns.svc", ".corp.example"] };
  assert.ok(isAllowedHost("svc.ns.svc:9097", allowed));
  assert.ok(isAllowedHost("corp.example", allowed) && isAllowedHost("a.corp.example", allowed));
  assert.ok(!isAllowedHost("corp.example.evil", allowed) && !isAllowedHost("xcorp.example", allowed));
  assert.ok(isAllowedHost("anything", { boundHost: "127.0.0.1", allowedHosts: ["*"] }));
});
