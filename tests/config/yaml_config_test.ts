import assert from "node:assert/strict";
import { ConfigError } from "../../src/config/config_error.ts";
import { parseProfileArgs } from "../../src/config/parse_profile_args.ts";
import { loadYamlConfig, toSnakeCase } from "../../src/config/yaml_config.ts";
import { fakeIo } from "./_fake_io.ts";

/** Parses `-f run.yaml` plus `argv` with `yamlText` as the file. */
function parseWithYaml(yamlText: string, argv: readonly string[] = [], env: Record<string, string> = {}) {
  return parseProfileArgs(["-f", "run.yaml", ...argv], fakeIo({ files: { "run.yaml": yamlText }, env }));
}

async function yamlProblems(
  yamlText: string,
  argv: readonly string[] = [],
  env: Record<string, string> = {},
): Promise<readonly string[]> {
  try {
    await parseWithYaml(yamlText, argv, env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.problems;
  }
  assert.fail("expected the YAML to be rejected");
}

Deno.test("toSnakeCase converts camelCase and kebab-case keys", () => {
  assert.equal(toSnakeCase("syntheticInputTokensMean"), "synthetic_input_tokens_mean");
  assert.equal(toSnakeCase("endpoint-type"), "endpoint_type");
  assert.equal(toSnakeCase("api_key"), "api_key");
});

Deno.test("loadYamlConfig accepts flat flag names in snake, kebab and camel case", async () => {
  const { config, sources } = await parseWithYaml(`
model: my-model
endpoint_type: completions
synthetic-input-tokens-mean: 100
outputTokensMean: 20
streaming: true
concurrency: 4
url: [localhost:8000, "https://b"]
extra_inputs: {ignore_eos: true, maxTokens: 5}
header: {Authorization: Bearer x}
goodput: "request_latency:250"
isl-stddev: 3
`);
  assert.deepEqual(config.modelNames, ["my-model"]);
  assert.equal(config.endpointType, "completions");
  assert.equal(config.syntheticInputTokensMean, 100);
  assert.equal(config.syntheticInputTokensStddev, 3);
  assert.equal(config.outputTokensMean, 20);
  assert.equal(config.streaming, true);
  assert.equal(config.concurrency, 4);
  assert.deepEqual(config.urls, ["http://localhost:8000", "https://b"]);
  assert.deepEqual(config.extraInputs, { ignore_eos: true, maxTokens: 5 }, "free-form keys are kept verbatim");
  assert.deepEqual(config.headers, [["Authorization", "Bearer x"]]);
  assert.deepEqual(config.goodput, [{ tag: "request_latency", value: 250 }]);
  assert.equal(sources.concurrency, "yaml");
  assert.equal(config.configFile, "run.yaml");
});

Deno.test("loadYamlConfig reads AIPerf's structured schema 2.0 layout", async () => {
  const { config } = await parseWithYaml(`
schemaVersion: "2.0"
random_seed: 42
benchmark:
  model: Qwen/Qwen3-0.6B
  endpoint:
    url: http://localhost:8000
    type: chat
    path: /v1/chat/completions
    streaming: true
    timeout: 600
    apiKey: sk-abc
    connection_reuse: never
    use_legacy_max_tokens: true
    headers: {X-Trace: "1"}
    extra: {ignore_eos: true}
  dataset:
    type: synthetic
    entries: 500
    prompts: {isl: {mean: 512, stddev: 8}, osl: 128}
  phases:
    - {name: warmup, requests: 50}
    - {name: profiling, type: poisson, rate: 30.0, duration: 2m, concurrency: 64, grace_period: 60}
  artifacts:
    dir: ./artifacts/my-test
    prefix: run1
  tokenizer: builtin
  runtime: {ui: none, workers: 2, cpu_dma_latency: 0}
  slos: {request_latency: 250}
`);
  assert.deepEqual(config.modelNames, ["Qwen/Qwen3-0.6B"]);
  assert.equal(config.randomSeed, 42);
  assert.deepEqual(config.urls, ["http://localhost:8000"]);
  assert.equal(config.endpointType, "chat");
  assert.equal(config.customEndpoint, "/v1/chat/completions");
  assert.equal(config.streaming, true);
  assert.equal(config.requestTimeoutSeconds, 600);
  assert.equal(config.apiKey, "sk-abc");
  assert.equal(config.connectionReuseStrategy, "never");
  assert.equal(config.useLegacyMaxTokens, true);
  assert.deepEqual(config.headers, [["X-Trace", "1"]]);
  assert.deepEqual(config.extraInputs, { ignore_eos: true });
  assert.equal(config.numDatasetEntries, 500);
  assert.equal(config.syntheticInputTokensMean, 512);
  assert.equal(config.syntheticInputTokensStddev, 8);
  assert.equal(config.outputTokensMean, 128);
  assert.equal(config.warmupRequestCount, 50);
  assert.equal(config.arrivalPattern, "poisson");
  assert.equal(config.requestRate, 30);
  assert.equal(config.benchmarkDuration, 120);
  assert.equal(config.benchmarkGracePeriod, 60);
  assert.equal(config.concurrency, 64);
  assert.equal(config.requestCount, undefined);
  assert.equal(config.artifactDir, "./artifacts/my-test");
  assert.equal(config.artifactDirExplicit, true);
  assert.equal(config.profileExportPrefix, "run1");
  assert.equal(config.tokenizer, "builtin");
  assert.equal(config.ui, "none");
  assert.equal(config.workers, 2);
  assert.equal(config.cpuDmaLatency, 0);
  assert.deepEqual(config.goodput, [{ tag: "request_latency", value: 250 }]);
});

Deno.test("loadYamlConfig reads AIPerf's minimal template with a flat phases mapping", async () => {
  const { config } = await parseWithYaml(`
schemaVersion: "2.0"
benchmark:
  model: Qwen/Qwen3-0.6B
  endpoint:
    url: http://localhost:8000
  dataset:
    type: synthetic
    entries: 100
    prompts: {isl: 512, osl: 128}
  phases:
    type: concurrency
    concurrency: 8
    requests: 100
`);
  assert.equal(config.concurrency, 8);
  assert.equal(config.requestCount, 100);
  assert.equal(config.arrivalPattern, "concurrency_burst");
  assert.equal(config.syntheticInputTokensMean, 512);
  assert.equal(config.outputTokensMean, 128);
});

Deno.test("loadYamlConfig accepts every profiling-phase field the option table declares", async () => {
  const { config } = await parseWithYaml(`
benchmark:
  model: m
  phases: {type: concurrency, concurrency: 64, concurrency_ramp: 5, duration: 1m, grace_period: 10}
`);
  assert.equal(config.concurrencyRampDuration, 5);
  assert.equal(config.benchmarkDuration, 60);
  assert.equal(config.benchmarkGracePeriod, 10);
  const problems = await yamlProblems("benchmark:\n  model: m\n  phases: {concurency: 4}\n");
  assert.match(
    problems[0],
    /'benchmark.phases.concurency' is not a supported phase field; did you mean 'concurrency'\?/,
  );
  assert.match(problems[0], /Known fields: .*concurrency_ramp/);
});

Deno.test("loadYamlConfig reads models lists, datasets lists and file datasets", async () => {
  const { config } = await parseWithYaml(`
benchmark:
  models: {items: [a, {name: b}], strategy: random}
  datasets:
    - {name: main, type: file, path: inputs.jsonl, format: single_turn, sampling: shuffle}
  profiling: {requests: 7}
`);
  assert.deepEqual(config.modelNames, ["a", "b"]);
  assert.equal(config.modelSelectionStrategy, "random");
  assert.equal(config.inputFile, "inputs.jsonl");
  assert.equal(config.customDatasetType, "single_turn");
  assert.equal(config.datasetSamplingStrategy, "shuffle");
  assert.equal(config.requestCount, 7);
});

Deno.test("loadYamlConfig rejects an unknown key with the file, the key path and a hint", async () => {
  const problems = await yamlProblems(`
model: m
concurency: 4
benchmark:
  endpoint:
    tipe: chat
  dataset:
    prompts: {isl: {mean: 5, stdev: 1}}
`);
  assert.deepEqual(problems, [
    "run.yaml:3: unknown key 'concurency'; did you mean 'concurrency'? Use a flag name without dashes (e.g. " +
    "'concurrency: 4') or AIPerf's 'benchmark:' layout.",
    "run.yaml:6: unknown key 'benchmark.endpoint.tipe'; did you mean 'type'? Known keys here: api_key, connection_reuse, " +
    "download_video_content, extra, headers, max_response_bytes, path, redact_headers, request_content_type, " +
    "stall_notice, streaming, timeout, type, url_strategy, urls, use_legacy_max_tokens, use_server_token_count, " +
    "wait_for_model.",
    "run.yaml: unknown key 'benchmark.dataset.prompts.isl.stdev'; did you mean 'stddev'? Known keys here: mean, stddev.",
  ]);
});

Deno.test("loadYamlConfig rejects AIPerf sections infermeter does not support yet", async () => {
  const problems = await yamlProblems(`
benchmark:
  model: m
  gpu_telemetry: {enabled: false}
  phases:
    - {name: profiling, type: fixed_schedule}
    - {name: second, kind: profiling, requests: 5}
sweep: {type: grid}
`);
  assert.equal(problems.length, 4, problems.join("\n"));
  assert.match(problems.join("\n"), /'benchmark.gpu_telemetry' is not supported yet/);
  assert.match(problems.join("\n"), /type: fixed_schedule' is not supported yet/);
  assert.match(problems.join("\n"), /second profiling phase; multi-phase runs are not supported yet/);
  assert.match(problems.join("\n"), /'sweep' is not supported yet/);
});

Deno.test("loadYamlConfig validates values with the same rules as flags", async () => {
  const problems = await yamlProblems(`
model: m
concurrency: 0
benchmark:
  models: {strategy: weighted}
`);
  assert.equal(problems.length, 2);
  assert.equal(
    problems[0],
    "run.yaml:3: concurrency: '0' is out of range; give a whole number between 1 and 1,000,000.",
  );
  assert.match(
    problems[1],
    /^run\.yaml: benchmark\.models\.strategy: 'weighted' is not supported yet by infermeter.*use one of: round_robin, random/,
  );
});

Deno.test("loadYamlConfig substitutes ${VAR} and ${VAR:default} from the environment, typing whole values", async () => {
  const { config } = await parseWithYaml(
    `
benchmark:
  model: \${MODEL_NAME:fallback-model}
  endpoint:
    url: http://\${HOST}:8000
    api_key: \${OPENAI_API_KEY}
    streaming: \${STREAMING:true}
    timeout: \${TIMEOUT:600.5}
`,
    [],
    { HOST: "gpu-box", OPENAI_API_KEY: "sk-env" },
  );
  assert.deepEqual(config.modelNames, ["fallback-model"]);
  assert.deepEqual(config.urls, ["http://gpu-box:8000"]);
  assert.equal(config.apiKey, "sk-env");
  assert.equal(config.streaming, true);
  assert.equal(config.requestTimeoutSeconds, 600.5);
});

Deno.test("loadYamlConfig reports an unset required ${VAR} by name", async () => {
  const problems = await yamlProblems("model: m\napi_key: ${NOPE_KEY}\n");
  assert.deepEqual(problems, [
    "run.yaml:2: 'api_key' needs environment variable NOPE_KEY, which is not set; set it or write ${NOPE_KEY:default}.",
  ]);
});

Deno.test("loadYamlConfig reports YAML syntax errors with line and column", async () => {
  const problems = await yamlProblems("model: m\nurl: [a, b\n");
  assert.equal(problems.length, 1, "the syntax error");
  assert.match(problems[0], /^run\.yaml:\d+:\d+: invalid YAML \(.+\); fix the syntax at that position\.$/);
});

Deno.test("loadYamlConfig warns about an empty file and rejects a non-mapping document", () => {
  assert.deepEqual(loadYamlConfig("  \n", { path: "e.yaml" }).warnings, [
    "e.yaml is empty; no options were read from it.",
  ]);
  assert.match(loadYamlConfig("- a\n- b\n", { path: "l.yaml" }).problems[0], /top level is not a mapping/);
});

Deno.test("loadYamlConfig rejects -f/--config inside the file", async () => {
  assert.match(
    (await yamlProblems("model: m\nconfig: other.yaml\n"))[0],
    /'config' can only be given on the command line/,
  );
});

Deno.test("parseProfileArgs layers defaults < YAML < env < flags", async () => {
  const yaml = "model: yaml-model\nurl: yamlhost:1\nconcurrency: 3\nlog_level: ERROR\nstreaming: true\n";
  const env = { INFERMETER_URL: "envhost:2", INFERMETER_LOG_LEVEL: "WARNING" };
  const { config, sources } = await parseWithYaml(yaml, ["--log-level", "DEBUG", "--no-streaming"], env);
  assert.deepEqual(config.modelNames, ["yaml-model"]);
  assert.equal(sources.modelNames, "yaml");
  assert.deepEqual(config.urls, ["http://envhost:2"]);
  assert.equal(sources.urls, "env");
  assert.equal(config.concurrency, 3);
  assert.equal(config.logLevel, "DEBUG");
  assert.equal(sources.logLevel, "cli");
  assert.equal(config.streaming, false);
  assert.equal(config.requestTimeoutSeconds, 21600);
  assert.equal(sources.requestTimeoutSeconds, "default");
});

Deno.test("parseProfileArgs merges headers and extra inputs from YAML and flags", async () => {
  const yaml = "model: m\nheader: {X-A: '1', X-B: '2'}\nextra_inputs: {temperature: 0.1, top_p: 0.9}\n";
  const { config } = await parseWithYaml(yaml, ["-H", "X-B: 3", "--extra-inputs", "temperature:0.5"]);
  assert.deepEqual(config.headers, [["X-A", "1"], ["X-B", "3"]]);
  assert.deepEqual(config.extraInputs, { temperature: 0.5, top_p: 0.9 });
});

Deno.test("parseProfileArgs reports an unreadable config file together with other problems", async () => {
  try {
    await parseProfileArgs(["-f", "missing.yaml", "--concurrency", "x"], fakeIo());
    assert.fail("expected a ConfigError");
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    assert.match(
      error.problems[0],
      /^Cannot read config file 'missing.yaml' \(No such file: missing.yaml\); check the path given to -f\/--config\.$/,
    );
    assert.equal(error.problems.length, 2, error.problems.join("\n"));
  }
});

Deno.test("loadYamlConfig warns when a warmup phase asks for load settings the profiling phase does not use", async () => {
  const { config, warnings } = await parseWithYaml(`
benchmark:
  model: m
  phases:
    - {name: warmup, type: concurrency, concurrency: 8, requests: 5}
    - {name: profiling, type: concurrency, concurrency: 4, requests: 20}
`);
  assert.equal(config.warmupRequestCount, 5);
  assert.equal(config.concurrency, 4);
  assert.deepEqual(warnings, [
    "run.yaml: 'benchmark.phases.0.concurrency' is ignored; the warmup uses the profiling phase's load settings.",
  ]);
  assert.match(
    (await yamlProblems("benchmark:\n  model: m\n  phases: [{name: warmup, duration: 5}]\n"))[0],
    /'benchmark.phases.0.duration' is not supported yet for warmup; only 'requests' is\./,
  );
});

Deno.test("loadYamlConfig refuses a document whose aliases stand for more values than any config holds", () => {
  const bomb = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    .concat(Array.from({ length: 9 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(9).fill(`*a${i}`).join(", ")}]`))
    .concat(["extra_inputs: *a9"]).join("\n");
  const started = performance.now();
  const { problems, assignments } = loadYamlConfig(bomb, { path: "bomb.yaml" });
  assert.ok(performance.now() - started < 2000, "counting stops at the limit");
  assert.deepEqual(assignments, []);
  assert.match(problems[0], /^bomb\.yaml: the document stands for more than 100,000 values \(anchors and aliases/);
  // A self-referring alias is a cycle: refused the same way instead of walked forever.
  assert.match(loadYamlConfig("models: &a [*a]", { path: "c.yaml" }).problems[0], /more than 100,000 values/);
});

Deno.test("loadYamlConfig shows a mapping given where a word belongs as the mapping", () => {
  const { problems } = loadYamlConfig("schema_version: {a: 1}\nbenchmark: {dataset: {type: [1]}}", { path: "c.yaml" });
  assert.match(problems.join("\n"), /schema_version \{"a":1\} is not supported/);
  assert.match(problems.join("\n"), /'benchmark\.dataset\.type' \[1\] is not valid/);
});
