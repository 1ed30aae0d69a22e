import assert from "node:assert/strict";
import { join } from "node:path";
import { readRunBundle } from "../../src/dataset/run_bundle.ts";
import { bundleConversations } from "../../src/dataset/run_bundle_loader.ts";
import { DatasetError } from "../../src/dataset/dataset_error.ts";
import { request, runInfo, writeBundle } from "./run_bundle_fixture.ts";

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const TWO = [request({ session: 0 }), request({ session: 1, start_offset_ms: 3 })];

Deno.test("run bundle reads back its run info and requests when every member matches its manifest", () =>
  withDir(async (dir) => {
    const path = join(dir, "run.bundle.tar.gz");
    await writeBundle(path, { run: runInfo({ requests: 2, sessions: 2 }), requests: TWO });
    const bundle = await readRunBundle(path);
    assert.equal(bundle.run.replay.requests, 2);
    assert.deepEqual(bundle.requests, TWO);
    assert.equal(bundle.manifest.members.length, 2);
  }));

Deno.test("run bundle refuses a member changed after it was hashed, naming the member", () =>
  withDir(async (dir) => {
    const path = join(dir, "run.bundle.tar.gz");
    // Same length, one byte different: only the hash can tell.
    await writeBundle(path, {
      run: runInfo(),
      requests: TWO,
      tamper: (name, bytes) => name === "requests.jsonl" ? bytes.map((b, i) => i === 60 ? b ^ 1 : b) : bytes,
    });
    await assert.rejects(readRunBundle(path), (err: Error) => {
      assert.ok(err instanceof DatasetError);
      assert.match(err.message, /member requests\.jsonl does not match its SHA-256 in the manifest \(altered\)/);
      return true;
    });
  }));

Deno.test("run bundle refuses a truncated file, an unlisted member, a foreign file and a newer schema", () =>
  withDir(async (dir) => {
    const path = join(dir, "run.bundle.tar.gz");
    await writeBundle(path, { run: runInfo(), requests: TWO });
    const whole = await Deno.readFile(path);
    const cut = join(dir, "cut.bundle.tar.gz");
    await Deno.writeFile(cut, whole.subarray(0, whole.length - 10));
    await assert.rejects(readRunBundle(cut), /cut\.bundle\.tar\.gz: is not a complete run bundle: its gzip stream/);
    const extra = join(dir, "extra.bundle.tar.gz");
    await writeBundle(extra, { run: runInfo(), requests: TWO, unlisted: ["evil.json"] });
    await assert.rejects(readRunBundle(extra), /holds member evil\.json, which its manifest does not list/);
    const text = join(dir, "text.bundle.tar.gz");
    await Deno.writeTextFile(text, "not a bundle");
    await assert.rejects(readRunBundle(text), /invalid gzip header/);
    const newer = join(dir, "newer.bundle.tar.gz");
    await writeBundle(newer, { run: runInfo(), requests: TWO, schemaVersion: 2 });
    await assert.rejects(readRunBundle(newer), /written by a newer infermeter .*schema 2/);
  }));

Deno.test("run bundle refuses a requests line without what a replay needs, naming the line", () =>
  withDir(async (dir) => {
    const path = join(dir, "run.bundle.tar.gz");
    const { body: _, ...noBody } = request({ session: 1 });
    await writeBundle(path, { run: runInfo(), requests: [TWO[0], noBody as typeof TWO[0]] });
    await assert.rejects(readRunBundle(path), /requests\.jsonl:2: "body" is missing/);
  }));

Deno.test("bundle conversations: a session's turns in order, sessions by start, bodies verbatim, delays scaled", () =>
  withDir(async (dir) => {
    const path = join(dir, "run.bundle.tar.gz");
    const requests = [
      request({ session: 4, turn: 1, request_index: 3, delay_ms: 200, start_offset_ms: 250, body: '{"b":1.0}' }),
      request({ session: 4, turn: 0, request_index: 1, start_offset_ms: 20 }),
      request({ session: 2, turn: 0, request_index: 0, start_offset_ms: 0, conversation_id: "c4" }),
    ];
    await writeBundle(path, { run: runInfo({ loop: "closed" }), requests });
    const conversations = bundleConversations(await readRunBundle(path), 0.5);
    assert.deepEqual(conversations.map((c) => c.id), ["c4", "c4#2"], "a conversation sent twice keeps two ids");
    assert.deepEqual(conversations[1].turns.map((t) => t.rawPayload), [requests[1].body, '{"b":1.0}']);
    assert.equal(conversations[1].turns[1].delayMs, 100);
    assert.equal(conversations[1].turns[0].timestampMs, undefined, "a closed loop has no schedule");
    assert.equal(conversations[1].contextMode, "message_array_with_responses");
  }));

Deno.test("bundle conversations of an open loop carry each turn's scheduled offset, scaled", () =>
  withDir(async (dir) => {
    const path = join(dir, "run.bundle.tar.gz");
    const requests = [
      request({ session: 1, turn: 0, scheduled_offset_ms: 50, start_offset_ms: 50.4 }),
      request({ session: 0, turn: 0, scheduled_offset_ms: 0, start_offset_ms: 0.2 }),
      request({ session: 0, turn: 1, scheduled_offset_ms: 120, start_offset_ms: 121, delay_ms: 100 }),
    ];
    await writeBundle(path, { run: runInfo({ loop: "open" }), requests });
    const conversations = bundleConversations(await readRunBundle(path), 2);
    assert.deepEqual(conversations.map((c) => c.turns.map((t) => t.timestampMs)), [[0, 240], [100]]);
  }));
