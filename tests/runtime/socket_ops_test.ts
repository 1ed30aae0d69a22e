import { deepStrictEqual } from "node:assert/strict";
import assert from "node:assert/strict";
import { socketOps } from "../../src/runtime/socket_ops.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** A connected loopback pair: `client` from Deno.connect, `server` its accepted end. */
async function pair(): Promise<{ client: Deno.Conn; server: Deno.Conn; close: () => void }> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const client = await Deno.connect({ hostname: "127.0.0.1", port: listener.addr.port });
  const server = await listener.accept();
  listener.close();
  return {
    client,
    server,
    close: () => {
      for (const c of [client, server]) {
        try {
          c.close();
        } catch {
          // Closed by the test already.
        }
      }
    },
  };
}

Deno.test("socketOps reaches the runtime's ops on this Deno, and the public methods when asked", async () => {
  // If this fails after a Deno upgrade, the engine has silently fallen back to Deno.Conn's wrappers.
  const { client, close } = await pair();
  try {
    deepStrictEqual([socketOps(client).direct, socketOps(client, false).direct], [true, false]);
  } finally {
    close();
  }
});

for (const direct of [true, false]) {
  Deno.test(`socketOps (${direct ? "direct" : "public"}) moves the same bytes in order, then reports end of stream`, async () => {
    const { client, server, close } = await pair();
    try {
      const io = socketOps(client, direct);
      deepStrictEqual(io.direct, direct);
      deepStrictEqual(await io.write(enc.encode("ping")), 4);
      const got = new Uint8Array(16);
      deepStrictEqual(dec.decode(got.subarray(0, (await server.read(got)) ?? 0)), "ping");
      // Two reads posted before any byte arrives complete in the order they were posted.
      const a = new Uint8Array(3);
      const b = new Uint8Array(64);
      const first = io.read(a);
      const second = io.read(b);
      await server.write(enc.encode("abcdefgh"));
      const n1 = await first;
      const n2 = await second;
      deepStrictEqual(dec.decode(a.subarray(0, n1 ?? 0)) + dec.decode(b.subarray(0, n2 ?? 0)), "abcdefgh");
      server.close();
      const end = await io.read(b);
      assert.ok(!end, `end of stream reads as null or 0, got ${end}`);
    } finally {
      close();
    }
  });

  Deno.test(`socketOps (${direct ? "direct" : "public"}): closing the socket rejects a pending read`, async () => {
    const { client, close } = await pair();
    try {
      const pending = socketOps(client, direct).read(new Uint8Array(64));
      client.close();
      await assert.rejects(pending);
    } finally {
      close();
    }
  });
}
