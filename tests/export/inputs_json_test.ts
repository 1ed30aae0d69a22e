import assert from "node:assert/strict";
import { renderInputsJson, writeInputsJson } from "../../src/export/inputs_json.ts";

const sessions = [
  { sessionId: "s-0", payloads: [{ model: "m", messages: [{ role: "user", content: "hi\nthere" }], stream: true }] },
  { sessionId: "s-1", payloads: [{ model: "m", prompt: "a" }, { model: "m", prompt: "b" }] },
];

Deno.test("inputs.json holds each session's exact request bodies", () => {
  const text = renderInputsJson(sessions);
  assert.deepEqual(JSON.parse(text), {
    data: [
      { session_id: "s-0", payloads: sessions[0].payloads },
      { session_id: "s-1", payloads: sessions[1].payloads },
    ],
  });
  assert.equal(text, JSON.stringify(JSON.parse(text), null, 2));
  assert.equal(renderInputsJson([]), '{\n  "data": []\n}');
});

Deno.test("inputs.json streamed to a file equals the rendered text", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/inputs.json`;
    await writeInputsJson(path, sessions);
    assert.equal(await Deno.readTextFile(path), renderInputsJson(sessions));
    await writeInputsJson(path, []);
    assert.equal(await Deno.readTextFile(path), renderInputsJson([]));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
