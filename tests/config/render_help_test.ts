import assert from "node:assert/strict";
import { Registry } from "../../src/base/registry.ts";
import { defineCommand } from "../../src/config/command_spec.ts";
import type { OptionSpec } from "../../src/base/option_spec.ts";
import { PROFILE_COMMAND } from "../../src/config/option_table.ts";
import { helpGroups, renderHelp } from "../../src/config/render_help.ts";
import { DATASET_LOADERS } from "../../src/dataset/dataset_loaders.ts";
import { ENDPOINTS } from "../../src/endpoints/endpoint_registry.ts";

const KINDS = new Registry("kind", [
  { name: "plain", description: "The usual kind." },
  { name: "fancy", description: "A kind with a longer description that has to be wrapped below its name." },
], { unsupported: { odd: "not built" } });

const SAMPLE = defineCommand({
  name: "sample",
  usage: "[options] [-- more]",
  description: "Does a thing.\nSecond line.",
  groups: ["Second", "First"],
  options: [
    { key: "a", type: "int", default: 4, flags: ["--alpha", "--a"], short: "-a", group: "First", help: "Alpha." },
    { key: "b", type: "bool", default: true, flags: ["--beta"], group: "Second", env: "SAMPLE_BETA", help: "Beta." },
    { key: "c", type: "enum", choices: KINDS, flags: ["--kind"], group: "First", help: "Kind.", metavar: "<k>" },
    { key: "d", type: "list", items: "text", repeatable: true, flags: ["--dee"], group: "First", help: "Dee." },
    { key: "e", type: "string", hidden: true, flags: ["--secret-mode"], group: "First", help: "Internal." },
    { type: "unsupported", arity: "none", flags: ["--later"], short: "-L", group: "First", help: "Not yet." },
  ] satisfies readonly OptionSpec[],
  epilogue: "\nMore words,\nas written.\n",
});

Deno.test("renderHelp renders usage, description, groups in declared order, defaults, env and registry entries", () => {
  const help = renderHelp(SAMPLE, { width: 60 });
  assert.equal(
    help,
    [
      "Usage: infermeter sample [options] [-- more]",
      "",
      "Does a thing.",
      "Second line.",
      "",
      "Second:",
      "  --beta, --no-beta",
      "        Beta. (default: on; env: SAMPLE_BETA)",
      "",
      "First:",
      "  -a, --alpha, --a <value>",
      "        Alpha. (default: 4)",
      "  --kind <k>",
      "        Kind. (choices: plain, fancy)",
      "          plain: The usual kind.",
      "          fancy: A kind with a longer description that has",
      "            to be wrapped below its name.",
      "  --dee <value>",
      "        Dee. (repeatable)",
      "",
      "Options:",
      "  -h, --help",
      "        Show this help and exit.",
      "",
      "Recognised but not supported yet:",
      "  -L/--later",
      "",
      "More words,",
      "as written.",
      "",
    ].join("\n"),
  );
  assert.deepEqual(helpGroups(SAMPLE), ["Second", "First", "Options"]);
});

Deno.test("profile --help lists exactly the registry's names as the choices of registry-backed options", () => {
  // Each option's block: from its line of spellings to the next one.
  const blocks = renderHelp(PROFILE_COMMAND).split(/\n(?= {2}-)/).map((block) => block.replace(/\s+/g, " ").trim());
  for (
    const [flag, registry] of [["--endpoint-type", ENDPOINTS], ["--custom-dataset-type", DATASET_LOADERS]] as const
  ) {
    const block = blocks.find((b) => b.startsWith(`${flag} <`)) ?? "";
    const listed = /choices: ([^;)]*)/.exec(block)?.[1].split(", ");
    assert.deepEqual(listed, registry.names(), `${flag} lists the ${registry.kind} registry`);
    for (const entry of registry.entries()) {
      assert.ok(block.includes(`${entry.name}: ${entry.description}`), `${flag} describes ${entry.name}`);
    }
    for (const name of Object.keys(registry.unsupported())) {
      assert.ok(!block.includes(name), `${flag} does not offer unsupported '${name}'`);
    }
  }
});
