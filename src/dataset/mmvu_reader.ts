/**
 * AIPerf 0.13's `mmvu` (yale-nlp/MMVU): each row is one single-turn conversation whose prompt is the question
 * followed by the non-empty choices as `A.<text> B.<text> …` (vLLM's benchmark format) and whose video is the row's
 * `video` value: a URL (sent as is; the server fetches it), a repository path (sent as `file://<path>`, as AIPerf),
 * or `{bytes, path}` sent inline. Rows without a prompt or a video are skipped.
 */
import type { Conversation, MediaItem } from "./conversation.ts";
import { base64 } from "./hf_media.ts";
import { conversationId, type HfRowReader } from "./hf_reader.ts";

export const readMmvu: HfRowReader = async (rows, ctx) => {
  const conversations: Conversation[] = [];
  for await (const row of rows) {
    if (ctx.limit !== undefined && conversations.length >= ctx.limit) break;
    const prompt = mmvuPrompt(row);
    const video = videoMedia(row.video);
    if (prompt === "" || video === undefined) continue;
    conversations.push({
      id: conversationId(ctx.name, conversations.length),
      turns: [{ texts: [prompt], media: [video] }],
    });
  }
  return conversations;
};

/** The question and its choices as one prompt. */
export function mmvuPrompt(row: Readonly<Record<string, unknown>>): string {
  const question = typeof row.question === "string" ? row.question.trim() : "";
  const choices = row.choices;
  if (typeof choices !== "object" || choices === null || Array.isArray(choices)) return question;
  const listed = Object.entries(choices).filter(([, v]) => v !== null && v !== undefined && v !== "")
    .map(([k, v]) => `${k}.${v}`).join(" ");
  return question && listed ? `${question} ${listed}` : question || listed;
}

function videoMedia(value: unknown): MediaItem | undefined {
  if (typeof value === "string" && value !== "") {
    return { kind: "video", url: value.includes("://") || value.startsWith("data:") ? value : `file://${value}` };
  }
  if (typeof value === "object" && value !== null && (value as { bytes?: unknown }).bytes instanceof Uint8Array) {
    const { bytes, path } = value as { bytes: Uint8Array; path?: unknown };
    if (bytes.length === 0) return undefined;
    const ext = typeof path === "string" ? path.split(".").pop()?.toLowerCase() : undefined;
    const mime = ext === "webm"
      ? "video/webm"
      : ext === "mov"
      ? "video/quicktime"
      : ext === "avi"
      ? "video/x-msvideo"
      : "video/mp4";
    return { kind: "video", dataUrl: `data:${mime};base64,${base64(bytes)}` };
  }
  return undefined;
}
