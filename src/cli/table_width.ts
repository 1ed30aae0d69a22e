/**
 * The width the commands fit their tables to: `--console-width` when given, else the terminal's width when stdout is
 * a terminal, else a fixed width for files and pipes (wide enough for every table without wrapping).
 */

/** The terminal's width in columns, or undefined when stdout is not a terminal. */
export function terminalWidth(): number | undefined {
  if (!Deno.stdout.isTerminal()) return undefined;
  try {
    return Deno.consoleSize().columns;
  } catch {
    return undefined;
  }
}

/** `explicit`, else `terminal`, else `fallback`; never under 40 columns for a terminal (a table needs some room). */
export function tableWidth(explicit: number | undefined, terminal: number | undefined, fallback = 160): number {
  if (explicit !== undefined) return explicit;
  return terminal !== undefined ? Math.max(40, terminal) : fallback;
}
