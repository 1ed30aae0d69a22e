/**
 * The contract of a public dataset's row reader: rows of the dataset's split in, conversations out, each reader one
 * AIPerf 0.13 loader's rules.
 */
import type { Conversation } from "./conversation.ts";
import type { HfRow } from "./hf_rows.ts";
import type { PublicDatasetContext } from "./sharegpt_loader.ts";

/** What a row reader is given besides the rows. */
export interface HfReadContext extends PublicDatasetContext {
  /** The public dataset's name: conversation ids are `<name>_<index>`. */
  readonly name: string;
  /** The repository and split, for messages (`openai/gsm8k (main, test)`). */
  readonly where: string;
  /**
   * Stop after this many conversations (AIPerf caps streamed datasets at the request count or conversation count);
   * undefined = every row.
   */
  readonly limit?: number;
}

export type HfRowReader = (rows: AsyncIterable<HfRow>, ctx: HfReadContext) => Promise<Conversation[]>;

/** The id of the `index`-th conversation of a public dataset. */
export function conversationId(name: string, index: number): string {
  return `${name}_${String(index).padStart(6, "0")}`;
}
