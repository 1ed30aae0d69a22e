import { ACCURACY_BENCHMARKS } from "../../src/dataset/accuracy/accuracy_benchmarks.ts";
import { ACCURACY_GRADERS } from "../../src/dataset/accuracy/accuracy_graders.ts";
import { PUBLIC_DATASET_NAMES } from "../../src/dataset/public_dataset_names.ts";
import { SEARCH_RECIPES } from "../../src/config/search_recipes.ts";
import assert from "node:assert/strict";
import {
  allFlagNames,
  findOptionByFlag,
  OPTION_GROUPS,
  OPTION_TABLE,
  PROFILE_COMMAND,
} from "../../src/config/option_table.ts";
import {
  type ChoiceRegistry,
  enumChoices,
  enumUnsupportedChoices,
  isValueOption,
  optionFlagNames,
} from "../../src/base/option_spec.ts";
import { ConfigError } from "../../src/config/config_error.ts";
import { DATASET_LOADERS } from "../../src/dataset/dataset_loaders.ts";
import { ENDPOINTS } from "../../src/endpoints/endpoint_registry.ts";
import { OptionIndex } from "../../src/config/option_index.ts";
import { helpGroups } from "../../src/config/render_help.ts";
import { parseProfileArgs, profileHelp } from "../../src/config/parse_profile_args.ts";
import { fakeIo } from "./_fake_io.ts";

Deno.test("option table gives every option help text, a known group and well-formed flags", () => {
  for (const spec of OPTION_TABLE) {
    const name = spec.flags[0];
    assert.ok(spec.help.trim().length > 10, `${name} has help text`);
    assert.ok(OPTION_GROUPS.includes(spec.group), `${name} has a known group`);
    assert.ok(spec.flags.length >= 1, `${name} has a long flag`);
    for (const flag of spec.flags) assert.match(flag, /^--[a-z][a-z0-9-]*$/, `${flag} is a kebab-case long flag`);
    if (spec.short !== undefined) assert.match(spec.short, /^-[A-Za-z]+$/, `${spec.short} is a short flag`);
  }
});

Deno.test("option table has no flag or alias used twice, including --no- forms", () => {
  const seen = new Map<string, string>();
  for (const spec of OPTION_TABLE) {
    for (const flag of optionFlagNames(spec)) {
      assert.ok(!seen.has(flag), `${flag} is declared by both ${seen.get(flag)} and ${spec.flags[0]}`);
      seen.set(flag, spec.flags[0]);
    }
  }
  const all = allFlagNames();
  assert.equal(new Set(all).size, all.length, "no collision between a flag and a generated --no- form");
  assert.doesNotThrow(() => new OptionIndex(OPTION_TABLE), "the parser accepts every flag");
});

Deno.test("option table declares every flag's key once for secrets and YAML paths", () => {
  const yamlPaths = OPTION_TABLE.flatMap((spec) => spec.yaml ?? []);
  assert.equal(new Set(yamlPaths).size, yamlPaths.length, "no YAML path is shared by two options");
  const secrets = OPTION_TABLE.filter((spec) => spec.secret).map((spec) => spec.flags[0]);
  assert.deepEqual(secrets, [
    "--api-key",
    "--otel-headers",
    "--mlflow-tracking-token",
    "--mlflow-tracking-password",
    "--wandb-api-key",
  ]);
});

Deno.test("findOptionByFlag resolves every spelling to its option", () => {
  for (const spec of OPTION_TABLE) {
    for (const flag of optionFlagNames(spec)) assert.equal(findOptionByFlag(flag), spec, flag);
  }
  assert.equal(findOptionByFlag("--no-streaming")?.flags[0], "--streaming");
  assert.equal(findOptionByFlag("--no-concurrency"), undefined);
  assert.equal(findOptionByFlag("--nope"), undefined);
});

Deno.test("every value option's aliases parse to the same field as its first flag", async () => {
  const sample: Record<string, string | undefined> = {
    string: "x",
    path: "x",
    int: "3",
    float: "0.5",
    bool: undefined,
    switch: undefined,
    list: "x",
    keyValue: "k:1",
    headers: "X-A:1",
    goodput: "request_latency:5",
  };
  // Options whose values are checked beyond their type.
  const special: Record<string, string> = {
    peerMetrics: "vllm",
    otelStream: "metrics",
    otelResourceAttributes: "k=v",
    otelHeaders: "k=v",
    mlflowTrackingUri: "http://x",
    wandbBaseUrl: "http://x",
  };
  for (const spec of OPTION_TABLE) {
    if (!isValueOption(spec) || spec.key === "configFile") continue;
    const value = spec.type === "enum"
      ? enumChoices(spec)[0]
      : special[spec.key] !== undefined
      ? special[spec.key]
      : spec.type === "int" && spec.max !== undefined
      ? String(Math.min(3, spec.max))
      : spec.type === "float" && spec.min !== undefined && spec.min > 0.5
      ? String(spec.min)
      : sample[spec.type];
    const context = spec.key === "modelNames" ? [] : ["-m", "m"];
    // A W&B upload needs its key, given beside any W&B option.
    if (spec.key.startsWith("wandb") && spec.key !== "wandbApiKey") context.push("--wandb-api-key", "k");
    // What the option's declared relations need beside it, and a mode that reads it.
    const words = (key: string, wanted?: unknown): string[] => {
      const other = OPTION_TABLE.find((o) => isValueOption(o) && o.key === key);
      if (other === undefined || !isValueOption(other)) return [];
      if (other.type === "bool") return [wanted === false ? `--no-${other.flags[0].slice(2)}` : other.flags[0]];
      const v = wanted ?? special[key] ?? (other.type === "enum" ? enumChoices(other)[0] : sample[other.type]);
      return [other.flags[0], String(v)];
    };
    for (const relation of "requires" in spec ? spec.requires ?? [] : []) {
      const keys = typeof relation === "string" ? [relation] : [relation.key].flat();
      context.push(...words(keys[0]));
    }
    for (const need of "needs" in spec ? spec.needs ?? [] : []) {
      context.push(...words(need.key, Array.isArray(need.value) ? need.value[0] : need.value));
    }
    if (spec.key === "arrivalPattern") context.push("--request-rate", "1");
    if (spec.key === "prefillConcurrencyRampDuration") context.push("--streaming");
    if (spec.key === "requestRateSeries") continue; // reads its file when planned; covered in its own test
    if (spec.key === "agenticCacheWarmupDuration") continue; // refused, as AIPerf does; its own test
    if (spec.key === "scenario") continue; // one flag; a lock needs its dataset (tests/config/scenario_lock_test.ts)
    const argsFor = (flag: string): string[] => value === undefined ? [...context, flag] : [...context, flag, value];
    const expected: unknown = (await parseProfileArgs(argsFor(spec.flags[0]), fakeIo())).config[spec.key];
    assert.notEqual(expected, undefined, `${spec.flags[0]} sets ${spec.key}`);
    for (const flag of optionFlagNames(spec)) {
      const actual: unknown = (await parseProfileArgs(argsFor(flag), fakeIo())).config[spec.key];
      assert.deepEqual(actual, expected, `${flag} writes ${spec.key} like ${spec.flags[0]}`);
    }
  }
});

Deno.test("profileHelp --help-all lists AIPerf's groups in order, with every alias, defaults and choices", () => {
  const help = profileHelp({ argv: ["--help-all"] });
  assert.match(help, /^Usage: infermeter profile \[options\]/);
  let last = -1;
  for (const group of helpGroups(PROFILE_COMMAND)) {
    const at = help.indexOf(`\n${group}:\n`);
    assert.ok(at > last, `group ${group} appears, in order`);
    last = at;
  }
  for (
    const group of [
      "Endpoint",
      "Tokenizer",
      "Input",
      "Input Sequence Length (ISL)",
      "Output Sequence Length (OSL)",
      "Load Generator",
      "Warmup",
      "Goodput",
      "Output",
      "UI",
      "Service",
      "Workers",
    ]
  ) assert.ok(help.includes(`\n${group}:\n`), `help shows the ${group} group`);
  for (const spec of OPTION_TABLE) {
    if (!isValueOption(spec)) continue;
    assert.ok(help.includes(optionFlagNames(spec).join(", ")), `help lists all spellings of ${spec.flags[0]}`);
  }
  assert.match(help, /--prompt-input-tokens-mean, --synthetic-input-tokens-mean, --isl <tokens>/);
  assert.match(help, /-m, --model-names, --model <names>/);
  assert.match(help, /--streaming, --no-streaming/);
  assert.match(help, /-vv, --extra-verbose/);
  const flat = help.replace(/\s+/g, " ");
  assert.match(flat, /choices: chat, completions, embeddings, [a-z_, ]+; default: chat/);
  assert.match(flat, /default: 21600/);
  assert.match(flat, /env: INFERMETER_API_KEY/);
  assert.match(help, /AIPerf options accepted without effect here/);
  assert.match(help, /--public-dataset/);
  for (const line of help.split("\n")) assert.ok(line.length <= 100, `line fits 100 columns: ${line}`);
});

Deno.test("registry-backed options take their choices from the registry itself, never from a copy", async () => {
  const registryBacked = new Map<string, ChoiceRegistry>([
    ["endpointType", ENDPOINTS],
    ["customDatasetType", DATASET_LOADERS],
    ["publicDataset", PUBLIC_DATASET_NAMES],
    ["searchRecipe", SEARCH_RECIPES],
    ["accuracyBenchmark", ACCURACY_BENCHMARKS],
    ["accuracyGrader", ACCURACY_GRADERS],
  ]);
  for (const spec of OPTION_TABLE) {
    if (spec.type !== "enum") continue;
    const registry = registryBacked.get(spec.key);
    if (registry === undefined) {
      assert.ok(Array.isArray(spec.choices), `${spec.flags[0]} has a fixed list`);
      continue;
    }
    assert.equal(spec.choices, registry, `${spec.flags[0]} reads the ${registry.kind} registry`);
    assert.deepEqual(enumChoices(spec), registry.names());
    assert.deepEqual(enumUnsupportedChoices(spec), Object.keys(registry.unsupported()));
    const context = spec.key === "customDatasetType" ? ["--input-file", "x.jsonl"] : [];
    const problems = await problemsOf(["-m", "m", ...context, spec.flags[0], "zzz"]);
    assert.match(problems[0], new RegExp(`use one of: ${registry.names().join(", ")}\\.$`), problems[0]);
    // A registry may have no name it refuses (every endpoint type AIPerf lists is spoken).
    const unsupported = Object.keys(registry.unsupported())[0];
    if (unsupported === undefined) continue;
    assert.match((await problemsOf(["-m", "m", ...context, spec.flags[0], unsupported]))[0], /not supported yet/);
  }
  assert.deepEqual(
    [...registryBacked.keys()].filter((key) => !OPTION_TABLE.some((s) => "key" in s && s.key === key)),
    [],
  );
});

Deno.test("every enum default is one of its choices, and every switch sets one of its field's choices", () => {
  for (const spec of OPTION_TABLE) {
    if (spec.type === "enum" && spec.default !== undefined) {
      assert.ok(enumChoices(spec).includes(spec.default), `${spec.flags[0]}'s default ${spec.default} is a choice`);
    }
    if (spec.type === "switch") {
      const field = PROFILE_COMMAND.index.forKey(spec.key);
      assert.ok(field?.type === "enum" && enumChoices(field).includes(spec.value), `${spec.flags[0]} sets a choice`);
    }
  }
});

/** The problems `parseProfileArgs` reports for `argv`. */
async function problemsOf(argv: readonly string[]): Promise<readonly string[]> {
  try {
    await parseProfileArgs(argv, fakeIo());
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.problems;
  }
  assert.fail(`expected ${argv.join(" ")} to be rejected`);
}

Deno.test("profileHelp --help shows the common options, the examples and where the rest is", () => {
  const help = profileHelp({ argv: ["--help"] });
  const common = OPTION_TABLE.filter((spec) => isValueOption(spec) && spec.common === true);
  assert.ok(common.length >= 18 && common.length <= 25, `about 20 common options (${common.length})`);
  for (const spec of OPTION_TABLE) {
    if (!isValueOption(spec) || spec.hidden) continue;
    // The flags end the line or are followed by a value or another spelling (--stream is not --streaming).
    const term = new RegExp(`\n  ${optionFlagNames(spec).join(", ")}[ ,\n]`);
    assert.equal(term.test(help), spec.common === true, `${spec.flags[0]} is listed only when common`);
  }
  assert.match(help, /Examples:\n {2}Synthetic chat/);
  assert.match(help, /All \d+ options: infermeter profile --help-all/);
  assert.doesNotMatch(help, /AIPerf options accepted without effect here/);
  for (const line of help.split("\n")) assert.ok(line.length <= 100, `line fits 100 columns: ${line}`);
});

Deno.test("profileHelp --help <word> lists the options whose names, help, group or choices mention it", () => {
  const help = profileHelp({ argv: ["--help", "GAMMA"] });
  assert.match(help, /Options matching 'GAMMA' \(3 of \d+\):/);
  assert.match(help, /--arrival-pattern/);
  assert.match(help, /--arrival-smoothness/);
  assert.match(help, /--warmup-arrival-pattern/);
  assert.doesNotMatch(help, /--concurrency </);
  assert.match(profileHelp({ argv: ["-h", "zzzz"] }), /No option matches 'zzzz'\./);
});
