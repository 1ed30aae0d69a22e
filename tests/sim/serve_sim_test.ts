import assert from "node:assert/strict";
import { runServeSim, type ServeSimIo } from "../../src/cli/serve_sim.ts";
import type { SimServer } from "../../src/sim/sim_server.ts";
import { readRequestJournal } from "../../src/sim/read_request_journal.ts";
import { oracleTokenizer } from "./oracle_tokenizer.ts";
import { makeApp } from "./sim_test_helpers.ts";
import { startSim } from "../e2e/cli_harness.ts";

const MAIN_TS = new URL("../../main.ts", import.meta.url);

interface Captured {
  readonly io: ServeSimIo;
  readonly out: string[];
  readonly err: string[];
}

function capture(extra: Partial<ServeSimIo> = {}): Captured {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: (t) => out.push(t), stderr: (t) => err.push(t), tokenizer: oracleTokenizer(), ...extra },
    out,
    err,
  };
}

Deno.test("serve-sim --help lists every option and exits 0", async () => {
  const c = capture();
  assert.equal(await runServeSim(["--help"], c.io), 0);
  const help = c.out.join("");
  for (
    const flag of [
      "--host",
      "--port",
      "--models",
      "--strict-model",
      "--api-key",
      "--ttft",
      "--itl",
      "--ttft-jitter",
      "--itl-jitter",
      "--tokens-per-chunk",
      "--fast",
      "--max-default-tokens",
      "--eos-rate",
      "--reasoning",
      "--reasoning-tokens",
      "--error-rate",
      "--seed",
      "--emit-send-times",
      "--shutdown-grace",
      "--record-requests",
    ]
  ) {
    assert.ok(help.includes(flag), `help lacks ${flag}`);
  }
  assert.match(help, /sim_sent_at_ms/);
  assert.match(help, /received_at_ms/);
});

Deno.test("serve-sim rejects invalid values with one stderr line and exit code 2", async () => {
  for (
    const args of [
      ["--ttft", "abc"],
      ["--port", "70000"],
      ["--port", "1.5"],
      ["--error-rate", "101"],
      ["--eos-rate", "2"],
      ["--tokens-per-chunk", "0"],
      ["--itl", "-1"],
      ["--max-default-tokens", "8"],
      ["--seed", "-3"],
      ["--models", ","],
      ["--no-such-flag"],
      ["extra-argument"],
    ]
  ) {
    const c = capture();
    assert.equal(await runServeSim(args, c.io), 2, args.join(" "));
    const err = c.err.join("");
    assert.equal(err.trimEnd().split("\n").length, 1, `${args.join(" ")}: ${err}`);
    assert.match(err, /^error: /);
    assert.deepEqual(c.out, []);
  }
});

Deno.test("serve-sim prints one listening line, serves, and exits 0 when stopped", async () => {
  const stop = new AbortController();
  let server: SimServer | undefined;
  const c = capture({ signal: stop.signal, onListening: (s) => (server = s) });
  const exit = runServeSim(["--port", "0", "--fast", "--models", "a,b", "--seed", "9"], c.io);
  const deadline = performance.now() + 5000;
  while (server === undefined && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  assert.ok(server);
  assert.equal(c.out.length, 1);
  const match = c.out[0].match(/^serve-sim listening on http:\/\/127\.0\.0\.1:(\d+)\n$/);
  assert.ok(match, c.out[0]);
  assert.equal(Number(match[1]), server.port);
  const models = await (await fetch(`${server.url}/v1/models`)).json() as { data: { id: string }[] };
  assert.deepEqual(models.data.map((m) => m.id), ["a", "b"]);
  stop.abort();
  assert.equal(await exit, 0);
  assert.deepEqual(c.err, []);
});

Deno.test("serve-sim reports an address in use with exit code 2", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const c = capture();
    const port = (listener.addr as Deno.NetAddr).port;
    assert.equal(await runServeSim(["--port", String(port)], c.io), 2);
    assert.match(c.err.join(""), /^error: cannot listen on 127\.0\.0\.1:\d+: .*choose another --port\.\n$/);
  } finally {
    listener.close();
  }
});

Deno.test("serve-sim reports a request journal it cannot create with exit code 2", async () => {
  const c = capture();
  const file = "/nonexistent-dir-for-journal/requests.jsonl";
  assert.equal(await runServeSim(["--port", "0", "--record-requests", file], c.io), 2);
  const err = c.err.join("");
  assert.equal(err.trimEnd().split("\n").length, 1, err);
  assert.match(err, /^error: cannot open the request journal \/nonexistent-dir-for-journal\/requests\.jsonl: /);
  assert.deepEqual(c.out, []);
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.test(`serve-sim --record-requests has every request in the journal after ${signal}`, async () => {
    const dir = await Deno.makeTempDir();
    const file = `${dir}/journal.jsonl`;
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN_TS.pathname, "serve-sim", "--port", "0", "--fast", "--record-requests", file],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const stderr = new Response(child.stderr).text();
    const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    try {
      let out = "";
      while (!out.includes("\n")) {
        const { value, done } = await lines.read();
        if (done) break;
        out += value;
      }
      const url = out.match(/listening on (http:\/\/\S+)/)?.[1];
      assert.ok(url, `no listening line: ${out}`);
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${url}/v1/completions`, {
          method: "POST",
          body: JSON.stringify({ prompt: `line ${i}`, max_tokens: 1 }),
        });
        await res.text();
      }
      child.kill(signal);
      const status = await child.status;
      assert.equal(status.code, 0, await stderr);
      const entries = await readRequestJournal(file);
      assert.deepEqual(entries.map((e) => (e.body as { prompt: string }).prompt), ["line 0", "line 1", "line 2"]);
    } finally {
      await lines.cancel();
      await stderr;
      try {
        child.kill("SIGKILL");
      } catch {
        // Already exited.
      }
      await child.status;
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("serve-sim --help lists every route the server answers", async () => {
  const c = capture();
  assert.equal(await runServeSim(["--help"], c.io), 0);
  const help = c.out.join("").replace(/\s+/g, " ");
  const { app } = makeApp({ dcgmGpus: 1 });
  const served = app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method} ${r.path}`);
  assert.ok(served.length >= 25, `${served.length} routes`);
  for (const route of new Set(served)) assert.match(help, new RegExp(`${route.replace(/[/.]/g, "\\$&")}[,. ]`), route);
  assert.match(help, /--slots, --max-num-seqs <n>/);
});

Deno.test("serve-sim --record-requests: /tokenize and /detokenize answer, and the journal has them", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/journal.jsonl`;
    {
      await using sim = await startSim(["--record-requests", file]);
      const tokenized = await fetch(`${sim.url}/tokenize`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ prompt: "hello there" }),
      });
      assert.equal(tokenized.status, 200);
      const { tokens, count } = await tokenized.json();
      assert.equal(count, tokens.length);
      const detokenized = await fetch(`${sim.url}/detokenize`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ tokens }),
      });
      assert.equal(detokenized.status, 200);
      assert.deepEqual(await detokenized.json(), { prompt: "hello there" });
    }
    const entries = await readRequestJournal(file);
    assert.deepEqual(entries.map((e) => e.path), ["/tokenize", "/detokenize"]);
    assert.deepEqual(entries[0].body, { prompt: "hello there" });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
