/**
 * `--cache-bust` (AIPerf's RID targets): every session — every play of a conversation — carries its own marker
 * `[rid:<12 hex digits>]`, so no two sessions share a prompt prefix in the server's KV cache, and a session's turns
 * share theirs. `system_prefix` / `system_suffix` put it before / after the system message (without one, on the
 * first user turn, as AIPerf falls back), `first_turn_prefix` / `first_turn_suffix` on the first user turn's first
 * text; prefixes are followed by a blank line, suffixes preceded by one.
 *
 * Bodies are built before the run with a placeholder digest (`000000000000`); a session writes its own digits over
 * it (prebuilt bodies: at recorded byte offsets; bodies built at send time: in the text). Digests come from the run's
 * seed, the session's number and the conversation id, so a rerun with the same seed sends the same markers. Written
 * payloads (raw_payload, inputs_json, a trace's `payload`) are sent as written, without a marker.
 */
import { SeededRandom } from "../base/seeded_random.ts";
import type { Conversation, Turn } from "../dataset/conversation.ts";

export type CacheBustTarget = "none" | "system_prefix" | "system_suffix" | "first_turn_prefix" | "first_turn_suffix";

const DIGITS = 12;
/** The placeholder digest every prebuilt body carries. */
export const PLACEHOLDER_DIGEST = "0".repeat(DIGITS);
const PLACEHOLDER_RID = `[rid:${PLACEHOLDER_DIGEST}]`;

function marker(target: CacheBustTarget, rid: string): string {
  return target.endsWith("_prefix") ? `${rid}\n\n` : `\n\n${rid}`;
}

/** The marker text for a digest, as the target places it (e.g. for counting its tokens). */
export function markerText(target: CacheBustTarget, digest = PLACEHOLDER_DIGEST): string {
  return marker(target, `[rid:${digest}]`);
}

/**
 * The conversation with the placeholder marker in place, or undefined when it has nowhere to go (its first user
 * turn is a written payload). Which turn got it is returned so its ISL can count the marker.
 */
export function withPlaceholder(
  conversation: Conversation,
  target: CacheBustTarget,
): { conversation: Conversation; turnIndex?: number } | undefined {
  if (target === "none") return { conversation };
  const m = markerText(target);
  const prefix = target.endsWith("_prefix");
  if (target.startsWith("system_") && conversation.systemMessage !== undefined) {
    const systemMessage = prefix ? m + conversation.systemMessage : conversation.systemMessage + m;
    return { conversation: { ...conversation, systemMessage } };
  }
  const k = conversation.turns.findIndex((t) => (t.role ?? "user") === "user");
  if (k < 0 || conversation.turns[k].rawPayload !== undefined) return undefined;
  const mark = (t: Turn): Turn => {
    const texts = t.texts.length === 0 ? [m] : [prefix ? m + t.texts[0] : t.texts[0] + m, ...t.texts.slice(1)];
    const messages = t.messages === undefined ? undefined : markedMessages(t.messages, target, m, prefix);
    return { ...t, texts, ...(messages === undefined ? {} : { messages }) };
  };
  // A turn that starts the context over (an agent trace's rebuilt context) sends its own first turn: it is marked too.
  const turns = conversation.turns.map((t, i) =>
    i === k || (i > k && t.resetContext === true && t.rawPayload === undefined && t.requestFree !== true) ? mark(t) : t
  );
  return { conversation: { ...conversation, turns }, turnIndex: k };
}

/**
 * Messages sent as written (an agent trace's) carry the marker in their first user message — or, for a system
 * target, their system message when they have one — at the start or the end of its text.
 */
function markedMessages(
  messages: readonly Readonly<Record<string, unknown>>[],
  target: CacheBustTarget,
  m: string,
  prefix: boolean,
): readonly Readonly<Record<string, unknown>>[] {
  const textOf = (msg: Readonly<Record<string, unknown>>) =>
    typeof msg.content === "string" || Array.isArray(msg.content);
  const system = target.startsWith("system_") ? messages.findIndex((msg) => msg.role === "system" && textOf(msg)) : -1;
  const i = system >= 0 ? system : messages.findIndex((msg) => (msg.role ?? "user") === "user" && textOf(msg));
  if (i < 0) return messages;
  const msg = messages[i];
  let content: unknown = msg.content;
  if (typeof content === "string") content = prefix ? m + content : content + m;
  else {
    const parts = content as readonly Readonly<Record<string, unknown>>[];
    const t = parts.findIndex((p) => p.type === "text" && typeof p.text === "string");
    content = t < 0
      ? (prefix ? [{ type: "text", text: m }, ...parts] : [...parts, { type: "text", text: m }])
      : parts.map((p, j) => j === t ? { ...p, text: prefix ? m + (p.text as string) : (p.text as string) + m } : p);
  }
  return messages.map((x, j) => j === i ? { ...msg, content } : x);
}

/** Byte offsets of every placeholder digest in a body. */
export function placeholderOffsets(body: Uint8Array): number[] {
  const needle = new TextEncoder().encode(PLACEHOLDER_RID);
  const out: number[] = [];
  outer: for (let i = 0; i + needle.length <= body.length; i++) {
    for (let j = 0; j < needle.length; j++) if (body[i + j] !== needle[j]) continue outer;
    out.push(i + 5); // past "[rid:"
    i += needle.length - 1;
  }
  return out;
}

/** A session's digest: 12 hex digits from the run's seed, the session's number and its conversation. */
export function sessionDigest(seed: number, sessionIndex: number, conversationId: string): string {
  const rng = new SeededRandom(seed).derive(`cache-bust:${sessionIndex}:${conversationId}`);
  const hex = rng.nextUint32().toString(16).padStart(8, "0") + rng.nextUint32().toString(16).padStart(8, "0");
  return hex.slice(0, DIGITS);
}

/** A copy of `body` with the digest written at each offset. */
export function stampBody(body: Uint8Array, offsets: readonly number[], digest: string): Uint8Array {
  const out = body.slice();
  const digits = new TextEncoder().encode(digest);
  for (const at of offsets) out.set(digits, at);
  return out;
}

/** A body built at send time (text) with the placeholder replaced. */
export function stampText(text: string, digest: string): string {
  return text.replaceAll(PLACEHOLDER_RID, `[rid:${digest}]`);
}
