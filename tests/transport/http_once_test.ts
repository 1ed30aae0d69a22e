import assert from "node:assert/strict";
import { getOnce, requestOnce } from "../../src/transport/http_once.ts";
import { parseTarget } from "../../src/transport/parse_target.ts";

/** A loopback server that answers with what it received. */
function echoServer(): { url: string; close: () => Promise<void> } {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const u = new URL(req.url);
    const body = req.method === "POST" ? await req.text() : "";
    return Response.json({
      method: req.method,
      path: u.pathname + u.search,
      auth: req.headers.get("authorization"),
      accept: req.headers.get("accept"),
      body,
    }, { status: u.pathname === "/missing" ? 404 : 200, headers: { "x-seen": "yes" } });
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, close: () => server.shutdown() };
}

const json = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes));

Deno.test("getOnce sends the URL's path and query, user info as Basic auth, and reads the whole answer", async () => {
  const s = echoServer();
  try {
    const withUser = s.url.replace("http://", "http://user:pw@");
    const r = await getOnce(`${withUser}/metrics?x=1&y=2`, [["Accept", "text/plain"]], 2000);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("x-seen"), "yes");
    const seen = json(r.body);
    assert.equal(seen.method, "GET");
    assert.equal(seen.path, "/metrics?x=1&y=2");
    assert.equal(seen.auth, `Basic ${btoa("user:pw")}`);
    assert.equal(seen.accept, "text/plain");
    assert.equal((await getOnce(`${s.url}/missing`, [], 2000)).status, 404, "a non-2xx answer is an answer");
  } finally {
    await s.close();
  }
});

Deno.test("requestOnce posts a body; a refused connection rejects with a reason", async () => {
  const s = echoServer();
  try {
    const r = await requestOnce(parseTarget(s.url), {
      method: "POST",
      path: "/v1/chat/completions",
      headers: [["Content-Type", "application/json"]],
      body: new TextEncoder().encode('{"a":1}'),
    }, 2000);
    assert.deepEqual(json(r.body).body, '{"a":1}');
  } finally {
    await s.close();
  }
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (closed.addr as Deno.NetAddr).port;
  closed.close();
  await assert.rejects(getOnce(`http://127.0.0.1:${port}/metrics`, [], 2000), /refused|connect/i);
});
