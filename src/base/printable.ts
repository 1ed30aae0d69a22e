/**
 * Text from outside (a dataset line, a server's message) made safe to print on a terminal: control characters are
 * shown as escapes (`\x1b`, `\u009b`) instead of being sent raw, so an escape sequence in a dataset line cannot
 * recolour, move the cursor, retitle or clear the user's terminal when an error message quotes it. Tabs and line
 * breaks stay as they are.
 */
// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

export function printable(text: string): string {
  CONTROL.lastIndex = 0;
  if (!CONTROL.test(text)) return text;
  return text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x80 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}
