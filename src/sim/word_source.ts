/**
 * Output text of the simulated server: a deterministic stream of `" word"` pieces, one o200k_base token each
 * (see `sim_words.ts`), so the text of n tokens re-tokenizes to exactly n tokens.
 */
import type { SeededRandom } from "../base/seeded_random.ts";
import { SIM_WORD_BITS, SIM_WORDS } from "./sim_words.ts";

/** `" " + word` for every word; built once so the hot path only indexes and concatenates. */
const PIECES: readonly string[] = SIM_WORDS.map((w) => " " + w);
const SHIFT = 32 - SIM_WORD_BITS;

export class WordSource {
  readonly #rng: SeededRandom;

  constructor(rng: SeededRandom) {
    this.#rng = rng;
  }

  /** The text of the next `n` tokens (empty for n ≤ 0). */
  take(n: number): string {
    let text = "";
    for (let i = 0; i < n; i++) text += PIECES[this.#rng.nextUint32() >>> SHIFT];
    return text;
  }
}
