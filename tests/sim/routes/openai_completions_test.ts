import assert from "node:assert/strict";
import { oracleTokenizer } from "../oracle_tokenizer.ts";
import { COMPLETIONS, firstChoice, json, makeApp, post, PROMPT, type Usage } from "../sim_test_helpers.ts";

Deno.test("sim completions answers text_completion for string, list and token-id prompts", async () => {
  const { app } = makeApp();
  const tok = oracleTokenizer();
  const one = await json(await post(app, COMPLETIONS, { model: "m", prompt: PROMPT, max_tokens: 9 }));
  assert.equal(one.object, "text_completion");
  assert.match(one.id as string, /^cmpl-/);
  assert.equal(tok.count(firstChoice(one).text as string), 9);
  assert.deepEqual(one.usage, {
    prompt_tokens: tok.count(PROMPT),
    completion_tokens: 9,
    total_tokens: 9 + tok.count(PROMPT),
  });

  const list = await json(await post(app, COMPLETIONS, { prompt: ["a b c", "hello world"], max_tokens: 2 }));
  assert.equal((list.usage as Usage).prompt_tokens, tok.count("a b c") + tok.count("hello world"));
  assert.equal(list.model, "sim-model");

  const ids = await json(await post(app, COMPLETIONS, { prompt: [1, 2, 3, 4, 5], max_tokens: 2 }));
  assert.equal((ids.usage as Usage).prompt_tokens, 5);
  const nested = await json(await post(app, COMPLETIONS, { prompt: [[1, 2], [3, 4, 5]], max_tokens: 2 }));
  assert.equal((nested.usage as Usage).prompt_tokens, 5);
});

Deno.test("sim completions answers carry no reasoning, even from a server that reasons", async () => {
  const { app } = makeApp({ reasoningTokens: 5, reasoning: true });
  const body = await json(await post(app, COMPLETIONS, { prompt: PROMPT, max_tokens: 8, reasoning_effort: "high" }));
  assert.equal((body.usage as Usage).completion_tokens, 8);
  assert.equal((body.usage as Usage).completion_tokens_details, undefined);
  assert.equal(oracleTokenizer().count(firstChoice(body).text as string), 8);
});
