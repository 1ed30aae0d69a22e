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
 * the text's code-point length. When the table is wider than `maxWidth`, only columns marked `wrap` are
 * narrowed (their text wraps at spaces); other columns — numbers — never wrap.
 */

export type Justify = "left" | "right" | "center";

export interface BoxColumn {
  readonly header: string;
  /** @default "right" */
  readonly justify?: Justify;
  /** The column may be narrowed and its text wrapped to fit `maxWidth`. @default false */
  readonly wrap?: boolean;
}

export interface BoxTableOptions {
  /** Centered over the table; omitted when undefined. */
  readonly title?: string;
  /** Widest the table may be, in columns (only `wrap` columns give way). @default Infinity */
  readonly maxWidth?: number;
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
  columns: readonly BoxColumn[],
  rows: readonly (readonly string[])[],
  options: BoxTableOptions = {},
): string {
  const maxWidth = options.maxWidth ?? Infinity;
  const cellsOf = (i: number) => [columns[i].header, ...rows.map((r) => r[i] ?? "")];
  const widths = columns.map((_, i) => Math.max(...cellsOf(i).map((c) => Math.max(...c.split("\n").map(width)))));
  const total = () => widths.reduce((a, b) => a + b, 0) + 3 * columns.length + 1;
  // Narrow wrappable columns, widest first, down to their longest word.
  const floors = columns.map((c, i) => (c.wrap ? Math.max(1, ...cellsOf(i).map(longestWord)) : widths[i]));
  while (total() > maxWidth) {
    let widest = -1;
    for (let i = 0; i < columns.length; i++) {
      if (widths[i] > floors[i] && (widest < 0 || widths[i] > widths[widest])) widest = i;
    }
    if (widest < 0) break;
    widths[widest] -= Math.min(total() - maxWidth, widths[widest] - floors[widest]);
  }
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
  const tableWidth = total();
  if (options.title !== undefined) lines.push(justify(options.title, tableWidth, "center").trimEnd());
  lines.push(rule("┏", "━", "┳", "┓"));
  lines.push(...renderRow(columns.map((c) => c.header), "┃"));
  lines.push(rule("┡", "━", "╇", "┩"));
  for (const r of rows) lines.push(...renderRow(r, "│"));
  lines.push(rule("└", "─", "┴", "┘"));
  return lines.join("\n");
}
