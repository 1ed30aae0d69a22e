/**
 * Every command reads its options with the one table-driven parser and renders `--help` from its table: checked on
 * the real CLI, for each command's table.
 */
import assert from "node:assert/strict";
import { assertExit, runCli, tempDir } from "./cli_harness.ts";
import type { Command } from "../../src/config/command_spec.ts";
import { declaredDefault, isValueOption, negatedFlagNames, optionFlagNames } from "../../src/base/option_spec.ts";
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
  Deno.test(`${command.name} --help${command.name === "profile" ? "-all" : ""} lists every option with all its spellings and its default, and exits 0`, async () => {
    await using tmp = await tempDir();
    // `profile --help` shows a first run's options; `--help-all` shows them all (any other command: `--help`).
    const run = await runCli([command.name, command.name === "profile" ? "--help-all" : "--help"], { cwd: tmp.path });
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

Deno.test("profile --help shows a first run's options and five examples; --help <word> finds the others", async () => {
  await using tmp = await tempDir();
  const short = await runCli(["profile", "--help"], { cwd: tmp.path });
  assertExit(short, 0);
  const terms = short.stdout.split("\n").filter((line) => /^ {2}-/.test(line));
  assert.ok(terms.length >= 18 && terms.length <= 26, `about 20 options (${terms.length})`);
  const lines = short.stdout.split("\n");
  const concurrencyLine = lines.findIndex((line) => line.startsWith("  --concurrency <int>"));
  assert.ok(concurrencyLine > 0 && concurrencyLine < 100, `--concurrency early (line ${concurrencyLine + 1})`);
  assert.equal(short.stdout.match(/^ {8}infermeter profile /gm)?.length, 5, "five examples");
  assert.match(short.stdout, /--help-all/);
  const search = await runCli(["profile", "--help", "ramp"], { cwd: tmp.path });
  assertExit(search, 0);
  assert.match(search.stdout, /Options matching 'ramp' \(\d+ of \d+\)/);
  assert.match(search.stdout, /--concurrency-ramp-duration/);
  assert.doesNotMatch(search.stdout, /--streaming/);
});
