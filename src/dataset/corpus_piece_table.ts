/**
 * The prompt corpus as pre-tokenizer pieces with their token counts, computed once at build time
 * (`deno task gen-corpus-pieces` writes `corpus_pieces.ts`) so that synthetic prompts need no tokenizer tables
 * at start-up: a window of `n` tokens that starts and ends on piece boundaries is exact by construction (see
 * `PieceEncoding` in tokenizer/tokenizer.ts), and its text is a plain slice of the corpus.
 *
 * The table is tied to its tokenizer (the builtin one's cache key, which names the pinned rank data) and to the
 * exact corpus text (length and FNV-1a hash); anything else falls back to tokenizing at run time. A test
 * rebuilds the table and compares, so a corpus or tokenizer change without regenerating fails CI.
 *
 * Encoding: per piece, its length in UTF-16 code units then its token count, each an unsigned LEB128 varint;
 * the bytes as base64.
 */
import type { Tokenizer } from "../tokenizer/tokenizer.ts";
import { hashString } from "../base/seeded_random.ts";

/** The corpus as a sequence of tokens. */
export interface TokenPool {
  /** Number of tokens. */
  readonly size: number;
  /** `boundary[i]` = 1 when token `i` starts a piece (length `size + 1`); undefined when unknown. */
  readonly boundary: Uint8Array | undefined;
  /** The text of tokens `[start, end)`; exact only when both are boundaries. */
  text(start: number, end: number): string;
}

export interface PieceTableData {
  /** Which tokenizer counted the pieces (the builtin tokenizer's cache key). */
  readonly tokenizer: string;
  /** Length and hash (`hashString`, FNV-1a) of the cleaned corpus text the pieces cover. */
  readonly textLength: number;
  readonly textHash: number;
  /** Base64 of LEB128 varint pairs (piece length in code units, piece token count). */
  readonly pieces: string;
}

/**
 * The text prompts are cut from: lines trimmed, blank lines dropped, joined with "\n". Shared by the synthesizer
 * and the table builder so both see the same text.
 */
export function cleanCorpus(corpus: string): string {
  return corpus
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .join("\n");
}

/**
 * Builds the table of `text` (already cleaned) with a tokenizer that reports piece boundaries.
 *
 * @throws {Error} when the tokenizer reports no boundaries for the text, or the pieces do not decode back to it.
 */
export function buildPieceTable(tokenizer: Tokenizer, text: string, tokenizerKey: string): PieceTableData {
  const encoding = tokenizer.encodeWithPieceStarts?.(text);
  if (encoding === undefined) throw new Error(`${tokenizer.name} does not report piece boundaries`);
  const { ids, boundary } = encoding;
  if (ids.length === 0 || boundary[0] !== 1 || boundary[ids.length] !== 1) {
    throw new Error("the corpus does not start and end on piece boundaries; it cannot be tabled");
  }
  const bytes: number[] = [];
  let chars = 0;
  let start = 0;
  for (let i = 1; i <= ids.length; i++) {
    if (boundary[i] !== 1) continue;
    const piece = tokenizer.decode(ids.slice(start, i));
    if (text.slice(chars, chars + piece.length) !== piece) {
      throw new Error(`piece ${JSON.stringify(piece)} at code unit ${chars} does not decode to the corpus text`);
    }
    pushVarint(bytes, piece.length);
    pushVarint(bytes, i - start);
    chars += piece.length;
    start = i;
  }
  if (chars !== text.length) throw new Error(`the pieces cover ${chars} of ${text.length} code units`);
  return {
    tokenizer: tokenizerKey,
    textLength: text.length,
    textHash: hashString(text),
    pieces: new Uint8Array(bytes).toBase64(),
  };
}

/**
 * A token pool over `text` from its table, or undefined when the table is for another tokenizer or text.
 * `tokenizerKey` is the key of the tokenizer the caller will count with. `textKnown`: the caller knows the table was
 * built from this very text (the bundled corpus and its generated table, which a test keeps in step), so the text's
 * hash — a few milliseconds at start — is not computed.
 */
export function piecePool(
  data: PieceTableData,
  text: string,
  tokenizerKey: string,
  textKnown = false,
): TokenPool | undefined {
  if (data.tokenizer !== tokenizerKey || data.textLength !== text.length) return undefined;
  if (!textKnown && data.textHash !== hashString(text)) return undefined;
  // (code units, tokens) varint pairs, one per piece, decoded into typed arrays without a per-value allocation: this
  // runs once before every synthetic run's first request, still in V8's interpreter (docs/performance.md §7).
  const bytes = Uint8Array.fromBase64(data.pieces);
  const lengths = new Int32Array(bytes.length >> 1);
  const counts = new Int32Array(bytes.length >> 1);
  let pieces = 0;
  let size = 0;
  for (let at = 0; at < bytes.length;) {
    let b = bytes[at++];
    let length = b & 0x7f;
    for (let shift = 7; b >= 0x80; shift += 7) {
      b = bytes[at++];
      length += (b & 0x7f) * 2 ** shift;
    }
    b = bytes[at++];
    let count = b & 0x7f;
    for (let shift = 7; b >= 0x80; shift += 7) {
      b = bytes[at++];
      count += (b & 0x7f) * 2 ** shift;
    }
    lengths[pieces] = length;
    counts[pieces++] = count;
    size += count;
  }
  const boundary = new Uint8Array(size + 1);
  // Code-unit offset of each boundary token index (only read at boundaries).
  const offsetAt = new Int32Array(size + 1);
  let token = 0;
  let chars = 0;
  for (let p = 0; p < pieces; p++) {
    boundary[token] = 1;
    offsetAt[token] = chars;
    token += counts[p];
    chars += lengths[p];
  }
  if (chars !== text.length) return undefined;
  boundary[size] = 1;
  offsetAt[size] = chars;
  return { size, boundary, text: (start, end) => text.slice(offsetAt[start], offsetAt[end]) };
}

function pushVarint(out: number[], value: number): void {
  while (value >= 0x80) {
    out.push((value % 0x80) | 0x80);
    value = Math.floor(value / 0x80);
  }
  out.push(value);
}
