/**
 * AIPerf 0.13's conversation-array datasets read single-turn (vision_arena, llava_onevision): each row's first user
 * message (role `user` or `human`, else the first message when none has a role) is the prompt, `<image>`
 * placeholders removed and trimmed, with the row's first image. Messages wrapped in their own list (VisionArena) are
 * unwrapped. Rows without such text are skipped.
 */
import type { Conversation } from "./conversation.ts";
import { firstImage } from "./hf_media.ts";
import { conversationId, type HfRowReader } from "./hf_reader.ts";

export interface ConversationColumns {
  readonly conversationColumn: string;
  /** The key of a message's text (`content`, `value`). */
  readonly contentKey: string;
  readonly imageColumn?: string;
}

export function conversationReader(columns: ConversationColumns): HfRowReader {
  return async (rows, ctx) => {
    const conversations: Conversation[] = [];
    for await (const row of rows) {
      if (ctx.limit !== undefined && conversations.length >= ctx.limit) break;
      const raw = row[columns.conversationColumn];
      const prompt = firstUserText(Array.isArray(raw) ? raw : [], columns.contentKey);
      if (prompt === undefined) continue;
      const media = columns.imageColumn === undefined ? [] : firstImage(row[columns.imageColumn]);
      conversations.push({
        id: conversationId(ctx.name, conversations.length),
        turns: [{ texts: [prompt], ...(media.length > 0 ? { media } : {}) }],
      });
    }
    return conversations;
  };
}

/** The text of the first user message (see the module comment), or undefined. */
export function firstUserText(messages: readonly unknown[], contentKey: string): string | undefined {
  const dicts: Record<string, unknown>[] = [];
  for (const item of messages) {
    const msg = Array.isArray(item) && item.length > 0 ? item[0] : item;
    if (typeof msg === "object" && msg !== null && !Array.isArray(msg) && Object.keys(msg).length > 0) {
      dicts.push(msg as Record<string, unknown>);
    }
  }
  if (dicts.length === 0) return undefined;
  const text = (m: Record<string, unknown>) => {
    const v = m[contentKey];
    return typeof v === "string" ? v.replaceAll("<image>", "").trim() || undefined : undefined;
  };
  for (const m of dicts) {
    const role = String(m.role || m.from || "").toLowerCase();
    if (role === "user" || role === "human") return text(m);
  }
  return text(dicts[0]);
}
