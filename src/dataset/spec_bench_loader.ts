/**
 * AIPerf 0.13's `spec_bench`: Spec-Bench's `question.jsonl` (saved as `spec_bench.jsonl`), one question per line
 * with a `turns` list. Each question becomes a single-turn conversation of its first turn, trimmed; questions without
 * turns or with a blank first turn are skipped. Sent in file order by default (sequential).
 */
import type { Conversation, Dataset } from "./conversation.ts";
import { DatasetError } from "./dataset_error.ts";
import { conversationId } from "./hf_reader.ts";
import { readLines } from "./read_lines.ts";
import type { PublicDatasetContext } from "./sharegpt_loader.ts";

export async function loadSpecBench(path: string, _ctx: PublicDatasetContext): Promise<Dataset> {
  const conversations: Conversation[] = [];
  for await (const line of readLines(path)) {
    if (line.text.trim() === "") continue;
    let row: unknown;
    try {
      row = JSON.parse(line.text);
    } catch (err) {
      throw new DatasetError(path, line.number, `is not valid JSON: ${(err as Error).message}`);
    }
    const turns = (row as { turns?: unknown } | null)?.turns;
    if (!Array.isArray(turns) || turns.length === 0) continue;
    const prompt = turns[0] ? String(turns[0]).trim() : "";
    if (prompt === "") continue;
    conversations.push({ id: conversationId("spec_bench", conversations.length), turns: [{ texts: [prompt] }] });
  }
  if (conversations.length === 0) throw new DatasetError(path, undefined, "has no Spec-Bench question with a turn");
  return { conversations, defaultSampling: "sequential", source: "file", format: "spec_bench" };
}
