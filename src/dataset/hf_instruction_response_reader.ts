/**
 * AIPerf 0.13's flat instruction/response datasets (aimo*, spec_al_gsm8k/math500/humaneval/mbpp, instruct_coder,
 * blazedit_*, mmstar): each row is one single-turn conversation whose prompt is the row's prompt column (or the
 * dataset's template filled from the row's columns), with the row's first image when the dataset has an image column.
 * Rows whose prompt is missing or blank are skipped; the first row lacking the prompt column (without a template) is
 * an error naming the columns there are.
 */
import type { Conversation } from "./conversation.ts";
import { DatasetError } from "./dataset_error.ts";
import { firstImage } from "./hf_media.ts";
import { conversationId, type HfRowReader } from "./hf_reader.ts";
import { pythonFormat } from "./python_format.ts";

export interface InstructionResponseColumns {
  readonly promptColumn: string;
  readonly imageColumn?: string;
  /** A Python `str.format` template over the row's columns, replacing the prompt column. */
  readonly promptTemplate?: string;
}

export function instructionResponseReader(columns: InstructionResponseColumns): HfRowReader {
  return async (rows, ctx) => {
    const conversations: Conversation[] = [];
    let first = true;
    for await (const row of rows) {
      if (ctx.limit !== undefined && conversations.length >= ctx.limit) break;
      if (first) {
        first = false;
        if (columns.promptTemplate === undefined && !(columns.promptColumn in row)) {
          throw new DatasetError(
            ctx.where,
            undefined,
            `has no column '${columns.promptColumn}' (columns: ${Object.keys(row).join(", ")})`,
          );
        }
      }
      const prompt = columns.promptTemplate === undefined
        ? row[columns.promptColumn]
        : pythonFormat(columns.promptTemplate, row, ctx.where);
      if (prompt === undefined || prompt === null || prompt === "" || String(prompt).trim() === "") continue;
      const media = columns.imageColumn === undefined ? [] : firstImage(row[columns.imageColumn]);
      conversations.push({
        id: conversationId(ctx.name, conversations.length),
        turns: [{ texts: [String(prompt)], ...(media.length > 0 ? { media } : {}) }],
      });
    }
    return conversations;
  };
}
