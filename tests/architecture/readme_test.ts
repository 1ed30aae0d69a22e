/** The README's promises that code can check: its in-page links lead somewhere, and its list of AIPerf options not
 * supported yet is the parser's. */
import assert from "node:assert/strict";
import { OPTION_TABLE } from "../../src/config/option_table.ts";

const README = await Deno.readTextFile(new URL("../../README.md", import.meta.url));

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\w\- ]/g, "").replace(/ /g, "-");
}

Deno.test("README in-page links point at headings that exist", () => {
  const anchors = new Set([...README.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1])));
  const links = [...README.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]);
  assert.ok(links.includes("supported-today"), "the usage section links to Supported today");
  assert.deepEqual(links.filter((l) => !anchors.has(l)), []);
});

Deno.test("README's Supported today points to the generated list that names every AIPerf option not supported yet", async () => {
  const section = README.slice(
    README.indexOf("### Supported today"),
    README.indexOf("\n## ", README.indexOf("### Supported today")),
  );
  assert.match(section, /\[docs\/aiperf_parity\.md\]\(docs\/aiperf_parity\.md\) \("Options"\)/);
  const parity = await Deno.readTextFile(new URL("../../docs/aiperf_parity.md", import.meta.url));
  const unsupported = OPTION_TABLE.filter((o) => o.type === "unsupported").map((o) => o.flags[0]);
  assert.deepEqual(unsupported.filter((flag) => !parity.includes(`\`${flag}\``)), []);
});
