import assert from "node:assert/strict";
import { DatasetError } from "../../src/dataset/dataset_error.ts";
import { canLoadSingleTurn, loadSingleTurn, singleTurnLoader } from "../../src/dataset/single_turn_loader.ts";

const dir = await Deno.makeTempDir({ prefix: "single_turn_" });
let fileCounter = 0;

async function fileWith(lines: readonly string[]): Promise<string> {
  const path = `${dir}/inputs_${fileCounter++}.jsonl`;
  await Deno.writeTextFile(path, lines.join("\n") + "\n");
  return path;
}

/** Assert that loading `lines` fails with exactly `file:line: reason`. */
async function assertLineError(lines: readonly string[], line: number, reason: string): Promise<void> {
  const path = await fileWith(lines);
  await assert.rejects(loadSingleTurn(path), (error: unknown) => {
    assert.ok(error instanceof DatasetError, String(error));
    assert.ok(error.message.startsWith(`${path}:${line}: ${reason} — the line reads: `), error.message);
    assert.equal(error.file, path);
    assert.equal(error.line, line);
    assert.ok(error.reason.startsWith(reason), error.reason);
    return true;
  });
}

Deno.test("single_turn loader makes one one-turn conversation per line, in order", async () => {
  const path = await fileWith([
    '{"text": "What is deep learning?"}',
    "",
    '{"texts": ["Who are you?", "Hello world"]}',
    "   ",
    '{"texts": [{"name": "query", "contents": ["a", "b"]}, {"name": "passages", "contents": ["c"]}]}',
  ]);
  const dataset = await loadSingleTurn(path);
  assert.equal(dataset.source, "file");
  assert.equal(dataset.defaultSampling, "sequential");
  assert.deepEqual(dataset.conversations, [
    { id: "line_1", turns: [{ texts: ["What is deep learning?"] }] },
    { id: "line_3", turns: [{ texts: ["Who are you?", "Hello world"] }] },
    { id: "line_5", turns: [{ texts: ["a", "b", "c"] }] },
  ]);
});

Deno.test("single_turn loader maps every optional field onto the turn", async () => {
  const path = await fileWith([
    JSON.stringify({
      text: "hi",
      role: "user",
      output_length: 64,
      extra: { temperature: 0, nested: { a: [1] } },
      timestamp: 1500.5,
      model: "model-b",
      type: "single_turn",
      unknown_field: "ignored",
    }),
    JSON.stringify({ text: "later", delay: 250 }),
    JSON.stringify({ text: "nulls are absent", role: null, output_length: null, timestamp: null, delay: 5 }),
  ]);
  const dataset = await loadSingleTurn(path);
  assert.deepEqual(dataset.conversations.map((c) => c.turns[0]), [
    {
      texts: ["hi"],
      role: "user",
      maxTokens: 64,
      extra: { temperature: 0, nested: { a: [1] } },
      timestampMs: 1500.5,
      model: "model-b",
    },
    { texts: ["later"], delayMs: 250 },
    { texts: ["nulls are absent"], delayMs: 5 },
  ]);
});

Deno.test("single_turn loader groups lines that share a session_id into one conversation sent line by line", async () => {
  const path = await fileWith([
    '{"session_id": "s1", "text": "one"}',
    '{"text": "alone"}',
    '{"session_id": "s2", "text": "two"}',
    '{"session_id": "s1", "text": "three", "delay": 100}',
    '{"session_id": "line_5", "text": "a user id that looks generated"}',
    '{"text": "anonymous on line 6"}',
  ]);
  const dataset = await loadSingleTurn(path);
  assert.deepEqual(dataset.conversations, [
    {
      id: "s1",
      turns: [{ texts: ["one"] }, { texts: ["three"], delayMs: 100 }],
      contextMode: "message_array_with_responses", // each line is sent as written, in order
    },
    { id: "line_2", turns: [{ texts: ["alone"] }] },
    { id: "s2", turns: [{ texts: ["two"] }] },
    { id: "line_5", turns: [{ texts: ["a user id that looks generated"] }] },
    { id: "line_6", turns: [{ texts: ["anonymous on line 6"] }] },
  ]);
});

Deno.test("single_turn loader never reuses a user's session_id for an anonymous line", async () => {
  const path = await fileWith(['{"text": "anonymous"}', '{"session_id": "line_1", "text": "named"}']);
  const ids = (await loadSingleTurn(path)).conversations.map((c) => c.id);
  assert.deepEqual(ids, ["line_1_2", "line_1"]);
});

Deno.test("single_turn loader reports invalid JSON with the parser's reason", async () => {
  const path = await fileWith(['{"text": "ok"}', '{"text": "missing brace"']);
  await assert.rejects(loadSingleTurn(path), (error: unknown) => {
    assert.ok(error instanceof DatasetError);
    assert.equal(error.line, 2);
    assert.match(
      error.message,
      new RegExp(`^${path}:2: invalid JSON \\(.+\\); each line must hold one JSON object — the line reads: .+$`),
    );
    assert.ok(error.cause instanceof SyntaxError);
    return true;
  });
});

Deno.test("single_turn loader names the line and the problem for records of the wrong shape", async () => {
  const ok = '{"text": "fine"}';
  await assertLineError([ok, ok, "[1, 2]"], 3, 'expected a JSON object with "text" or "texts" (got an array)');
  await assertLineError(
    ['"just a string"'],
    1,
    'expected a JSON object with "text" or "texts" (got the string "just a string")',
  );
  await assertLineError(["null"], 1, 'expected a JSON object with "text" or "texts" (got null)');
  await assertLineError(['{"prompt": "x"}'], 1, 'expected "text" or "texts" with the prompt (found neither)');
  await assertLineError(['{"text": 5}'], 1, '"text" must be a string (got the number 5)');
  await assertLineError(['{"text": ""}'], 1, '"text" is empty; give every line a non-empty prompt');
  await assertLineError(
    ['{"text": "a", "texts": ["b"]}'],
    1,
    '"text" and "texts" cannot both be set; keep one of them',
  );
  await assertLineError(
    ['{"texts": []}'],
    1,
    '"texts" must be a non-empty list of strings or {"name", "contents"} objects (got an array)',
  );
  await assertLineError(
    ['{"texts": "abc"}'],
    1,
    '"texts" must be a non-empty list of strings or {"name", "contents"} objects (got the string "abc")',
  );
  await assertLineError(
    ['{"texts": ["a", 7]}'],
    1,
    '"texts"[1] must be a string or a {"name", "contents"} object (got the number 7)',
  );
  await assertLineError(
    ['{"texts": [{"name": "q"}]}'],
    1,
    '"texts"[0].contents must be a list of strings (got nothing)',
  );
  await assertLineError(
    ['{"texts": [{"name": 1, "contents": []}]}'],
    1,
    '"texts"[0].name must be a string (got the number 1)',
  );
  await assertLineError(
    ['{"texts": [{"contents": ["a", false]}]}'],
    1,
    '"texts"[0].contents[1] must be a string (got false)',
  );
  await assertLineError(
    ['{"texts": [{"contents": []}]}'],
    1,
    '"texts" holds no text; give every line at least one prompt',
  );
});

Deno.test("single_turn loader validates the optional fields", async () => {
  await assertLineError(
    ['{"text": "x", "output_length": 0}'],
    1,
    '"output_length" must be a positive integer (got the number 0)',
  );
  await assertLineError(
    ['{"text": "x", "output_length": 2.5}'],
    1,
    '"output_length" must be a positive integer (got the number 2.5)',
  );
  await assertLineError(
    ['{"text": "x", "output_length": "9"}'],
    1,
    '"output_length" must be a positive integer (got the string "9")',
  );
  await assertLineError(
    ['{"text": "x", "extra": [1]}'],
    1,
    '"extra" must be an object of request-body fields (got an array)',
  );
  await assertLineError(
    ['{"text": "x", "timestamp": -1}'],
    1,
    '"timestamp" must be a number of milliseconds ≥ 0 (got the number -1)',
  );
  await assertLineError(
    ['{"text": "x", "delay": "soon"}'],
    1,
    '"delay" must be a number of milliseconds ≥ 0 (got the string "soon")',
  );
  await assertLineError(
    ['{"text": "x", "timestamp": 0, "delay": 10}'],
    1,
    '"timestamp" and "delay" cannot both be set; keep one of them',
  );
  await assertLineError(
    ['{"text": "x", "session_id": 12}'],
    1,
    '"session_id" must be a non-empty string (got the number 12)',
  );
  await assertLineError(['{"text": "x", "role": ""}'], 1, '"role" must be a non-empty string (got the string "")');
  await assertLineError(['{"text": "x", "model": {}}'], 1, '"model" must be a non-empty string (got an object)');
  await assertLineError(
    ['{"text": "x", "type": "multi_turn"}'],
    1,
    '"type" is the string "multi_turn" but this file is read as single_turn; remove "type" or set it to "single_turn"',
  );
});

Deno.test("single_turn media: URLs and data URLs as written, local files inline, AIPerf's wav,<base64> audio", async () => {
  const png = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 1, 2, 3]);
  await Deno.writeFile(`${dir}/pic.png`, png);
  const file = await fileWith([
    '{"text": "look", "image": "https://example.com/cat.jpg", "audio": "wav,UklGRg=="}',
    '{"images": ["pic.png", {"name": "more", "contents": ["data:image/gif;base64,R0lG"]}], "videos": ["https://e.x/v.mp4"]}',
  ]);
  const dataset = await loadSingleTurn(file);
  assert.deepEqual(dataset.conversations[0].turns[0].media, [
    { kind: "image", url: "https://example.com/cat.jpg" },
    { kind: "audio", dataUrl: "data:audio/wav;base64,UklGRg==" },
  ]);
  // A relative file is found beside the dataset file and sent inline; a media-only line has no text.
  assert.deepEqual(dataset.conversations[1].turns[0].texts, []);
  assert.deepEqual(dataset.conversations[1].turns[0].media, [
    { kind: "image", dataUrl: `data:image/png;base64,${btoa(String.fromCharCode(...png))}` },
    { kind: "image", dataUrl: "data:image/gif;base64,R0lG" },
    { kind: "video", url: "https://e.x/v.mp4" },
  ]);
});

Deno.test("single_turn media: bad values name the line, the field and what is accepted", async () => {
  const cases: [string, string][] = [
    ['{"text": "a", "image": "missing.png"}', '"image" value "missing.png" names a file that does not exist'],
    ['{"text": "a", "image": "notes.txt"}', "whose type is not one of png, jpg, jpeg, gif, webp, bmp"],
    ['{"text": "a", "audio": "https://x.y/a.wav"}', "audio is sent inline: give a local file, 'wav,<base64>'"],
    ['{"text": "a", "image": "x.png", "images": ["y.png"]}', '"image" and "images" cannot both be set'],
    ['{"text": "a", "images": [5]}', '"images"[0] must be a string or a {"name", "contents": [strings]} object'],
    ['{"text": "a", "image_uuids": ["u"]}', '"image_uuids" is not supported yet'],
  ];
  for (const [line, reason] of cases) {
    const file = await fileWith(['{"text": "ok"}', line]);
    await assert.rejects(loadSingleTurn(file), (error: unknown) => {
      assert.ok(error instanceof DatasetError);
      assert.equal(error.line, 2);
      assert.ok(error.reason.includes(reason), `${error.reason} ∌ ${reason}`);
      return true;
    });
  }
});

Deno.test("single_turn loader reports unreadable and empty files without a line", async () => {
  const empty = await fileWith(["", "  "]);
  await assert.rejects(loadSingleTurn(empty), (error: unknown) => {
    assert.ok(error instanceof DatasetError);
    assert.equal(error.message, `${empty}: has no records; write one JSON object per line`);
    assert.equal(error.line, undefined);
    return true;
  });
  const missing = `${dir}/missing.jsonl`;
  await assert.rejects(loadSingleTurn(missing), (error: unknown) => {
    assert.ok(error instanceof DatasetError);
    assert.match(error.message, new RegExp(`^${missing}: cannot be read \\(.+\\); check the --input-file path$`));
    return true;
  });
});

Deno.test("single_turn loader streams a large file", async () => {
  const lines = Array.from(
    { length: 20000 },
    (_, i) => JSON.stringify({ text: `prompt number ${i}`, output_length: 1 + (i % 7) }),
  );
  const dataset = await loadSingleTurn(await fileWith(lines));
  assert.equal(dataset.conversations.length, 20000);
  assert.deepEqual(dataset.conversations[19999].turns[0], {
    texts: ["prompt number 19999"],
    maxTokens: 1 + (19999 % 7),
  });
});

Deno.test("single_turn canLoad accepts text and media records and rejects other shapes", () => {
  assert.equal(canLoadSingleTurn({ text: "x" }), true);
  assert.equal(canLoadSingleTurn({ texts: ["x"] }), true);
  assert.equal(canLoadSingleTurn({ image: "a.png" }), true);
  assert.equal(canLoadSingleTurn({ text: "x", type: "single_turn" }), true);
  assert.equal(canLoadSingleTurn({ text: "x", type: "random_pool" }), false);
  assert.equal(canLoadSingleTurn({ session_id: "s", turns: [{ text: "x" }] }), false);
  assert.equal(canLoadSingleTurn({ input_length: 10, hash_ids: [1] }), false);
  assert.equal(canLoadSingleTurn({ text: null }), false);
  assert.equal(canLoadSingleTurn([{ text: "x" }]), false);
  assert.equal(canLoadSingleTurn("text"), false);
  assert.equal(singleTurnLoader.name, "single_turn");
});

Deno.test("single_turn test files are cleaned up", async () => {
  await Deno.remove(dir, { recursive: true });
});
