import assert from "node:assert/strict";
import { TEMPLATE_ADAPTER } from "../../../src/endpoints/template/template.ts";
import { parseResponseField, readField } from "../../../src/endpoints/template/response_field.ts";

const CTX = { model: "m", streaming: false, useLegacyMaxTokens: false, useServerTokenCount: false, extraInputs: {} };

Deno.test("template: the named nv-embedqa template, AIPerf's variables, other extra inputs merged after", async () => {
  const a = await TEMPLATE_ADAPTER.configure!({ extraInputs: { payload_template: "nv-embedqa" } });
  assert.deepEqual(
    a.buildRequest({ texts: ["x", "y"] }, { ...CTX, extraInputs: { payload_template: "nv-embedqa", k: 1 } }, []),
    {
      text: ["x", "y"],
      k: 1,
    },
  );
  const t =
    '{"q": {{ query|tojson }}, "p": {{ passages|tojson }}, "m": {{ model|tojson }}, "n": {{ max_tokens|tojson }}, ' +
    '"s": {{ stream|tojson }}}';
  const b = await TEMPLATE_ADAPTER.configure!({ extraInputs: { payload_template: t } });
  assert.deepEqual(
    b.buildRequest({ texts: ["q", "p1"], named: { query: ["q"], passages: ["p1"] } }, { ...CTX, maxTokens: 4 }, []),
    { q: "q", p: ["p1"], m: "m", n: 4, s: false },
  );
  const bad = await TEMPLATE_ADAPTER.configure!({ extraInputs: { payload_template: "{{ text }}" } });
  assert.throws(() => bad.buildRequest({ texts: ["plain"] }, CTX, []), /did not render JSON/);
  await assert.rejects(() => TEMPLATE_ADAPTER.configure!({ extraInputs: {} }), /payload_template/);
  assert.throws(() => TEMPLATE_ADAPTER.buildRequest({ texts: ["x"] }, CTX, []), /payload_template/);
});

Deno.test("template: a file path is read as the template", async () => {
  const a = await TEMPLATE_ADAPTER.configure!({
    extraInputs: { payload_template: "tpl.json" },
    readTextFile: (p) => p === "tpl.json" ? '{"input": {{ text|tojson }}}' : undefined,
  });
  assert.deepEqual(a.buildRequest({ texts: ["hello"] }, CTX, []), { input: "hello" });
});

Deno.test("template: answers auto-detected like AIPerf, or read at response_field (a miss fails the request)", async () => {
  const a = await TEMPLATE_ADAPTER.configure!({ extraInputs: { payload_template: "nv-embedqa" } });
  assert.deepEqual(a.parseBody({ output: "text" }), { content: "text", usage: undefined });
  assert.equal(a.parseBody({ choices: [{ message: { content: "c" } }] }).content, "c");
  assert.equal(a.parseBody({ data: [{ embedding: [1] }] }).content, undefined);
  assert.deepEqual(a.parseEvent("plain text"), { content: "plain text" });
  const f = await TEMPLATE_ADAPTER.configure!({
    extraInputs: { payload_template: "nv-embedqa", response_field: "result.outputs[0].text" },
  });
  assert.equal(f.parseBody({ result: { outputs: [{ text: "deep" }] } }).content, "deep");
  assert.equal(f.parseBody({ result: {} }).error?.type, "ParseError");
  await assert.rejects(
    () => TEMPLATE_ADAPTER.configure!({ extraInputs: { payload_template: "nv-embedqa", response_field: "a[?b]" } }),
    /only dotted keys/,
  );
  assert.deepEqual(parseResponseField("choices[-1].text"), ["choices", -1, "text"]);
  assert.equal(readField({ choices: [{ text: "a" }, { text: "b" }] }, ["choices", -1, "text"]), "b");
});
