import assert from "node:assert/strict";
import { EXIT } from "../../src/cli/exit_codes.ts";

const ROOT = new URL("../../", import.meta.url);

/** The codes listed in the first table after `heading` in a Markdown file. */
async function documentedCodes(file: string, heading: string): Promise<number[]> {
  const text = await Deno.readTextFile(new URL(file, ROOT));
  const at = text.indexOf(heading);
  assert.ok(at >= 0, `${file} has a "${heading}" section`);
  const codes: number[] = [];
  let inTable = false;
  for (const line of text.slice(at).split("\n").slice(1)) {
    const row = /^\|\s*(\d+)\s*\|/.exec(line);
    if (row) {
      inTable = true;
      codes.push(Number(row[1]));
    } else if (inTable && !line.startsWith("|")) break;
  }
  return codes;
}

Deno.test("README and docs/reliability.md list exactly the exit codes of src/cli/exit_codes.ts", async () => {
  const codes = [...new Set(Object.values(EXIT))].sort((a, b) => a - b);
  assert.deepEqual(await documentedCodes("README.md", "## Exit codes"), codes);
  assert.deepEqual(await documentedCodes("docs/reliability.md", "## Exit codes"), codes);
});
