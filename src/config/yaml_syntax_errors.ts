/**
 * Every syntax error of a YAML file, each with its line and column. js-yaml (the loader) stops at the first error;
 * this second parser (eemeli's `yaml`, loaded only when the file is broken) recovers and goes on, so a user fixes
 * them all in one pass. An error it does not see (the two parsers disagree on the margins) leaves the loader's own
 * message in place.
 */
import { LineCounter, parseAllDocuments } from "yaml";

/** `file:line:col: invalid YAML (why); …` for each error, in file order; empty when this parser finds none. */
export function yamlSyntaxErrors(text: string, file: string): string[] {
  const lines = new LineCounter();
  const out: string[] = [];
  const seen = new Set<string>();
  for (const doc of parseAllDocuments(text, { lineCounter: lines, prettyErrors: false })) {
    for (const error of doc.errors) {
      const { line, col } = lines.linePos(error.pos[0]);
      const key = `${line}:${col}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const why = error.message.split("\n")[0].replace(/ at line \d+, column \d+.*$/, "");
      out.push(`${file}:${line}:${col}: invalid YAML (${why}); fix the syntax at that position.`);
    }
  }
  return out;
}
