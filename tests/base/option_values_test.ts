/**
 * The configuration type derived from an option table. These are compile-time checks (`deno test` type-checks
 * first, so a wrong derivation fails the run), plus the runtime facts the types rely on.
 */
import assert from "node:assert/strict";
import { Registry } from "../../src/base/registry.ts";
import type { OptionSpec } from "../../src/base/option_spec.ts";
import type { LayeredOptionValues, OptionKeyOf, OptionValues } from "../../src/base/option_values.ts";
import type { ProfileConfig } from "../../src/config/profile_config.ts";
import type { GoodputSlo } from "../../src/metrics/goodput.ts";

/** `true` only when `A` and `B` are the same type. */
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
function expectType<T extends true>(_proof: T): void {}

const FRUITS = new Registry("fruit", [{ name: "apple", description: "Red." }]);

const SAMPLE = [
  { key: "name", type: "string", flags: ["--name"], group: "G", help: "A name." },
  { key: "count", type: "int", default: 3, flags: ["--count"], group: "G", help: "A count." },
  { key: "mode", type: "enum", choices: ["a", "b"], default: "a", flags: ["--mode"], group: "G", help: "A mode." },
  { key: "fruit", type: "enum", choices: FRUITS, flags: ["--fruit"], group: "G", help: "A fruit." },
  { key: "on", type: "bool", default: false, flags: ["--on"], group: "G", help: "A switch." },
  { key: "on", type: "switch", value: "x", flags: ["--x"], group: "G", help: "Sets on." },
  {
    key: "items",
    type: "list",
    items: "text",
    required: "Give items.",
    flags: ["--items"],
    group: "G",
    help: "Items.",
  },
  {
    key: "ui",
    type: "enum",
    choices: ["none", "rich"],
    resolvedByRule: true,
    flags: ["--ui"],
    group: "G",
    help: "UI.",
  },
  { key: "slo", type: "goodput", flags: ["--slo"], group: "G", help: "SLOs." },
  { type: "unsupported", arity: "none", flags: ["--later"], group: "G", help: "Not yet." },
] as const satisfies readonly OptionSpec[];

type Sample = OptionValues<typeof SAMPLE>;

Deno.test("OptionValues types each field by its option and makes it optional only without a default", () => {
  expectType<Equals<OptionKeyOf<typeof SAMPLE>, "name" | "count" | "mode" | "fruit" | "on" | "items" | "ui" | "slo">>(
    true,
  );
  expectType<Equals<Sample["name"], string | undefined>>(true);
  expectType<Equals<Sample["count"], number>>(true);
  expectType<Equals<Sample["mode"], "a" | "b">>(true);
  expectType<Equals<Sample["fruit"], string | undefined>>(true);
  expectType<Equals<Sample["on"], boolean>>(true);
  expectType<Equals<Sample["items"], readonly string[]>>(true);
  expectType<Equals<Sample["ui"], "none" | "rich">>(true);
  expectType<Equals<LayeredOptionValues<typeof SAMPLE>["ui"], "none" | "rich" | undefined>>(true);
  expectType<Equals<Sample["slo"], readonly GoodputSlo[] | undefined>>(true);
  const sample: Sample = { count: 3, mode: "a", on: false, items: ["x"], ui: "none" };
  assert.deepEqual(Object.keys(sample).sort(), ["count", "items", "mode", "on", "ui"], "optional fields may be absent");
});

Deno.test("ProfileConfig keeps its field types: literal unions for fixed choices, strings for registry choices", () => {
  expectType<Equals<ProfileConfig["endpointType"], string>>(true);
  expectType<Equals<ProfileConfig["customDatasetType"], string | undefined>>(true);
  expectType<Equals<ProfileConfig["exportLevel"], "summary" | "records" | "raw">>(true);
  expectType<Equals<ProfileConfig["ui"], "none" | "simple" | "dashboard">>(true);
  expectType<Equals<ProfileConfig["modelNames"], readonly string[]>>(true);
  expectType<Equals<ProfileConfig["concurrency"], number | undefined>>(true);
  expectType<Equals<ProfileConfig["requestTimeoutSeconds"], number>>(true);
  expectType<Equals<ProfileConfig["headers"], ReadonlyArray<readonly [string, string]>>>(true);
  expectType<Equals<ProfileConfig["artifactDirExplicit"], boolean>>(true);
  assert.ok(true, "checked by the compiler");
});
