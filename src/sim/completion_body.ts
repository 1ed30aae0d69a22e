/**
 * Usage objects and non-streaming response bodies of the simulated server (OpenAI `chat.completion` and
 * `text_completion` objects, as vLLM returns them).
 */
import type { SimEndpoint } from "./generation_request.ts";
import type { FinishReason, GenerationPlan } from "./plan_generation.ts";

/** Identity of one response, shared by all of its chunks. */
export interface ResponseIdentity {
  readonly endpoint: SimEndpoint;
  readonly id: string;
  /** Unix seconds. */
  readonly created: number;
  readonly model: string;
}

/** The `usage` JSON text after `completionTokens` tokens; reasoning details only when the plan has reasoning. */
export function usageJson(plan: GenerationPlan, completionTokens: number, reasoningTokens: number): string {
  const p = plan.promptTokens;
  const details = plan.reasoningTokens > 0
    ? `,"completion_tokens_details":{"reasoning_tokens":${reasoningTokens}}`
    : "";
  const total = p + completionTokens;
  return `{"prompt_tokens":${p},"completion_tokens":${completionTokens},"total_tokens":${total}${details}}`;
}

/** The whole non-streaming body. `reasoning` is the reasoning text (chat only), `content` the answer text. */
export function completionBody(
  identity: ResponseIdentity,
  plan: GenerationPlan,
  reasoning: string,
  content: string,
): string {
  const total = plan.reasoningTokens + plan.contentTokens;
  const usage = usageJson(plan, total, plan.reasoningTokens);
  const head = `{"id":"${identity.id}","object":"${
    identity.endpoint === "chat" ? "chat.completion" : "text_completion"
  }","created":${identity.created},"model":${JSON.stringify(identity.model)},"choices":[{"index":0,`;
  const finish = finishJson(plan.finishReason);
  if (identity.endpoint === "chat") {
    const reasoningField = plan.reasoningTokens > 0 ? `,"reasoning_content":"${reasoning}"` : "";
    return `${head}"message":{"role":"assistant","content":"${content}"${reasoningField}},"logprobs":null,"finish_reason":${finish}}],"usage":${usage}}`;
  }
  return `${head}"text":"${content}","logprobs":null,"finish_reason":${finish}}],"usage":${usage}}`;
}

export function finishJson(reason: FinishReason | null): string {
  return reason === null ? "null" : `"${reason}"`;
}
