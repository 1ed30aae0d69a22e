import assert from "node:assert/strict";
import { PROFILE_COMMAND } from "../../src/config/option_table.ts";
import { defineCommand } from "../../src/config/command_spec.ts";
import type { UnsupportedOptionSpec } from "../../src/base/option_spec.ts";
import {
  type AiperfOption,
  optionSectionOf,
  renderOptionParity,
  SECTION_BEGIN,
  SECTION_END,
  withOptionSection,
} from "./option_parity.ts";

const ROOT = new URL("../../", import.meta.url);

Deno.test("docs/aiperf_parity.md's options section is what the option tables give now", async () => {
  const list: { version: string; options: AiperfOption[] } = JSON.parse(
    await Deno.readTextFile(new URL("tests/fixtures/aiperf_0.13_profile_options.json", ROOT)),
  );
  const doc = await Deno.readTextFile(new URL("docs/aiperf_parity.md", ROOT));
  const expected = renderOptionParity(list.options, PROFILE_COMMAND, list.version);
  assert.equal(
    optionSectionOf(doc),
    expected,
    "run: deno run -A scripts/aiperf_parity/write_option_parity.ts",
  );
  assert.match(expected, /Unknown: 0\./);
});

Deno.test("renderOptionParity names an unknown option, a no-effect one and a pending one, with why", () => {
  const option = (flag: string, extra: Partial<AiperfOption> = {}): AiperfOption => ({
    flags: [flag],
    short: [],
    negative: [],
    group: "G",
    kind: "value",
    choices: null,
    default: null,
    help: "",
    ...extra,
  });
  // Every AIPerf option is built today, so the pending one is declared here as a feature still to come would be.
  const future: UnsupportedOptionSpec = {
    type: "unsupported",
    pending: "a feature to come",
    arity: "required",
    flags: ["--future-flag"],
    group: "Not Supported Yet",
    help: "AIPerf option of a feature to come, not built yet.",
  };
  const command = defineCommand({ ...PROFILE_COMMAND, options: [...PROFILE_COMMAND.options, future] });
  const text = renderOptionParity(
    [option("--no-such-flag"), option("--zmq-host"), option("--future-flag"), option("--concurrency")],
    command,
    "0.13.0",
  );
  assert.match(text, /\| `--no-such-flag` \| \*\*unknown\*\* \|/);
  assert.match(text, /\| `--zmq-host` \| accepted, no effect \| infermeter runs as one process with Workers/);
  assert.match(text, /\| `--future-flag` \| not built yet \| a feature to come/);
  assert.match(text, /\| `--concurrency` \| same \| {2}\|/);
  assert.match(text, /Same: 1\. .* Unknown: 1\./);
});

Deno.test("withOptionSection replaces the marked section and keeps the rest", () => {
  const section = `${SECTION_BEGIN}\nnew\n${SECTION_END}`;
  assert.equal(withOptionSection("# Doc\n", section), `# Doc\n\n${section}\n`);
  const doc = `# Doc\nbefore\n${SECTION_BEGIN}\nold\n${SECTION_END}\nafter\n`;
  assert.equal(withOptionSection(doc, section), `# Doc\nbefore\n${section}\nafter\n`);
  assert.equal(optionSectionOf(withOptionSection(doc, section)), section);
});
