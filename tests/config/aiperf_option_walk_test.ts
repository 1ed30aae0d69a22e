/**
 * Every AIPerf 0.13 `profile` option is accepted: the walk reads AIPerf's own option list
 * (`tests/fixtures/aiperf_0.13_profile_options.json`, generated from its definitions by
 * `scripts/aiperf_parity/extract_aiperf_options.py`) and fails on any spelling infermeter does not know, and on
 * any choice it neither takes nor names as not supported yet. Options of features not built yet are known too, as
 * `PENDING_AIPERF_OPTIONS` (an error naming the feature); options without effect here give a one-line notice.
 */
import assert from "node:assert/strict";
import { enumChoices, enumUnsupportedChoices, type OptionSpec } from "../../src/base/option_spec.ts";
import { PROFILE_COMMAND } from "../../src/config/option_table.ts";
import { parseProfileArgs } from "../../src/config/parse_profile_args.ts";
import { NO_EFFECT_OPTIONS, PENDING_AIPERF_OPTIONS } from "../../src/config/options/aiperf_only_options.ts";
import { fakeIo } from "./_fake_io.ts";

interface AiperfOption {
  readonly flags: readonly string[];
  readonly short: readonly string[];
  readonly negative: readonly string[];
  readonly group: string;
  readonly kind: "flag" | "value" | "list";
  readonly choices: readonly string[] | null;
}

const AIPERF: { readonly version: string; readonly options: readonly AiperfOption[] } = JSON.parse(
  await Deno.readTextFile(new URL("../fixtures/aiperf_0.13_profile_options.json", import.meta.url)),
);

const spellings = (o: AiperfOption) => [...o.flags, ...o.short, ...o.negative];
const normalize = (v: string) => v.toLowerCase().replaceAll("-", "_");

Deno.test("the AIPerf option list is AIPerf 0.13's whole profile command", () => {
  assert.equal(AIPERF.version, "0.13.0");
  assert.equal(AIPERF.options.length, 264);
  assert.equal(AIPERF.options.reduce((n, o) => n + spellings(o).length, 0), 321);
});

Deno.test("every AIPerf 0.13 profile option and spelling is known to infermeter", () => {
  const unknown = AIPERF.options.flatMap((o) =>
    spellings(o).filter((flag) => PROFILE_COMMAND.index.find(flag) === undefined)
  );
  assert.deepEqual(unknown, [], `unknown AIPerf options: ${unknown.join(", ")}`);
  for (const o of AIPERF.options) {
    const specs = new Set(spellings(o).map((flag) => PROFILE_COMMAND.index.find(flag)));
    assert.equal(specs.size, 1, `${o.flags[0]}: all its spellings are one option`);
  }
});

/**
 * Options whose choices are registries that grow apart (endpoint types, custom dataset types, public datasets): the
 * types AIPerf has and infermeter does not yet are the registries' business (their `unsupported` entries say why),
 * counted in docs/aiperf_parity.md, not failed here.
 */
const REGISTRY_CHOICES = new Set(["--endpoint-type", "--custom-dataset-type", "--public-dataset"]);

Deno.test("every AIPerf choice is taken, or named as not supported yet", () => {
  const problems: string[] = [];
  for (const o of AIPERF.options) {
    const spec = PROFILE_COMMAND.index.find(o.flags[0]) as OptionSpec;
    if (o.choices === null || spec.type !== "enum" || REGISTRY_CHOICES.has(o.flags[0])) continue;
    const known = new Set([...enumChoices(spec), ...enumUnsupportedChoices(spec)].map(normalize));
    for (const choice of o.choices) if (!known.has(normalize(choice))) problems.push(`${o.flags[0]} ${choice}`);
  }
  assert.deepEqual(problems, []);
});

Deno.test("no AIPerf option is left pending: each does what AIPerf does, or has no effect here and says so", () => {
  assert.deepEqual(PENDING_AIPERF_OPTIONS.map((spec) => spec.flags[0]), []);
});

Deno.test("an option without effect here is accepted with one notice saying why", async () => {
  for (const spec of NO_EFFECT_OPTIONS) {
    const args = spec.arity === "none" ? [spec.flags[0]] : [spec.flags[0], "x"];
    const parsed = await parseProfileArgs(["-m", "m", ...args], fakeIo());
    assert.deepEqual(parsed.warnings, [`${spec.flags[0]} has no effect: ${spec.reason}.`]);
  }
});
