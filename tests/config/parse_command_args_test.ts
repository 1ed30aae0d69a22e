import assert from "node:assert/strict";
import { ConfigError } from "../../src/config/config_error.ts";
import { defineCommand } from "../../src/config/command_spec.ts";
import type { OptionSpec } from "../../src/base/option_spec.ts";
import { parseCommandArgs } from "../../src/config/parse_command_args.ts";

const OPTIONS = [
  { key: "port", type: "int", default: 8000, min: 0, flags: ["--port"], short: "-p", group: "Options", help: "Port." },
  { key: "fast", type: "bool", default: false, flags: ["--fast"], group: "Options", help: "Fast." },
  { key: "name", type: "string", env: "SAMPLE_NAME", flags: ["--name"], group: "Options", help: "Name." },
  { key: "tags", type: "list", items: "text", default: ["a"], flags: ["--tags"], group: "Options", help: "Tags." },
] as const satisfies readonly OptionSpec[];

const SAMPLE = defineCommand({ name: "sample", description: "Sample.", options: OPTIONS });
const PASSING = defineCommand({
  name: "passing",
  description: "Passes on.",
  options: OPTIONS,
  afterTerminator: "passOn",
});

/** The problems of the ConfigError thrown for `argv`. */
function problemsOf(argv: readonly string[]): readonly string[] {
  try {
    parseCommandArgs(SAMPLE, argv);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.problems;
  }
  assert.fail(`expected ${argv.join(" ")} to be rejected`);
}

Deno.test("parseCommandArgs gives every option its table default, typed, unless it is given", () => {
  const parsed = parseCommandArgs(SAMPLE, []);
  assert.deepEqual(parsed.values, { port: 8000, fast: false, tags: ["a"] });
  assert.deepEqual(parsed.sources, { port: "default", fast: "default", name: "default", tags: "default" });
  const given = parseCommandArgs(SAMPLE, ["-p", "0", "--fast", "--tags", "x,y"], { env: { SAMPLE_NAME: "env" } });
  assert.deepEqual(given.values, { port: 0, fast: true, name: "env", tags: ["x", "y"] });
  assert.equal(given.sources.name, "env");
  assert.ok(Object.isFrozen(given.values));
});

Deno.test("parseCommandArgs rejects unknown flags with a hint naming the command, and bad values", () => {
  assert.deepEqual(problemsOf(["--prot", "1"]), [
    "Unknown option '--prot'; did you mean '--port'? See 'infermeter sample --help' for all options.",
  ]);
  assert.deepEqual(problemsOf(["--port", "x", "stray"]), [
    "Unexpected argument 'stray'; every value must follow its option (quote values that contain spaces), see " +
    "'infermeter sample --help' for all options.",
    "-p/--port: 'x' is not a whole number; give a whole number of at least 0.",
  ]);
});

Deno.test("parseCommandArgs passes the words after -- on only for a command that declares it", () => {
  assert.deepEqual(parseCommandArgs(PASSING, ["--fast", "--", "--isl", "5"]).passedOn, ["--isl", "5"]);
  assert.deepEqual(parseCommandArgs(PASSING, ["--fast"]).passedOn, []);
  assert.match(problemsOf(["--", "--isl"])[0], /^Unexpected argument '--isl'/);
});

Deno.test("parseCommandArgs returns operands for a command that accepts them, still rejecting unknown flags", () => {
  const OPERANDS = defineCommand({ name: "ops", description: "Operands.", options: OPTIONS, operands: "accept" });
  const parsed = parseCommandArgs(OPERANDS, ["a", "--port", "1", "b", "--", "--c"]);
  assert.deepEqual(parsed.operands, ["a", "b", "--c"]);
  assert.equal(parsed.values.port, 1);
  assert.deepEqual(parseCommandArgs(SAMPLE, []).operands, []);
  assert.throws(() => parseCommandArgs(OPERANDS, ["a", "--prot", "1"]), /Unknown option '--prot'/);
});

Deno.test("parseCommandArgs reports a required option given nowhere with the table's sentence", () => {
  const required = defineCommand({
    name: "needs",
    description: "Needs a name.",
    options: [{ key: "name", type: "string", required: "Give --name.", flags: ["--name"], group: "G", help: "Name." }],
  });
  assert.throws(() => parseCommandArgs(required, []), (error: unknown) => {
    assert.ok(error instanceof ConfigError);
    assert.deepEqual(error.problems, ["Give --name."]);
    return true;
  });
  assert.deepEqual(parseCommandArgs(required, ["--name", "n"]).values, { name: "n" });
});
