/**
 * AIPerf 0.13's `spec_al_mtbench` (HuggingFaceH4/mt_bench_prompts): each row's `prompt` list becomes one multi-turn
 * conversation, one user turn per non-blank prompt (trimmed); the server's real replies are sent as history between
 * turns. Rows whose `prompt` is not a list or holds only blanks are skipped; a first row without `prompt` is an error.
 */
import type { Conversation } from "./conversation.ts";
import { DatasetError } from "./dataset_error.ts";
import { conversationId, type HfRowReader } from "./hf_reader.ts";

export const readMtBench: HfRowReader = async (rows, ctx) => {
  const conversations: Conversation[] = [];
  let first = true;
  for await (const row of rows) {
    if (ctx.limit !== undefined && conversations.length >= ctx.limit) break;
    if (first) {
      first = false;
      if (!("prompt" in row)) {
        throw new DatasetError(
          ctx.where,
          undefined,
          `has no column 'prompt' (columns: ${Object.keys(row).join(", ")})`,
        );
      }
    }
    const prompts = row.prompt;
    if (!Array.isArray(prompts)) continue;
    const turns = prompts.map((p) => (p ? String(p).trim() : "")).filter((t) => t !== "").map((t) => ({ texts: [t] }));
    if (turns.length === 0) continue;
    conversations.push({ id: conversationId(ctx.name, conversations.length), turns });
  }
  return conversations;
};
