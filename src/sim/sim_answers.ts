/**
 * Known answers for known prompts (`serve-sim --answers FILE`): a request whose last prompt text (the final user
 * message of a chat, a completion's prompt) is listed is answered with the listed text instead of random words, so
 * an accuracy run can be checked end to end. The file holds JSON lines `{"prompt": "...", "answer": "..."}`; prompts
 * are compared with surrounding whitespace removed. The answer is sent in whitespace-led pieces (`"The"`,
 * `" answer"`, `" is"`, …), one per token tick; a max-tokens cap cuts it (finish `length`).
 */
import type { SeededRandom } from "../base/seeded_random.ts";
import { WordSource } from "./word_source.ts";

/** The answers by prompt. */
export class SimAnswers {
  readonly #byPrompt: ReadonlyMap<string, readonly string[]>;

  private constructor(byPrompt: ReadonlyMap<string, readonly string[]>) {
    this.#byPrompt = byPrompt;
  }

  /** How many prompts have an answer. */
  get size(): number {
    return this.#byPrompt.size;
  }

  /**
   * Reads `path`.
   * @throws {RangeError} naming file:line for a line that is not `{"prompt": string, "answer": string}`, or a prompt
   * listed twice with different answers.
   */
  static async read(path: string): Promise<SimAnswers> {
    return SimAnswers.parse(await Deno.readTextFile(path), path);
  }

  /** Parses the text of an answers file (`where` names it in errors). */
  static parse(text: string, where: string): SimAnswers {
    const byPrompt = new Map<string, readonly string[]>();
    const answers = new Map<string, string>();
    text.split("\n").forEach((line, i) => {
      if (line.trim() === "") return;
      const at = `${where}:${i + 1}`;
      let row: unknown;
      try {
        row = JSON.parse(line);
      } catch (err) {
        throw new RangeError(`${at}: not valid JSON (${(err as Error).message})`);
      }
      const { prompt, answer } = (row ?? {}) as { prompt?: unknown; answer?: unknown };
      if (typeof prompt !== "string" || typeof answer !== "string") {
        throw new RangeError(`${at}: expected {"prompt": "<text>", "answer": "<text>"}`);
      }
      const key = prompt.trim();
      const earlier = answers.get(key);
      if (earlier !== undefined && earlier !== answer) {
        throw new RangeError(`${at}: this prompt is listed before with another answer`);
      }
      answers.set(key, answer);
      // Routes put words inside JSON strings as they are (random words need no escaping): escape each piece once.
      byPrompt.set(key, answerPieces(answer).map((piece) => JSON.stringify(piece).slice(1, -1)));
    });
    return new SimAnswers(byPrompt);
  }

  /** The pieces (JSON-escaped) of the answer to a request whose prompt texts are `promptTexts`, or undefined. */
  piecesFor(promptTexts: readonly string[]): readonly string[] | undefined {
    if (promptTexts.length === 0) return undefined;
    return this.#byPrompt.get(promptTexts[promptTexts.length - 1].trim());
  }
}

/** `text` cut before each run of whitespace that follows a non-space: the pieces concatenate back to `text`. */
export function answerPieces(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? [];
}

/**
 * The words of an answered request: the first `reasoningTokens` pieces asked for are random words (the reasoning),
 * the rest are the answer's pieces in order.
 */
export class AnswerWords extends WordSource {
  readonly #pieces: readonly string[];
  #reasoningLeft: number;
  #next = 0;

  constructor(rng: SeededRandom, reasoningTokens: number, pieces: readonly string[]) {
    super(rng);
    this.#reasoningLeft = reasoningTokens;
    this.#pieces = pieces;
  }

  override take(n: number): string {
    const random = Math.min(n, this.#reasoningLeft);
    this.#reasoningLeft -= random;
    let text = super.take(random);
    for (let i = random; i < n && this.#next < this.#pieces.length; i++) text += this.#pieces[this.#next++];
    return text;
  }
}
