/**
 * Every command reads its options with the one table-driven parser and renders `--help` from its table: checked on
 * the real CLI, for each command's table.
 */
import assert from "node:assert/strict";
import { assertExit, runCli, tempDir } from "./cli_harness.ts";
import type { Command } from "../../src/config/command_spec.ts";
import { declaredDefault, isValueOption, negatedFlagNames, optionFlagNames } from "../../src/config/option_spec.ts";
import { PROFILE_COMMAND } from "../../src/config/option_table.ts";
import { CALIBRATE_COMMAND } from "../../src/cli/calibrate_command.ts";
import { DEMO_COMMAND } from "../../src/cli/demo_command.ts";
import { SERVE_SIM_COMMAND } from "../../src/cli/serve_sim_command.ts";

const COMMANDS: readonly Command[] = [PROFILE_COMMAND, SERVE_SIM_COMMAND, CALIBRATE_COMMAND, DEMO_COMMAND];

/** The default `--help` must show for an option: its description of the default, or the constant itself. */
function expectedDefault(spec: Command["options"][number]): string | undefined {
  if (spec.defaultDescription !== undefined) return spec.defaultDescription;
  const value = declaredDefault(spec);
  if (value === undefined || value === false) return undefined;
  if (value === true) return "on";
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.join(",");
  return typeof value === "object" ? undefined : String(value);
}

for (const command of COMMANDS) {
  Deno.test(`${command.name} --help lists every option with all its spellings and its default, and exits 0`, async () => {
    await using tmp = await tempDir();
    const run = await runCli([command.name, "--help"], { cwd: tmp.path });
    assertExit(run, 0);
    assert.match(run.stdout, new RegExp(`^Usage: infermeter ${command.name} `));
    // Each option's block: its spellings on one line, its description (with the default) below, up to the next one.
    const blocks = new Map<string, string>();
    for (const block of run.stdout.split(/\n(?= {2}-)/)) {
      const [term, ...rest] = block.split("\n");
      blocks.set(term.trim(), rest.join(" ").replace(/\s+/g, " "));
    }
    let listed = 0;
    for (const spec of command.options) {
      if (!isValueOption(spec) || spec.hidden) continue;
      const names = [...optionFlagNames(spec), ...negatedFlagNames(spec)].join(", ");
      const term = [...blocks.keys()].find((t) => t === names || t.startsWith(`${names} `));
      assert.ok(term !== undefined, `${command.name} --help lists ${names}`);
      const wanted = expectedDefault(spec);
      if (wanted !== undefined) {
        assert.ok(blocks.get(term)!.includes(`default: ${wanted}`), `${names} shows 'default: ${wanted}'`);
      }
      listed++;
    }
    assert.ok(listed >= 5, `${command.name} lists its options (${listed})`);
    for (const spec of command.options) {
      if (spec.hidden) assert.ok(!run.stdout.includes(spec.flags[0]), `${spec.flags[0]} is hidden`);
    }
  });
}

const MISSPELLED: ReadonlyArray<readonly [string, readonly string[], string]> = [
  ["serve-sim", ["--prot", "0"], "--port"],
  ["calibrate", ["--stream", "2"], "--streams"],
  ["demo", ["--concurency", "2"], "--concurrency"],
];

for (const [name, args, suggestion] of MISSPELLED) {
  Deno.test(`${name} rejects a misspelled flag with exit 2, one stderr line and a hint`, async () => {
    await using tmp = await tempDir();
    const run = await runCli([name, ...args], { cwd: tmp.path });
    assertExit(run, 2);
    assert.equal(run.stdout, "");
    assert.equal(run.stderr.trimEnd().split("\n").length, 1, `one stderr line:\n${run.stderr}`);
    assert.match(run.stderr, new RegExp(`^error: Unknown option '${args[0]}'; did you mean '${suggestion}'\\?`));
    assert.match(run.stderr, new RegExp(`See 'infermeter ${name} --help' for all options\\.`));
  });
}
