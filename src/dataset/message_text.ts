/** The text of a chat message written in a dataset (`Turn.messages`): what its ISL counts. */

/** Its string content, or its text parts joined by line breaks (images, audio and tool calls carry none). */
export function messageText(message: Readonly<Record<string, unknown>>): string {
  const content = message.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p) => typeof p === "object" && p !== null && typeof p.text === "string" ? p.text : "")
    .filter((t) => t.length > 0).join("\n");
}
