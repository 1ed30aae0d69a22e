/**
 * Defaults are declared once, in the option table: the resolver applies rules between options but never restates a
 * constant the table declares.
 */
import assert from "node:assert/strict";
import { layerOptionValues, type OptionAssignment } from "../../src/config/layer_option_values.ts";
import { findOptionByFlag, OPTION_TABLE } from "../../src/config/option_table.ts";
import { declaredDefault, enumChoices, type FieldOptionSpec, isFieldOption } from "../../src/base/option_spec.ts";
import { parseProfileArgs } from "../../src/config/parse_profile_args.ts";
import type { ProfileConfig } from "../../src/config/profile_config.ts";
import { resolveProfileConfig } from "../../src/config/resolve_profile_config.ts";
import { fakeIo } from "./_fake_io.ts";

const WITH_DEFAULTS: readonly FieldOptionSpec[] = OPTION_TABLE.filter(isFieldOption)
  .filter((spec) => declaredDefault(spec) !== undefined);

/** A model and a rate (so the arrival pattern keeps its default): the least a typical run gives. */
const MINIMAL = ["--model-names", "m", "--request-rate", "1"];

Deno.test("a config parsed from the least flags equals the table default of every field that has one", async () => {
  assert.ok(WITH_DEFAULTS.length >= 15, `the table declares defaults (${WITH_DEFAULTS.length})`);
  const { config, sources } = await parseProfileArgs(MINIMAL, fakeIo());
  for (const spec of WITH_DEFAULTS) {
    if (MINIMAL.includes(spec.flags[0])) continue;
    assert.deepEqual(config[spec.key as keyof ProfileConfig], declaredDefault(spec), spec.flags[0]);
    assert.equal(sources[spec.key as keyof ProfileConfig], "default", spec.flags[0]);
  }
});

/** A value of the option's type that differs from its declared default. */
function otherValue(spec: FieldOptionSpec): unknown {
  switch (spec.type) {
    case "int":
    case "float":
      return (spec.default ?? 0) + 7;
    case "bool":
      return !spec.default;
    case "enum":
      return enumChoices(spec).find((choice) => choice !== spec.default && choice !== "concurrency_burst");
    case "list":
      // --peer-metrics takes tool names only.
      if (spec.key === "peerMetrics") return ["guidellm"];
      return spec.items === "url" ? ["http://other:1"] : ["other"];
    case "keyValue":
      return { other: 1 };
    case "headers":
      return [["X-Other", "1"]];
    case "goodput":
      return [{ tag: "request_latency", value: 1 }];
    default:
      return "other";
  }
}

Deno.test("resolveProfileConfig takes every constant from the table, so changing a default changes the config", () => {
  // The same table with every default changed: a resolver that wrote a constant of its own would keep the old one.
  const changed = OPTION_TABLE.map((spec) =>
    isFieldOption(spec) && spec.default !== undefined ? { ...spec, default: otherValue(spec) } as typeof spec : spec
  );
  const assignments: OptionAssignment[] = [];
  for (let i = 0; i < MINIMAL.length; i += 2) {
    const spec = changed.find((s) => s.flags.includes(findOptionByFlag(MINIMAL[i])!.flags[0]))!;
    assignments.push({ spec, raw: MINIMAL[i + 1], origin: MINIMAL[i], source: "cli" });
  }
  const layered = layerOptionValues(changed, assignments);
  assert.deepEqual(layered.problems, []);
  const { config, problems } = resolveProfileConfig(layered.values);
  assert.deepEqual(problems, []);
  for (const spec of changed) {
    if (!isFieldOption(spec) || spec.default === undefined || MINIMAL.includes(spec.flags[0])) continue;
    assert.deepEqual(config[spec.key as keyof ProfileConfig], spec.default, `${spec.flags[0]} follows the table`);
  }
});

Deno.test("resolve_profile_config.ts spells none of the table's defaults as a literal", async () => {
  const source = await Deno.readTextFile(new URL("../../src/config/resolve_profile_config.ts", import.meta.url));
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
  for (const spec of WITH_DEFAULTS) {
    const values = [declaredDefault(spec)].flat().filter((v) => typeof v === "string" || typeof v === "number");
    for (const value of values) {
      // One-digit numbers are too common to attribute (0, 1, 2 × concurrency), and 10 is AIPerf's own floor of
      // requests (max(10, 2 × concurrency)); every other default is distinctive.
      if (typeof value === "number" && Math.abs(value) <= 10) continue;
      const literal = typeof value === "string" ? new RegExp(`["'\`]${value}["'\`]`) : new RegExp(`\\b${value}\\b`);
      assert.doesNotMatch(code, literal, `${spec.flags[0]}'s default ${value} is restated`);
    }
  }
});
