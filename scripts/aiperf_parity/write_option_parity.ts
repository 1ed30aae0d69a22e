/**
 * Writes the option-by-option section of `docs/aiperf_parity.md` from AIPerf's option list and infermeter's table:
 *
 *   deno run -A scripts/aiperf_parity/write_option_parity.ts [--check]
 *
 * `--check` writes nothing and exits 1 when the committed section is not what the table gives now.
 */
import { PROFILE_COMMAND } from "../../src/config/option_table.ts";
import { type AiperfOption, renderOptionParity, withOptionSection } from "./option_parity.ts";

const ROOT = new URL("../../", import.meta.url);
const DOC = new URL("docs/aiperf_parity.md", ROOT);
const FIXTURE = new URL("tests/fixtures/aiperf_0.13_profile_options.json", ROOT);

const list: { readonly version: string; readonly options: readonly AiperfOption[] } = JSON.parse(
  await Deno.readTextFile(FIXTURE),
);
const doc = await Deno.readTextFile(DOC);
const updated = withOptionSection(doc, renderOptionParity(list.options, PROFILE_COMMAND, list.version));
if (Deno.args.includes("--check")) {
  if (updated !== doc) {
    console.error("docs/aiperf_parity.md's options section is out of date; run this script without --check.");
    Deno.exit(1);
  }
} else {
  await Deno.writeTextFile(DOC, updated);
  console.error("docs/aiperf_parity.md: options section written");
}
