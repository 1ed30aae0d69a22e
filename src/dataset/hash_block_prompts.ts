/**
 * Trace prompts synthesized to a recorded length with prefix sharing preserved (AIPerf's hash-id synthesis): each
 * `hash_id` stands for one block of `blockSize` tokens, the same id always gives the same text, and different ids
 * give different text, so requests that shared a KV-cache prefix in the trace share it again.
 *
 * Layouts, as AIPerf: ids × block = length (every block full); (ids−1) × block < length < ids × block (the last id
 * is a partial block of the remaining tokens, cached per id and size); ids × block < length (the ids cover a
 * prefix, and the tail is fresh text). Without ids the whole prompt is fresh text.
 *
 * Blocks are joined as text, so a block boundary may encode a token differently than either side alone; each
 * turn's ISL is counted from the text actually sent, never assumed.
 */
import type { PromptSynthesizer } from "./prompt_synthesizer.ts";

export class HashBlockPrompts {
  readonly #synth: PromptSynthesizer;
  readonly #blockSize: number;
  readonly #blocks = new Map<string, string>();

  constructor(synthesizer: PromptSynthesizer, blockSize: number) {
    if (!Number.isInteger(blockSize) || blockSize < 1) {
      throw new RangeError(`The hash block size must be a positive integer, got ${blockSize}`);
    }
    this.#synth = synthesizer;
    this.#blockSize = blockSize;
  }

  /**
   * A prompt of `length` tokens whose blocks follow `hashIds`.
   *
   * @throws {RangeError} when the ids do not fit the length (the implied last block is empty or too long).
   */
  async prompt(length: number, hashIds: readonly number[] = []): Promise<string> {
    const block = this.#blockSize;
    if (hashIds.length === 0) return (await this.#synth.prompt(length)).text;
    const m = hashIds.length;
    const parts: string[] = [];
    if (m * block > length) {
      const last = length - (m - 1) * block;
      if (last <= 0) {
        throw new RangeError(
          `${m} hash_ids of ${block} tokens do not fit input_length ${length}: the last block would hold ${last} ` +
            `tokens; give at most ${Math.ceil(length / block)} hash_ids or check --isl-block-size`,
        );
      }
      for (let i = 0; i < m - 1; i++) parts.push(await this.#block(hashIds[i], block));
      parts.push(await this.#block(hashIds[m - 1], last));
    } else {
      for (const id of hashIds) parts.push(await this.#block(id, block));
      const tail = length - m * block;
      if (tail > 0) parts.push((await this.#synth.prompt(tail)).text);
    }
    return parts.join(" ");
  }

  /** The text of one full block: the same for the same id. */
  block(id: number): Promise<string> {
    return this.#block(id, this.#blockSize);
  }

  /** Fresh text of `length` tokens, shared with no block (a prompt's unhashed tail). */
  async fresh(length: number): Promise<string> {
    return (await this.#synth.prompt(length)).text;
  }

  async #block(id: number, size: number): Promise<string> {
    const key = size === this.#blockSize ? `${id}` : `${id}:${size}`;
    let text = this.#blocks.get(key);
    if (text === undefined) {
      text = (await this.#synth.prompt(size)).text;
      this.#blocks.set(key, text);
    }
    return text;
  }
}
