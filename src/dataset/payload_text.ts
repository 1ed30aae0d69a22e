/**
 * The prompt text inside a request body written by the user (raw payloads, inputs.json, a trace's `payload`), so
 * its ISL can be counted like a built request's: chat `messages` contents (strings, or the `text` of content
 * parts) in order, a completions `prompt` (string or list), a Responses/embeddings `input` (string, list of strings,
 * or message items), a top-level `system` or `instructions` string. Other fields (tools, images) are not text the
 * tokenizer counts here.
 */

function contentText(content: unknown, out: string[]): void {
  if (typeof content === "string") out.push(content);
  else if (Array.isArray(content)) {
    for (const part of content) {
      if (typeof part === "string") out.push(part);
      else if (part !== null && typeof part === "object") {
        const p = part as Record<string, unknown>;
        if (typeof p.text === "string") out.push(p.text);
        else if (p.content !== undefined) contentText(p.content, out);
      }
    }
  }
}

/** The body's prompt texts joined by newlines ("" when it has none). */
export function payloadText(payload: unknown): string {
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) return "";
  const body = payload as Record<string, unknown>;
  const out: string[] = [];
  for (const key of ["system", "instructions"]) if (typeof body[key] === "string") out.push(body[key] as string);
  if (Array.isArray(body.messages)) {
    for (const m of body.messages) {
      if (m !== null && typeof m === "object") contentText((m as Record<string, unknown>).content, out);
    }
  }
  for (const key of ["prompt", "input", "inputs"]) contentText(body[key], out);
  return out.join("\n");
}
