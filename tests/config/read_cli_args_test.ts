/**
 * Edge cases of the table-driven `profile` argument reader. Each expectation is what the former commander-based
 * reader produced (commander 15's `parseOptions` rules), pinned so the two stay interchangeable.
 */
import assert from "node:assert/strict";
import { PROFILE_COMMAND } from "../../src/config/option_table.ts";
import { readCliArgs } from "../../src/config/read_cli_args.ts";

/** Occurrences as `[flag, raw, negated]` (raw `null` when absent) and the problems. */
function read(argv: readonly string[]): { o: (readonly [string, string | null, boolean])[]; p: readonly string[] } {
  const { occurrences, problems } = readCliArgs(argv, PROFILE_COMMAND);
  return { o: occurrences.map((o) => [o.flag, o.raw ?? null, o.negated] as const), p: problems };
}

const SEE = "see 'infermeter profile --help' for all options";
const stray = (word: string) =>
  `Unexpected argument '${word}'; every value must follow its option (quote values that contain spaces), ${SEE}.`;

Deno.test("readCliArgs takes the next word as a required value even when it starts with -", () => {
  assert.deepEqual(read(["--extra-inputs", "-1"]), { o: [["--extra-inputs", "-1", false]], p: [] });
  assert.deepEqual(read(["--model", "-x"]), { o: [["--model", "-x", false]], p: [] });
  assert.deepEqual(read(["--model", "--"]), { o: [["--model", "--", false]], p: [] });
  // ... but not when the next word is a known option: the value was forgotten.
  assert.deepEqual(read(["--model", "--url", "x"]).p, [
    "--model is missing its value (the next word is the option --url); put a value after --model.",
  ]);
});

Deno.test("readCliArgs reads the rest of a short flag word as its value", () => {
  assert.deepEqual(read(["-mfoo"]), { o: [["-m/--model-names", "foo", false]], p: [] });
  assert.deepEqual(read(["-m=foo"]), { o: [["-m/--model-names", "=foo", false]], p: [] });
  assert.deepEqual(read(["-Hname:value"]), { o: [["-H/--header", "name:value", false]], p: [] });
  assert.deepEqual(read(["-fv"]), { o: [["-f/--config", "v", false]], p: [] });
  assert.deepEqual(read(["-bx"]), { o: [["-b/--prompt-batch-size", "x", false]], p: [] });
});

Deno.test("readCliArgs combines short flags without values, then reads the rest as another short flag", () => {
  assert.deepEqual(read(["-vv"]), { o: [["--extra-verbose", null, false]], p: [] });
  assert.deepEqual(read(["-vvv"]), {
    o: [["-v/--verbose", null, false], ["-v/--verbose", null, false], [
      "-v/--verbose",
      null,
      false,
    ]],
    p: [],
  });
  assert.deepEqual(read(["-vm", "x"]), { o: [["-v/--verbose", null, false], ["-m/--model-names", "x", false]], p: [] });
  assert.deepEqual(read(["-vm"]), {
    o: [["-v/--verbose", null, false]],
    p: ["-vm needs a value; put one after it, e.g. -vm VALUE."],
  });
  assert.deepEqual(read(["-vx"]), {
    o: [["-v/--verbose", null, false]],
    p: ["Unknown option '-x'; did you mean '-b', '-f' or '-H'? See 'infermeter profile --help' for all options."],
  });
  assert.deepEqual(read(["-xv"]).p, [
    "Unknown option '-xv'; did you mean '-v' or '-vv'? See 'infermeter profile --help' for all options.",
  ]);
  // `-v-`: the rest of the group is `--`, which ends option parsing.
  assert.deepEqual(read(["-v-", "x"]), { o: [["-v/--verbose", null, false]], p: [stray("x")] });
});

Deno.test("readCliArgs reads --flag=value, including an empty value", () => {
  assert.deepEqual(read(["--model=", "--isl=5"]), { o: [["--model", "", false], ["--isl", "5", false]], p: [] });
  assert.deepEqual(read(["--streaming=yes", "--no-streaming=1", "--verbose=1"]), {
    o: [["--streaming", null, false]],
    p: [
      "--no-streaming takes no value; write --no-streaming alone.",
      "--verbose takes no value; write --verbose alone.",
    ],
  });
});

Deno.test("readCliArgs gives an optional value only a word that is not an option (negative numbers are values)", () => {
  assert.deepEqual(read(["--server-metrics", "x"]).o, [["--server-metrics", "x", false]]);
  assert.deepEqual(read(["--server-metrics", "-1"]).o, [["--server-metrics", "-1", false]]);
  assert.deepEqual(read(["--server-metrics=x"]).o, [["--server-metrics", "x", false]]);
  assert.deepEqual(read(["--server-metrics"]).o, [["--server-metrics", null, false]]);
  assert.deepEqual(read(["--server-metrics", "--streaming"]).o, [["--server-metrics", null, false], [
    "--streaming",
    null,
    false,
  ]]);
});

Deno.test("readCliArgs reports negative numbers, a lone - and words after -- as stray arguments", () => {
  assert.deepEqual(read(["-m", "m", "-5"]).p, [stray("-5")]);
  assert.deepEqual(read(["-m", "m", "-1.5e3"]).p, [stray("-1.5e3")]);
  assert.deepEqual(read(["-m", "a", "-"]).p, [stray("-")]);
  assert.deepEqual(read(["-m", "a", "--", "b", "-c"]), {
    o: [["-m/--model-names", "a", false]],
    p: [stray("b"), stray("-c")],
  });
});

Deno.test("readCliArgs keeps reading known options after an unknown one, skipping the unknown one's value", () => {
  assert.deepEqual(read(["-m", "a", "--frob", "b", "--isl", "5"]), {
    o: [["-m/--model-names", "a", false], ["--isl", "5", false]],
    p: [`Unknown option '--frob'; ${SEE}.`],
  });
  assert.deepEqual(read(["--frob", "x", "y"]).p, [`Unknown option '--frob'; ${SEE}.`, stray("y")]);
  assert.deepEqual(read(["-h"]).p, [
    "Unknown option '-h'; did you mean '-b', '-f' or '-m'? See 'infermeter profile --help' for all options.",
  ]);
});

Deno.test("readCliArgs stops at an option whose value is missing at the end, reporting only that", () => {
  assert.deepEqual(read(["-m", "a", "b", "--concurrency"]), {
    o: [["-m/--model-names", "a", false]],
    p: ["--concurrency needs a value; put one after it, e.g. --concurrency 8."],
  });
});
