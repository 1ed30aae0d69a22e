/**
 * The context of a recorded agent conversation rebuilt from its requests' KV-cache block ids (Weka and TraceLab
 * traces), as AIPerf reconstructs it: each request's prompt is a tile of role segments — a system segment for the
 * declared tools and system prompt, then alternating assistant and user segments — made of one text per block id
 * (the same id, the same text, so the server's prefix cache sees the recorded reuse), plus fresh text for the tokens
 * no block covers.
 *
 * Request k keeps the blocks it shares with request k − 1 (their longest common prefix of ids) and appends the rest:
 * the first ⌈out(k−1) / block⌉ new blocks are the previous answer (assistant), the remainder and the unhashed tail
 * the new input (user); the prompt always ends with user content. Each turn carries only the segments not sent
 * before (`deltas_with_responses`); when the shared prefix cuts into a segment already sent (a compaction, a context
 * edit), the turn carries the whole context again and starts it over (`resetContext`).
 */
import type { HashBlockPrompts } from "./hash_block_prompts.ts";

type Role = "system" | "user" | "assistant";

interface Segment {
  readonly role: Role;
  /** Block texts, in id order. */
  blocks: string[];
  /** Fresh text past the blocks (only on the last segment). */
  tail?: string;
  /** The message text, built once per change. */
  content?: string;
}

/** A turn's messages and whether they start the context over. */
export interface ContextDelta {
  readonly messages: readonly { readonly role: Role; readonly content: string }[];
  readonly reset: boolean;
}

export class AgentContext {
  readonly #blockSize: number;
  readonly #text: HashBlockPrompts;
  #segments: Segment[] = [];
  #emitted = 0;
  /** Earliest segment changed or removed since the last delta. */
  #disturbed: number | undefined;

  constructor(blockSize: number, text: HashBlockPrompts) {
    this.#blockSize = blockSize;
    this.#text = text;
  }

  /**
   * The first request: `toolTokens + systemTokens` (rounded up to whole blocks) are the system segment, the rest
   * the user's.
   * @throws {RangeError} when the ids do not even cover the declared system prefix.
   */
  async first(hashIds: readonly number[], inputTokens: number, toolTokens: number, systemTokens: number) {
    const bs = this.#blockSize;
    const full = Math.floor(inputTokens / bs);
    const covered = Math.min(full, hashIds.length);
    let cursor = 0;
    const segments: Segment[] = [];
    if (toolTokens + systemTokens > 0) {
      const prefix = Math.ceil((toolTokens + systemTokens) / bs);
      if (prefix > hashIds.length) {
        throw new RangeError(
          `the first request's tools and system prompt (${toolTokens + systemTokens} tokens) need ${prefix} ` +
            `hash_ids of ${bs} tokens, but it records ${hashIds.length}`,
        );
      }
      const blocks = Math.min(prefix, covered);
      if (blocks > 0) {
        segments.push({ role: "system", blocks: await this.#blocks(hashIds.slice(0, blocks)) });
        cursor = blocks;
      }
    }
    const tailTokens = (full - covered) * bs + (inputTokens - full * bs);
    const user: Segment = { role: "user", blocks: await this.#blocks(hashIds.slice(cursor, covered)) };
    if (tailTokens > 0) user.tail = await this.#text.fresh(tailTokens);
    if (user.blocks.length > 0 || user.tail !== undefined || segments.length === 0) segments.push(user);
    this.#segments = segments;
    this.#emitted = 0;
    this.#disturbed = undefined;
  }

  /** Request k after request k − 1 (`previous` ids, `previousOutput` tokens answered). */
  async next(
    previous: readonly number[],
    previousOutput: number,
    hashIds: readonly number[],
    inputTokens: number,
  ): Promise<void> {
    const bs = this.#blockSize;
    const full = Math.floor(inputTokens / bs);
    const covered = Math.min(full, hashIds.length);
    // The cut never goes past what the context holds (a previous request's partial last block is not a block).
    const held = this.#segments.reduce((n, s) => n + s.blocks.length, 0);
    const lcp = Math.min(commonPrefix(previous, hashIds), covered, held);
    this.#truncate(lcp);
    const fresh = await this.#blocks(hashIds.slice(lcp, covered));
    const tailTokens = inputTokens % bs + Math.max(0, (full - hashIds.length) * bs);
    // After a cut that removed every user segment, the context resumes with user input, never an answer.
    let answer = this.#segments.some((s) => s.role === "user") && previousOutput > 0
      ? Math.min(Math.ceil(previousOutput / bs), fresh.length)
      : 0;
    // The prompt must end with user content: with no tail, the answer leaves the last new block to the user.
    if (tailTokens === 0 && answer === fresh.length && answer > 0) answer--;
    if (answer > 0) this.#segments.push({ role: "assistant", blocks: fresh.slice(0, answer) });
    const user: Segment = { role: "user", blocks: fresh.slice(answer) };
    if (tailTokens > 0) user.tail = await this.#text.fresh(tailTokens);
    if (user.blocks.length > 0 || user.tail !== undefined) this.#segments.push(user);
  }

  /** The messages the turn just built carries, and whether it starts the context over. */
  delta(): ContextDelta {
    const reset = this.#emitted > 0 && this.#disturbed !== undefined && this.#disturbed < this.#emitted;
    const from = this.#emitted === 0 || reset ? 0 : this.#emitted;
    const messages = this.#segments.slice(from).map((s) => ({ role: s.role, content: contentOf(s) }));
    this.#emitted = this.#segments.length;
    this.#disturbed = undefined;
    return { messages, reset };
  }

  /** Keeps the first `blocks` blocks of the context (and no tail), noting the first segment that changed. */
  #truncate(blocks: number): void {
    let cursor = 0;
    for (let i = 0; i < this.#segments.length; i++) {
      const s = this.#segments[i];
      if (cursor + s.blocks.length < blocks) {
        cursor += s.blocks.length;
        continue;
      }
      const keep = blocks - cursor;
      let changed: number | undefined;
      if (keep === 0 && cursor === blocks && i > 0) {
        changed = i; // the cut falls on this segment's start: it goes
        this.#segments.length = i;
      } else {
        if (keep < s.blocks.length || s.tail !== undefined) {
          s.blocks = s.blocks.slice(0, keep);
          s.tail = undefined;
          s.content = undefined;
          changed = i;
        }
        if (i + 1 < this.#segments.length) changed ??= i + 1;
        this.#segments.length = s.blocks.length === 0 ? i : i + 1;
      }
      this.#note(changed);
      return;
    }
  }

  #note(index: number | undefined): void {
    if (index !== undefined) this.#disturbed = Math.min(this.#disturbed ?? index, index);
  }

  async #blocks(ids: readonly number[]): Promise<string[]> {
    const out: string[] = [];
    for (const id of ids) out.push(await this.#text.block(id));
    return out;
  }
}

function contentOf(s: Segment): string {
  if (s.content === undefined) {
    const body = s.blocks.join(" ");
    s.content = s.tail === undefined ? body : body === "" ? s.tail : `${body} ${s.tail}`;
  }
  return s.content;
}

/** Length of the longest common prefix of two id lists. */
export function commonPrefix(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}
