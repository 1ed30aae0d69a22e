import assert from "node:assert/strict";
import type { OptionSpec } from "../../src/base/option_spec.ts";
import { checkOptionRelations } from "../../src/config/check_option_relations.ts";
import { layerOptionValues, type OptionAssignment } from "../../src/config/layer_option_values.ts";

const TABLE = [
  { key: "rate", type: "float", flags: ["--rate"], group: "G", metavar: "<req/s>", help: "r" },
  { key: "users", type: "int", flags: ["--users"], group: "G", metavar: "<int>", help: "u" },
  { key: "stream", type: "bool", default: false, flags: ["--stream"], group: "G", help: "s" },
  {
    key: "pattern",
    type: "enum",
    choices: ["constant", "gamma", "burst"],
    default: "constant",
    offValues: ["burst"],
    flags: ["--pattern"],
    group: "G",
    help: "p",
  },
  {
    key: "ramp",
    type: "float",
    flags: ["--ramp"],
    group: "G",
    metavar: "<s>",
    requires: [{ key: ["rate", "users"], why: "ramps a rate" }],
    help: "ramp",
  },
  {
    key: "shape",
    type: "float",
    flags: ["--shape"],
    group: "G",
    needs: [{ key: "pattern", value: "gamma", whenGiven: true, why: "shapes gamma arrivals" }],
    requires: ["rate"],
    help: "shape",
  },
  {
    key: "prefill",
    type: "int",
    flags: ["--prefill"],
    group: "G",
    needs: [{ key: "stream", value: true }],
    conflictsWith: [{ key: "users", why: "both limit the load" }],
    help: "prefill",
  },
  {
    key: "delay",
    type: "float",
    default: 0,
    flags: ["--delay"],
    group: "G",
    requires: [{ key: "rate", level: "warning" }],
    conflictsWith: ["pattern"],
    help: "delay",
  },
] as const satisfies readonly OptionSpec[];

function check(args: Record<string, unknown>) {
  const assignments: OptionAssignment[] = Object.entries(args).map(([flag, raw]) => ({
    spec: TABLE.find((spec) => spec.flags[0] === flag)!,
    raw: raw === true ? undefined : String(raw),
    origin: flag,
    source: "cli",
  }));
  const layered = layerOptionValues(TABLE, assignments);
  assert.deepEqual(layered.problems, []);
  return checkOptionRelations(TABLE, layered.values);
}

Deno.test("checkOptionRelations reports a missing required option, naming every alternative and the fix", () => {
  assert.deepEqual(check({ "--ramp": 2 }).problems, [
    "--ramp ramps a rate; add --rate <req/s> or --users <int> or remove --ramp.",
  ]);
  assert.deepEqual(check({ "--ramp": 2, "--users": 3 }).problems, []);
  assert.deepEqual(check({ "--shape": 2 }).problems, ["--shape needs --rate; add --rate <req/s> or remove --shape."]);
});

Deno.test("checkOptionRelations gives a warning for a warning-level relation, and ignores defaults", () => {
  const report = check({ "--delay": 1 });
  assert.deepEqual(report.problems, []);
  assert.deepEqual(report.warnings, ["--delay has no effect without --rate; add --rate <req/s> to use it."]);
  assert.deepEqual(check({}), { problems: [], warnings: [] }, "a defaulted option sets nothing off");
});

Deno.test("checkOptionRelations reports each conflicting pair once, and treats off values as unset", () => {
  assert.deepEqual(check({ "--prefill": 2, "--stream": true, "--users": 4 }).problems, [
    "--prefill and --users both limit the load; keep one of them.",
  ]);
  assert.deepEqual(check({ "--delay": 1, "--rate": 1, "--pattern": "gamma" }).problems, [
    "--delay and --pattern cannot be used together; keep one of them.",
  ]);
  assert.deepEqual(check({ "--delay": 1, "--rate": 1, "--pattern": "burst" }).problems, [], "burst means off");
});

Deno.test("checkOptionRelations reports a needed value, saying what the other option is when it was given", () => {
  assert.deepEqual(check({ "--prefill": 2 }).problems, [
    "--prefill needs --stream; add --stream or remove --prefill.",
  ]);
  assert.deepEqual(check({ "--prefill": 2, "--stream": "false" }).problems, [
    "--prefill needs --stream, but --stream is 'false'; use --stream or remove --prefill.",
  ]);
  assert.deepEqual(check({ "--shape": 2, "--rate": 1 }).problems, [], "whenGiven: the default pattern is replaced");
  assert.deepEqual(check({ "--shape": 2, "--rate": 1, "--pattern": "constant" }).problems, [
    "--shape shapes gamma arrivals, but --pattern is 'constant'; use --pattern gamma or remove --shape.",
  ]);
});
