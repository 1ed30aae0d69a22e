import assert from "node:assert/strict";
import { BodySlab, SLAB_BODY_BYTES, SLAB_BYTES } from "../../src/transport/body_slab.ts";
import { HttpClient } from "../../src/transport/http_client.ts";
import { parseTarget } from "../../src/transport/parse_target.ts";
import { lengthResponse, startRawServer } from "./raw_server.ts";

Deno.test("BodySlab gives every body zeroed bytes of its own, across slabs", () => {
  const slab = new BodySlab();
  const taken: Uint8Array[] = [];
  // Sizes that do not divide the slab, so some bodies start a new one.
  for (let i = 0; i < 3 * SLAB_BYTES / 700; i++) {
    const body = slab.take(100 + (i * 37) % 1200);
    assert.ok(body.every((b) => b === 0), `body ${i} is not zeroed`);
    body.fill((i % 250) + 1);
    taken.push(body);
  }
  taken.forEach((body, i) => assert.ok(body.every((b) => b === (i % 250) + 1), `body ${i} was overwritten`));
  const big = slab.take(SLAB_BODY_BYTES + 1);
  assert.equal(big.length, SLAB_BODY_BYTES + 1);
  assert.equal(big.byteOffset, 0);
  assert.equal(big.buffer.byteLength, SLAB_BODY_BYTES + 1);
});

Deno.test("HttpClient bodies of kept-alive responses stay intact while later responses arrive", async () => {
  // Bodies of different sizes on 4 kept-alive connections: each must still hold its own bytes after all arrived.
  const bodyOf = (n: number) => `${n}:`.padEnd(50 + (n * 131) % 3000, String.fromCharCode(97 + n % 26));
  const server = startRawServer(async (conn) => {
    for (;;) {
      const req = await conn.readRequest();
      if (req === undefined) return;
      const n = Number(new URL(`http://x${req.path}`).searchParams.get("n"));
      await conn.write(lengthResponse(200, bodyOf(n)));
    }
  });
  const client = new HttpClient(parseTarget(`http://127.0.0.1:${server.port}`), { maxConnections: 4 });
  try {
    const bodies: Uint8Array[] = [];
    for (let round = 0; round < 40; round++) {
      const exs = await Promise.all(
        [0, 1, 2, 3].map((k) => client.send({ method: "GET", path: `/?n=${round * 4 + k}`, headers: [] })),
      );
      for (const ex of exs) {
        assert.equal(ex.error, undefined);
        bodies.push(ex.body!);
      }
    }
    const dec = new TextDecoder();
    const got = bodies.map((b) => dec.decode(b)).sort((a, b) => Number(a.split(":")[0]) - Number(b.split(":")[0]));
    got.forEach((text, n) => assert.equal(text, bodyOf(n), `body ${n}`));
  } finally {
    client.close();
    await server.close();
  }
});
