import assert from "node:assert/strict";
import { HUGGINGFACE_GENERATE_ADAPTER as TGI } from "../../../src/endpoints/huggingface/huggingface_generate.ts";
import { HF_TEI_RANKINGS_ADAPTER as TEI } from "../../../src/endpoints/huggingface/hf_tei_rankings.ts";
import { requestPath } from "../../../src/endpoints/endpoint_adapter.ts";

const CTX = { model: "m", streaming: true, useLegacyMaxTokens: false, useServerTokenCount: false, extraInputs: {} };

Deno.test("TGI: texts joined by spaces, extra inputs in parameters, details only for server counts, stream path", () => {
  const body = TGI.buildRequest({ texts: ["a", "b"], extra: { top: 1 } }, {
    ...CTX,
    maxTokens: 8,
    extraInputs: { temperature: 0.5 },
  }, []);
  assert.deepEqual(body, { inputs: "a b", parameters: { max_new_tokens: 8, temperature: 0.5 }, top: 1 });
  assert.equal(TGI.requestedOutputTokens!(body), 8);
  const counted = TGI.buildRequest({ texts: ["a"] }, { ...CTX, useServerTokenCount: true }, []);
  assert.deepEqual(counted.parameters, { details: true });
  assert.equal(requestPath(TGI.capabilities, true), "/generate_stream");
  assert.equal(requestPath(TGI.capabilities, false), "/generate");
});

Deno.test("TGI: each token event's text counts once; the final event's whole text does not repeat it", () => {
  const first = TGI.parseEvent('{"index":1,"token":{"id":1,"text":" a","special":false},"generated_text":null}');
  const last = TGI.parseEvent(
    '{"index":2,"token":{"id":2,"text":" b","special":false},"generated_text":" a b","details":' +
      '{"finish_reason":"length","generated_tokens":2,"input_length":5}}',
  );
  assert.equal(first?.content, " a");
  assert.deepEqual(last, {
    content: " b",
    usage: { completionTokens: 2, promptTokens: 5 },
    finishReason: "length",
    error: undefined,
  });
  assert.equal(TGI.parseBody([{ generated_text: "x" }]).content, "x");
  const error = TGI.parseBody({ error: "Input validation error", error_type: "validation" }).error;
  assert.equal(error?.message, "Input validation error");
  assert.equal(error?.type, "validation");
});

Deno.test("TEI rerank: query and texts from named texts, else the first text is the query; empty answers fail", () => {
  assert.deepEqual(TEI.buildRequest({ texts: ["q", "p"], named: { query: ["q"], passages: ["p"] } }, CTX, []), {
    query: "q",
    texts: ["p"],
  });
  assert.deepEqual(TEI.buildRequest({ texts: ["q", "p1", "p2"] }, CTX, []), { query: "q", texts: ["p1", "p2"] });
  assert.equal(TEI.inputText({ texts: ["q", "p"], named: { query: ["q"], passages: ["p"] } }, {}), "q\np");
  assert.equal(TEI.parseBody([]).error?.type, "ParseError");
  assert.equal(TEI.parseBody({ error: "overloaded" }).error?.message, "overloaded");
  assert.equal(TEI.parseBody([{ index: 0, score: 0.5 }]).error, undefined);
});
