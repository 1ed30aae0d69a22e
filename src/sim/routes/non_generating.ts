/**
 * What the routes that answer without generating text share (embeddings, rankings, images): a request plans no
 * tokens (`maxTokens: 0`), and a streamed answer, where the API has one, is its whole result in the closing events.
 */
import type { GenerationRequest } from "../generation_request.ts";
import type { StreamFraming } from "../sim_route.ts";

export function nonGenerating(
  model: string | undefined,
  promptTexts: readonly string[],
  stream = false,
): GenerationRequest {
  return {
    model,
    stream,
    maxTokens: 0,
    minTokens: 0,
    ignoreEos: false,
    promptTexts,
    promptTokenIds: 0,
    reasoning: undefined,
  };
}

/** A stream of one closing text. */
export function closingOnly(text: string): StreamFraming {
  return { open: () => "", chunk: () => "", close: () => text };
}
