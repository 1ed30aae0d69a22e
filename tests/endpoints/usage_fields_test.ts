import assert from "node:assert/strict";
import { readUsageFields } from "../../src/endpoints/usage_fields.ts";

Deno.test("usage fields: OpenAI's details give cache reads, reasoning and prediction tokens", () => {
  const usage = readUsageFields({
    prompt_tokens: 120,
    completion_tokens: 40,
    total_tokens: 160,
    prompt_tokens_details: { cached_tokens: 64, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 10,
      accepted_prediction_tokens: 7,
      rejected_prediction_tokens: 3,
      audio_tokens: 0,
    },
  });
  assert.deepEqual(usage, {
    promptTokens: 120,
    completionTokens: 40,
    totalTokens: 160,
    reasoningTokens: 10,
    promptCacheReadTokens: 64,
    acceptedPredictionTokens: 7,
    rejectedPredictionTokens: 3,
    promptAudioTokens: 0,
    completionAudioTokens: 0,
  });
});

Deno.test("usage fields: a field the server did not report stays absent, and 0 stays 0", () => {
  assert.deepEqual(readUsageFields({ prompt_tokens: 5, completion_tokens: 2 }), {
    promptTokens: 5,
    completionTokens: 2,
  });
  assert.deepEqual(readUsageFields({ prompt_tokens: 5, prompt_tokens_details: { cached_tokens: 0 } }), {
    promptTokens: 5,
    promptCacheReadTokens: 0,
  });
  assert.equal(readUsageFields({ prompt_tokens_details: { cached_tokens: 3 } }), undefined, "no count: no usage");
  assert.equal(readUsageFields(null), undefined);
});

Deno.test("usage fields: Anthropic's input count leaves the cache out, so the prompt adds it back", () => {
  const usage = readUsageFields({
    input_tokens: 20,
    cache_read_input_tokens: 100,
    cache_creation_input_tokens: 30,
    output_tokens: 9,
  });
  assert.deepEqual(usage, {
    promptTokens: 150,
    completionTokens: 9,
    promptCacheReadTokens: 100,
    promptCacheWriteTokens: 30,
  });
  // Without cache fields the Responses API's input_tokens is the whole prompt.
  assert.equal(readUsageFields({ input_tokens: 20, output_tokens: 1 })!.promptTokens, 20);
});

Deno.test("usage fields: DeepSeek hits and misses, Gemini's envelope and thoughts, Mistral's audio seconds", () => {
  assert.deepEqual(
    readUsageFields({
      prompt_tokens: 50,
      completion_tokens: 5,
      prompt_cache_hit_tokens: 32,
      prompt_cache_miss_tokens: 18,
    }),
    { promptTokens: 50, completionTokens: 5, promptCacheReadTokens: 32, promptCacheMissTokens: 18 },
  );
  assert.deepEqual(
    readUsageFields({
      usageMetadata: {
        promptTokenCount: 11,
        candidatesTokenCount: 4,
        totalTokenCount: 19,
        thoughtsTokenCount: 4,
        cachedContentTokenCount: 8,
        toolUsePromptTokenCount: 2,
      },
    }),
    {
      promptTokens: 11,
      completionTokens: 4,
      totalTokens: 19,
      reasoningTokens: 4,
      promptCacheReadTokens: 8,
      toolUsePromptTokens: 2,
    },
  );
  assert.deepEqual(readUsageFields({ prompt_tokens: 3, completion_tokens: 1, prompt_audio_seconds: 2.5 }), {
    promptTokens: 3,
    completionTokens: 1,
    promptAudioSeconds: 2.5,
  });
});
