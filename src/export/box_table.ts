/**
 * A plain-text table in Rich's `HEAVY_HEAD` box style, as AIPerf prints its results:
 *
 * ```
 *        Title centered over the table
 * ┏━━━━━━┳━━━━━┓
 * ┃ Head ┃ avg ┃
 * ┡━━━━━━╇━━━━━┩
 * │ cell │ 1.0 │
 * └──────┴─────┘
 * ```
 *
 * One space of padding on each side of a cell. Every box character is one column wide, so alignment uses
 * the text's code-point length. A table never gets wider than `maxWidth`; to fit, in this order:
 *
 * 1. columns marked `wrap` narrow down to their longest word (their text wraps at spaces);
 * 2. columns with a `dropOrder` are left out, lowest order first (a note under the table names them);
 * 3. as a last resort, words are broken: `wrap` columns first (down to 6 characters), then any column, widest
 *    first, down to one character.
 *
 * A table that fits is drawn exactly as before (AIPerf's layout).
 */

export type Justify = "left" | "right" | "center";

export interface BoxColumn {
  readonly header: string;
  /** @default "right" */
  readonly justify?: Justify;
  /** The column may be narrowed and its text wrapped to fit `maxWidth`. @default false */
  readonly wrap?: boolean;
  /** The column may be left out when the table does not fit otherwise; lower orders go first. @default never */
  readonly dropOrder?: number;
  /** Least width of its cells (Rich's `min_width`). @default 0 */
  readonly minWidth?: number;
}

export interface BoxTableOptions {
  /** Centered over the table; omitted when undefined. */
  readonly title?: string;
  /** Widest the table may be, in columns (only `wrap` columns give way). @default Infinity */
  readonly maxWidth?: number;
  /** A rule between body rows (Rich's `show_lines`). @default false */
  readonly showLines?: boolean;
}

function width(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

function justify(text: string, w: number, how: Justify): string {
  const gap = Math.max(0, w - width(text));
  if (how === "left") return text + " ".repeat(gap);
  if (how === "right") return " ".repeat(gap) + text;
  const left = Math.floor(gap / 2);
  return " ".repeat(left) + text + " ".repeat(gap - left);
}

/** Greedy word wrap to `w` columns; words longer than `w` are split. Keeps explicit line breaks. */
export function wrapText(text: string, w: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    for (let word of paragraph.split(" ")) {
      while (width(word) > w) {
        if (line !== "") {
          lines.push(line);
          line = "";
        }
        const chars = [...word];
        lines.push(chars.slice(0, w).join(""));
        word = chars.slice(w).join("");
      }
      if (line === "") line = word;
      else if (width(line) + 1 + width(word) <= w) line += " " + word;
      else {
        lines.push(line);
        line = word;
      }
    }
    lines.push(line);
  }
  return lines;
}

/** The longest single word of `text` (the narrowest a wrapped column can get without splitting words). */
function longestWord(text: string): number {
  return Math.max(0, ...text.split(/[ \n]/).map(width));
}

/** Renders the table; returns the lines joined with `\n` (no trailing newline). */
export function renderBoxTable(
  allColumns: readonly BoxColumn[],
  allRows: readonly (readonly string[])[],
  options: BoxTableOptions = {},
): string {
  const maxWidth = options.maxWidth ?? Infinity;
  let keep = allColumns.map((_, i) => i);
  let layout = fitColumns(allColumns, allRows, maxWidth, false);
  // 2. Leave out droppable columns, lowest order first (the rightmost of equals), until the table fits.
  while (layout.total > maxWidth) {
    const candidates = keep.filter((i) => allColumns[i].dropOrder !== undefined);
    if (candidates.length === 0) break;
    const drop = candidates.reduce((a, b) => (allColumns[b].dropOrder! <= allColumns[a].dropOrder! ? b : a));
    keep = keep.filter((i) => i !== drop);
    layout = fitColumns(
      keep.map((i) => allColumns[i]),
      allRows.map((r) => keep.map((i) => r[i] ?? "")),
      maxWidth,
      false,
    );
  }
  const columns = keep.map((i) => allColumns[i]);
  const rows = allRows.map((r) => keep.map((i) => r[i] ?? ""));
  // 3. Break words.
  if (layout.total > maxWidth) layout = fitColumns(columns, rows, maxWidth, true);
  const widths = layout.widths;
  const rule = (l: string, fill: string, mid: string, r: string) =>
    l + widths.map((w) => fill.repeat(w + 2)).join(mid) + r;
  const renderRow = (cells: readonly string[], edge: string) => {
    const wrapped = columns.map((_, i) => wrapText(cells[i] ?? "", widths[i]));
    const height = Math.max(...wrapped.map((w) => w.length));
    const out: string[] = [];
    for (let line = 0; line < height; line++) {
      const parts = columns.map((c, i) => ` ${justify(wrapped[i][line] ?? "", widths[i], c.justify ?? "right")} `);
      out.push(edge + parts.join(edge) + edge);
    }
    return out;
  };
  const lines: string[] = [];
  const tableWidth = layout.total;
  if (options.title !== undefined) {
    const titleLines = width(options.title) <= tableWidth ? [options.title] : wrapText(options.title, tableWidth);
    for (const t of titleLines) lines.push(justify(t, tableWidth, "center").trimEnd());
  }
  lines.push(rule("┏", "━", "┳", "┓"));
  lines.push(...renderRow(columns.map((c) => c.header), "┃"));
  lines.push(rule("┡", "━", "╇", "┩"));
  rows.forEach((r, i) => {
    if (i > 0 && options.showLines === true) lines.push(rule("├", "─", "┼", "┤"));
    lines.push(...renderRow(r, "│"));
  });
  lines.push(rule("└", "─", "┴", "┘"));
  if (keep.length < allColumns.length) {
    const left = allColumns.filter((_, i) => !keep.includes(i)).map((c) => c.header.replace(/\s+/g, " "));
    lines.push(...wrapText(`(${left.join(", ")} left out to fit ${maxWidth} columns)`, maxWidth));
  }
  return lines.join("\n");
}

/** Least width a broken-word `wrap` column gives before other columns break theirs. */
const WRAP_COLUMN_FLOOR = 6;

/**
 * Column widths for `maxWidth`: natural widths, then `wrap` columns narrowed to their longest word (widest first);
 * with `breakWords`, then `wrap` columns down to {@link WRAP_COLUMN_FLOOR} and any column down to 1.
 */
function fitColumns(
  columns: readonly BoxColumn[],
  rows: readonly (readonly string[])[],
  maxWidth: number,
  breakWords: boolean,
): { widths: number[]; total: number } {
  const cellsOf = (i: number) => [columns[i].header, ...rows.map((r) => r[i] ?? "")];
  const widths = columns.map((col, i) =>
    Math.max(col.minWidth ?? 0, ...cellsOf(i).map((c) => Math.max(...c.split("\n").map(width))))
  );
  const total = () => widths.reduce((a, b) => a + b, 0) + 3 * columns.length + 1;
  // `level`: take one column at a time off the widest, so broken columns end up alike; else all the excess at once
  // from the widest (the layout AIPerf's tables have).
  const shrink = (floors: readonly number[], level = false) => {
    while (total() > maxWidth) {
      let widest = -1;
      for (let i = 0; i < columns.length; i++) {
        if (widths[i] > floors[i] && (widest < 0 || widths[i] > widths[widest])) widest = i;
      }
      if (widest < 0) return;
      widths[widest] -= level ? 1 : Math.min(total() - maxWidth, widths[widest] - floors[widest]);
    }
  };
  // 1. Narrow wrappable columns, widest first, down to their longest word.
  shrink(columns.map((c, i) => (c.wrap ? Math.max(1, ...cellsOf(i).map(longestWord)) : widths[i])));
  if (breakWords) {
    shrink(columns.map((c, i) => (c.wrap ? Math.min(widths[i], WRAP_COLUMN_FLOOR) : widths[i])), true);
    shrink(columns.map(() => 1), true);
  }
  return { widths, total: total() };
}
