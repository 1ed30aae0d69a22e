import assert from "node:assert/strict";
import { ConfigError } from "../../src/config/config_error.ts";
import { parseProfileArgs } from "../../src/config/parse_profile_args.ts";
import { fakeIo } from "./_fake_io.ts";

/** Parses and fails the test with the problem list if it throws. */
function parse(argv: readonly string[], io = fakeIo()) {
  return parseProfileArgs(argv, io);
}

/** The problems of the ConfigError thrown for `argv`. */
async function problemsOf(argv: readonly string[], io = fakeIo()): Promise<readonly string[]> {
  try {
    await parseProfileArgs(argv, io);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${error}`);
    return error.problems;
  }
  assert.fail(`expected ${argv.join(" ")} to be rejected`);
}

const words = (line: string): string[] => line.trim().split(/\s+/);

Deno.test("parseProfileArgs reads the seed's chat command with synthetic inputs", async () => {
  const { config } = await parse(words(`
    --model Qwen/Qwen3-0.6B --endpoint-type chat --endpoint /v1/chat/completions --streaming
    --synthetic-input-tokens-mean 100 --synthetic-input-tokens-stddev 0 --output-tokens-mean 200
    --output-tokens-stddev 0 --url localhost:8000 --request-count 20`));
  assert.deepEqual(config.modelNames, ["Qwen/Qwen3-0.6B"]);
  assert.equal(config.endpointType, "chat");
  assert.equal(config.customEndpoint, "/v1/chat/completions");
  assert.equal(config.streaming, true);
  assert.equal(config.syntheticInputTokensMean, 100);
  assert.equal(config.syntheticInputTokensStddev, 0);
  assert.equal(config.outputTokensMean, 200);
  assert.equal(config.outputTokensStddev, 0);
  assert.deepEqual(config.urls, ["http://localhost:8000"]);
  assert.equal(config.requestCount, 20);
  assert.equal(config.concurrency, 1);
  assert.equal(config.inputFile, undefined);
});

Deno.test("parseProfileArgs reads the seed's chat command with a single_turn input file", async () => {
  const { config } = await parse(words(`
    --model Qwen/Qwen3-0.6B --endpoint-type chat --endpoint /v1/chat/completions --streaming
    --input-file inputs.jsonl --custom-dataset-type single_turn --url localhost:8000 --request-count 10`));
  assert.equal(config.inputFile, "inputs.jsonl");
  assert.equal(config.customDatasetType, "single_turn");
  assert.equal(config.requestCount, 10);
  assert.equal(config.streaming, true);
});

Deno.test("parseProfileArgs reads the seed's completions command with synthetic inputs", async () => {
  const { config } = await parse(words(`
    --model Qwen/Qwen3-0.6B --endpoint-type completions --endpoint /v1/completions
    --synthetic-input-tokens-mean 64 --synthetic-input-tokens-stddev 4 --output-tokens-mean 128
    --output-tokens-stddev 4 --url localhost:8000 --request-count 32`));
  assert.equal(config.endpointType, "completions");
  assert.equal(config.customEndpoint, "/v1/completions");
  assert.equal(config.streaming, false);
  assert.equal(config.syntheticInputTokensMean, 64);
  assert.equal(config.syntheticInputTokensStddev, 4);
  assert.equal(config.outputTokensMean, 128);
  assert.equal(config.outputTokensStddev, 4);
  assert.equal(config.requestCount, 32);
});

Deno.test("parseProfileArgs reads the seed's completions command with an input file", async () => {
  const { config, redactedCommand } = await parse(words(`
    --model Qwen/Qwen3-0.6B --endpoint-type completions --endpoint /v1/completions
    --input-file inputs.jsonl --custom-dataset-type single_turn --url localhost:8000 --request-count 10`));
  assert.equal(config.endpointType, "completions");
  assert.equal(config.inputFile, "inputs.jsonl");
  assert.equal(config.requestCount, 10);
  assert.equal(
    redactedCommand,
    "infermeter profile --model 'Qwen/Qwen3-0.6B' --endpoint-type 'completions' --endpoint '/v1/completions' " +
      "--input-file 'inputs.jsonl' --custom-dataset-type 'single_turn' --url 'localhost:8000' --request-count 10",
  );
});

Deno.test("parseProfileArgs fills AIPerf's defaults when only a model is given", async () => {
  const { config, sources } = await parse(["-m", "m"]);
  assert.deepEqual(config.urls, ["http://localhost:8000"]);
  assert.equal(config.endpointType, "chat");
  assert.equal(config.streaming, false);
  assert.equal(config.requestTimeoutSeconds, 21600);
  assert.equal(config.tokenizer, "builtin");
  assert.equal(config.numDatasetEntries, 100);
  assert.equal(config.syntheticInputTokensMean, 550);
  assert.equal(config.syntheticInputTokensStddev, 0);
  assert.equal(config.outputTokensMean, undefined);
  assert.equal(config.concurrency, 1);
  assert.equal(config.requestRate, undefined);
  assert.equal(config.requestCount, 10);
  assert.equal(config.arrivalPattern, "poisson", "the declared default; the closed loop has no arrival pattern");
  assert.equal(config.benchmarkGracePeriod, 30);
  assert.equal(config.artifactDir, "artifacts");
  assert.equal(config.artifactDirExplicit, false);
  assert.equal(config.exportLevel, "records");
  assert.equal(config.logLevel, "INFO");
  assert.equal(config.ui, "simple");
  assert.equal(config.connectionReuseStrategy, "pooled");
  assert.equal(config.modelSelectionStrategy, "round_robin");
  assert.deepEqual(config.extraInputs, {});
  assert.deepEqual(config.headers, []);
  assert.deepEqual(config.goodput, []);
  assert.equal(sources.modelNames, "cli");
  assert.equal(sources.urls, "default");
  assert.equal(sources.requestCount, "default");
  assert.ok(!("apiKey" in config), "unset optional fields are absent");
});

Deno.test("parseProfileArgs defaults the request count to twice the concurrency, at least 10", async () => {
  assert.equal((await parse(["-m", "m", "--concurrency", "3"])).config.requestCount, 10);
  assert.equal((await parse(["-m", "m", "--concurrency", "8"])).config.requestCount, 16);
  assert.equal(
    (await parse(["-m", "m", "--concurrency", "8", "--benchmark-duration", "5"])).config.requestCount,
    undefined,
  );
  assert.equal(
    (await parse(["-m", "m", "--concurrency", "8", "--input-file", "a.jsonl"])).config.requestCount,
    undefined,
  );
});

Deno.test("parseProfileArgs leaves concurrency uncapped when a request rate is given", async () => {
  const { config } = await parse(["-m", "m", "--request-rate", "5"]);
  assert.equal(config.concurrency, undefined);
  assert.equal(config.requestRate, 5);
  assert.equal(config.arrivalPattern, "poisson");
  assert.equal(config.requestCount, 10);
});

Deno.test("parseProfileArgs returns a deep-frozen config", async () => {
  const { config } = await parse(["-m", "a,b", "--extra-inputs", '{"nvext":{"ignore_eos":true}}', "-H", "X-A:1"]);
  assert.ok(Object.isFrozen(config));
  assert.ok(Object.isFrozen(config.modelNames));
  assert.ok(Object.isFrozen(config.extraInputs));
  assert.ok(Object.isFrozen(config.extraInputs.nvext));
  assert.ok(Object.isFrozen(config.headers[0]));
});

Deno.test("parseProfileArgs maps every AIPerf alias to the same field", async () => {
  const cases: ReadonlyArray<readonly [readonly string[], keyof Awaited<ReturnType<typeof parse>>["config"], unknown]> =
    [
      [["-m", "x"], "modelNames", ["x"]],
      [["--model-names", "x"], "modelNames", ["x"]],
      [["--model", "x"], "modelNames", ["x"]],
      [["--custom-endpoint", "/v1/x"], "customEndpoint", "/v1/x"],
      [["--endpoint", "v1/x"], "customEndpoint", "/v1/x"],
      [["-u", "h:1"], "urls", ["http://h:1"]],
      [["--url", "h:1"], "urls", ["http://h:1"]],
      [["-H", "A:1"], "headers", [["A", "1"]]],
      [["--header", "A:1"], "headers", [["A", "1"]]],
      [["--num-dataset-entries", "7"], "numDatasetEntries", 7],
      [["--num-prompts", "7"], "numDatasetEntries", 7],
      [["--prompt-input-tokens-mean", "9"], "syntheticInputTokensMean", 9],
      [["--synthetic-input-tokens-mean", "9"], "syntheticInputTokensMean", 9],
      [["--isl", "9"], "syntheticInputTokensMean", 9],
      [["--prompt-input-tokens-stddev", "2"], "syntheticInputTokensStddev", 2],
      [["--synthetic-input-tokens-stddev", "2"], "syntheticInputTokensStddev", 2],
      [["--isl-stddev", "2"], "syntheticInputTokensStddev", 2],
      [["--prompt-output-tokens-mean", "9"], "outputTokensMean", 9],
      [["--output-tokens-mean", "9"], "outputTokensMean", 9],
      [["--osl", "9"], "outputTokensMean", 9],
      [["--prompt-output-tokens-stddev", "2", "--osl", "5"], "outputTokensStddev", 2],
      [["--output-tokens-stddev", "2", "--osl", "5"], "outputTokensStddev", 2],
      [["--osl-stddev", "2", "--osl", "5"], "outputTokensStddev", 2],
      [["--request-rate", "2", "--arrival-pattern", "constant"], "arrivalPattern", "constant"],
      [["--request-rate", "2", "--request-rate-mode", "constant"], "arrivalPattern", "constant"],
      [["--request-rate", "2", "--arrival-smoothness", "0.5"], "arrivalSmoothness", 0.5],
      [["--request-rate", "2", "--vllm-burstiness", "0.5"], "arrivalSmoothness", 0.5],
      [["--request-count", "4"], "requestCount", 4],
      [["--num-requests", "4"], "requestCount", 4],
      [["--warmup-request-count", "3"], "warmupRequestCount", 3],
      [["--num-warmup-requests", "3"], "warmupRequestCount", 3],
      [["--output-artifact-dir", "out"], "artifactDir", "out"],
      [["--artifact-dir", "out"], "artifactDir", "out"],
      [["--profile-export-prefix", "p"], "profileExportPrefix", "p"],
      [["--profile-export-file", "p"], "profileExportPrefix", "p"],
      [["--export-level", "raw"], "exportLevel", "raw"],
      [["--profile-export-level", "raw"], "exportLevel", "raw"],
      [["--ui-type", "simple"], "ui", "simple"],
      [["--ui", "simple"], "ui", "simple"],
      [["--workers-max", "3"], "workers", 3],
      [["--max-workers", "3"], "workers", 3],
      [["--workers", "3"], "workers", 3],
      [["--cpu-dma-latency", "0"], "cpuDmaLatency", 0],
      [["--cpu-dma-latency", "10"], "cpuDmaLatency", 10],
      [["-v"], "logLevel", "DEBUG"],
      [["--verbose"], "logLevel", "DEBUG"],
      [["-vv"], "logLevel", "TRACE"],
      [["--extra-verbose"], "logLevel", "TRACE"],
      [["--log-level", "warning"], "logLevel", "WARNING"],
    ];
  for (const [args, key, expected] of cases) {
    const argv = args.includes("-m") || args.some((a) => a.startsWith("--model")) ? args : ["-m", "m", ...args];
    assert.deepEqual((await parse(argv)).config[key], expected, `${args.join(" ")} → ${key}`);
  }
});

Deno.test("parseProfileArgs lets the last of several aliases win for a single-valued option", async () => {
  const { config } = await parse([
    "-m",
    "m",
    "--isl",
    "10",
    "--synthetic-input-tokens-mean",
    "20",
    "--prompt-input-tokens-mean=30",
  ]);
  assert.equal(config.syntheticInputTokensMean, 30);
  assert.equal((await parse(["-m", "m", "--log-level", "ERROR", "-v"])).config.logLevel, "DEBUG");
  assert.equal((await parse(["-m", "m", "-v", "--log-level", "ERROR"])).config.logLevel, "ERROR");
});

Deno.test("parseProfileArgs accumulates list options from commas and repeated flags across aliases", async () => {
  const { config } = await parse([
    "-m",
    "a,b",
    "--model",
    "c",
    "--model-names",
    " d , e ",
    "-u",
    "h1:1,https://h2",
    "--url",
    "h3",
  ]);
  assert.deepEqual(config.modelNames, ["a", "b", "c", "d", "e"]);
  assert.deepEqual(config.urls, ["http://h1:1", "https://h2", "http://h3"]);
});

Deno.test("parseProfileArgs normalizes URLs by adding http:// when the scheme is missing", async () => {
  const { config } = await parse([
    "-m",
    "m",
    "-u",
    "localhost:8000/",
    "-u",
    "https://secure.example:443",
    "-u",
    "10.0.0.1",
  ]);
  assert.deepEqual(config.urls, ["http://localhost:8000", "https://secure.example:443", "http://10.0.0.1"]);
  const problems = await problemsOf(["-m", "m", "-u", "ftp://x"]);
  assert.match(problems[0], /ftp.*not supported; use http:\/\/ or https:\/\//);
});

Deno.test("parseProfileArgs reads extra inputs as key:value with JSON values or as JSON objects, later winning", async () => {
  const { config } = await parse([
    "-m",
    "m",
    "--extra-inputs",
    "ignore_eos:true",
    "--extra-inputs",
    "max_tokens:5",
    "--extra-inputs",
    "stop:a:b",
    "--extra-inputs",
    "name:plain text",
    "--extra-inputs",
    '{"nvext":{"ignore_eos":true},"max_tokens":7}',
    "--extra-inputs",
    "temperature:0.5",
  ]);
  assert.deepEqual(config.extraInputs, {
    ignore_eos: true,
    max_tokens: 7,
    stop: "a:b",
    name: "plain text",
    nvext: { ignore_eos: true },
    temperature: 0.5,
  });
  assert.match((await problemsOf(["-m", "m", "--extra-inputs", "novalue"]))[0], /not key:value or a JSON object/);
  assert.match((await problemsOf(["-m", "m", "--extra-inputs", "{bad json"]))[0], /not a valid JSON object/);
});

Deno.test("parseProfileArgs reads headers as Name:Value or JSON, keeping order and replacing by name", async () => {
  const { config } = await parse([
    "-m",
    "m",
    "-H",
    "X-Trace: 1",
    "--header",
    '{"Authorization":"Bearer abc","X-Other":"2"}',
    "-H",
    "x-trace:3",
  ]);
  assert.deepEqual(config.headers, [["X-Trace", "3"], ["Authorization", "Bearer abc"], ["X-Other", "2"]]);
  assert.match((await problemsOf(["-m", "m", "-H", "NoColon"]))[0], /not Name:Value/);
});

Deno.test("parseProfileArgs accepts --x, --no-x and --x=true|false for booleans", async () => {
  assert.equal((await parse(["-m", "m", "--streaming"])).config.streaming, true);
  assert.equal((await parse(["-m", "m", "--streaming", "--no-streaming"])).config.streaming, false);
  assert.equal((await parse(["-m", "m", "--streaming=false"])).config.streaming, false);
  assert.equal((await parse(["-m", "m", "--use-server-token-count=true"])).config.useServerTokenCount, true);
  assert.match((await problemsOf(["-m", "m", "--streaming=maybe"]))[0], /not true or false/);
});

Deno.test("parseProfileArgs accepts --flag=value for value options", async () => {
  const { config } = await parse(["--model=m", "--concurrency=4", "--url=h:9", "-Hx-a:1"]);
  assert.deepEqual(config.modelNames, ["m"]);
  assert.equal(config.concurrency, 4);
  assert.deepEqual(config.urls, ["http://h:9"]);
  assert.deepEqual(config.headers, [["x-a", "1"]]);
});

Deno.test("parseProfileArgs parses goodput objectives", async () => {
  const { config } = await parse(["-m", "m", "--goodput", "request_latency:250 inter_token_latency:10.5"]);
  assert.deepEqual(config.goodput, [{ tag: "request_latency", value: 250 }, {
    tag: "inter_token_latency",
    value: 10.5,
  }]);
  assert.match((await problemsOf(["-m", "m", "--goodput", "request_latency=250"]))[0], /not metric_tag:value/);
});

Deno.test("parseProfileArgs accepts a smoothness alone with a rate (the plan then selects gamma arrivals)", async () => {
  const { config } = await parse(["-m", "m", "--request-rate", "10", "--vllm-burstiness", "2"]);
  assert.equal(config.arrivalSmoothness, 2);
});

Deno.test("parseProfileArgs rejects a smoothness with a non-gamma pattern or without a rate", async () => {
  assert.match(
    (await problemsOf([
      "-m",
      "m",
      "--request-rate",
      "1",
      "--arrival-pattern",
      "constant",
      "--arrival-smoothness",
      "2",
    ]))[0],
    /--arrival-smoothness only shapes gamma arrivals, but --arrival-pattern is 'constant'/,
  );
  assert.match(
    (await problemsOf(["-m", "m", "--arrival-smoothness", "2"]))[0],
    /--arrival-smoothness shapes request-rate arrivals; add --request-rate <req\/s>/,
  );
});

Deno.test("parseProfileArgs allows the grace period only with a benchmark duration", async () => {
  assert.match(
    (await problemsOf(["-m", "m", "--benchmark-grace-period", "5"]))[0],
    /only applies after --benchmark-duration/,
  );
  const { config } = await parse(["-m", "m", "--benchmark-duration", "60", "--benchmark-grace-period", "inf"]);
  assert.equal(config.benchmarkGracePeriod, Infinity);
  assert.equal(config.benchmarkDuration, 60);
});

Deno.test("parseProfileArgs allows both a request count and a duration", async () => {
  const { config } = await parse(["-m", "m", "--request-count", "100", "--benchmark-duration", "30"]);
  assert.equal(config.requestCount, 100);
  assert.equal(config.benchmarkDuration, 30);
});

Deno.test("parseProfileArgs keeps the UI asked for; without one, simple (a bar on a terminal, lines on a pipe)", async () => {
  const parsed = await parse(["-m", "m", "--ui", "dashboard"]);
  assert.equal(parsed.config.ui, "dashboard");
  assert.deepEqual(parsed.warnings, []);
  assert.equal((await parse(["-m", "m"], fakeIo({ isTty: true }))).config.ui, "simple");
  assert.equal((await parse(["-m", "m"], fakeIo({ isTty: false }))).config.ui, "simple");
});

Deno.test("parseProfileArgs records whether the artifact directory was set explicitly", async () => {
  assert.equal((await parse(["-m", "m"])).config.artifactDirExplicit, false);
  const { config } = await parse(["-m", "m", "--artifact-dir", "artifacts"]);
  assert.equal(config.artifactDirExplicit, true);
  assert.equal(config.artifactDir, "artifacts");
});

Deno.test("parseProfileArgs suggests the closest flag for an unknown one", async () => {
  const problems = await problemsOf(["-m", "m", "--concurency", "4"]);
  assert.deepEqual(problems, [
    "Unknown option '--concurency'; did you mean '--concurrency'? See 'infermeter profile --help' for all options.",
  ]);
  assert.match(
    (await problemsOf(["-m", "m", "--synthetic-input-token-mean=5"]))[0],
    /did you mean '--synthetic-input-tokens-mean'\?/,
  );
  assert.match(
    (await problemsOf(["-m", "m", "--zzzzzz"]))[0],
    /^Unknown option '--zzzzzz'; see 'infermeter profile --help'/,
  );
});

Deno.test("parseProfileArgs never echoes the value of an unknown option", async () => {
  const problems = await problemsOf(["-m", "m", "--api-kee", "sk-secret-123", "--hf-token=hf_abc"]);
  assert.equal(problems.length, 2);
  assert.ok(!problems.join("\n").includes("sk-secret-123"));
  assert.ok(!problems.join("\n").includes("hf_abc"));
  assert.match(problems[0], /did you mean '--api-key'\?/);
});

Deno.test("parseProfileArgs reports every problem together, one line each", async () => {
  let error: unknown;
  try {
    await parseProfileArgs(
      [
        "--concurrency",
        "0",
        "--isl",
        "abc",
        "--model-selection-strategy",
        "weighted",
        "--export-level",
        "everything",
        "--frobnicate",
        "--request-rate",
        "-3",
      ],
      fakeIo(),
    );
  } catch (caught) {
    error = caught;
  }
  assert.ok(error instanceof ConfigError);
  const text = error.problems.join("\n");
  assert.equal(error.problems.length, 6, text);
  assert.match(text, /--concurrency: '0' is out of range; give a whole number between 1 and 1,000,000\./);
  assert.match(text, /--isl: 'abc' is not a whole number/);
  assert.match(
    text,
    /--model-selection-strategy: 'weighted' is not supported yet by infermeter.*use one of: round_robin, random/,
  );
  assert.match(text, /--export-level: 'everything' is not a valid choice; use one of: summary, records, raw\./);
  assert.match(text, /Unknown option '--frobnicate'/);
  assert.match(text, /--request-rate: '-3' is out of range; give a number greater than 0 and at most 1,000,000\./);
  for (const problem of error.problems) assert.ok(!problem.includes("\n"), `one line: ${problem}`);
  assert.match(error.message, /^6 configuration problems:\n {2}- /);
});

Deno.test("parseProfileArgs names the flag whose value went missing", async () => {
  assert.match(
    (await problemsOf(["-m", "m", "--concurrency"]))[0],
    /--concurrency needs a value; put one after it, e\.g\. --concurrency 8\./,
  );
  assert.deepEqual(await problemsOf(["--model", "--url", "x"]), [
    "--model is missing its value (the next word is the option --url); put a value after --model.",
  ]);
});

Deno.test("parseProfileArgs rejects stray arguments instead of ignoring them", async () => {
  assert.match((await problemsOf(["-m", "a", "b"]))[0], /Unexpected argument 'b'/);
  const hidden = await problemsOf(["-m", "a", "-H", "Authorization:", "Bearer", "tok"]);
  assert.ok(!hidden.join("\n").includes("tok"), hidden.join("\n"));
});

Deno.test("parseProfileArgs refuses list values of an option that takes one, naming what is not supported", async () => {
  assert.match(
    (await problemsOf(["-m", "m", "--concurrency", "1,4,16"]))[0],
    /sweeps over several values are not supported yet/,
  );
});

Deno.test("parseProfileArgs reads the server-metrics, GPU-telemetry and API options", async () => {
  const plain = await parse(["-m", "m"]);
  assert.equal(plain.config.noServerMetrics, false);
  assert.deepEqual(plain.config.serverMetricsUrls, []);
  assert.equal(plain.config.apiPort, undefined);
  assert.equal(plain.config.apiHost, "127.0.0.1");
  const off = await parse(["-m", "m", "--no-server-metrics", "--no-gpu-telemetry"]);
  assert.equal(off.warnings.length, 0);
  assert.equal(off.config.noServerMetrics, true);
  assert.equal(off.config.noGpuTelemetry, true);
  // The URL list takes an optional value: alone it turns collection on, and it never swallows the next flag.
  const urls = await parse(["--server-metrics", "--gpu-telemetry", "localhost:9500", "-m", "m"]);
  assert.deepEqual(urls.config.serverMetricsUrls, []);
  assert.deepEqual(urls.config.gpuTelemetryUrls, ["http://localhost:9500"]);
  assert.deepEqual(urls.config.modelNames, ["m"]);
  const api = await parse(["-m", "m", "--api-port", "9097", "--api-host", "0.0.0.0", "--api-keep-alive", "2.5"]);
  assert.equal(api.config.apiPort, 9097);
  assert.equal(api.config.apiHost, "0.0.0.0");
  assert.equal(api.config.apiKeepAlive, 2.5);
  const env = await parse(["-m", "m"], fakeIo({ env: { AIPERF_API_SERVER_PORT: "9098" } }));
  assert.equal(env.config.apiPort, 9098);
  const ours = await parse(
    ["-m", "m"],
    fakeIo({ env: { AIPERF_API_SERVER_PORT: "1", INFERMETER_API_SERVER_PORT: "2" } }),
  );
  assert.equal(ours.config.apiPort, 2);
  assert.match((await problemsOf(["-m", "m", "--api-port", "70000"]))[0], /--api-port/);
});

Deno.test("parseProfileArgs layers defaults < env < flags", async () => {
  const io = fakeIo({
    env: { INFERMETER_MODEL: "env-model", INFERMETER_URL: "envhost:1", INFERMETER_LOG_LEVEL: "debug" },
  });
  const fromEnv = await parse([], io);
  assert.deepEqual(fromEnv.config.modelNames, ["env-model"]);
  assert.deepEqual(fromEnv.config.urls, ["http://envhost:1"]);
  assert.equal(fromEnv.config.logLevel, "DEBUG");
  assert.equal(fromEnv.sources.modelNames, "env");
  const fromFlags = await parse(["-m", "flag-model"], io);
  assert.deepEqual(fromFlags.config.modelNames, ["flag-model"]);
  assert.equal(fromFlags.sources.modelNames, "cli");
  assert.equal(fromFlags.sources.urls, "env");
});

Deno.test("parseProfileArgs reports a bad environment value by variable name, without echoing secrets", async () => {
  const problems = await problemsOf(["-m", "m"], fakeIo({ env: { INFERMETER_WORKERS: "many" } }));
  assert.match(problems[0], /^env INFERMETER_WORKERS: 'many' is not a whole number/);
});

Deno.test("parseProfileArgs refuses to run when help is requested", async () => {
  await assert.rejects(() => parseProfileArgs(["-m", "m", "--help"], fakeIo()), ConfigError);
});

Deno.test("parseProfileArgs bounds prompt lengths and entry counts before anything is built", async () => {
  assert.match(
    (await problemsOf(["-m", "m", "--isl", "0"]))[0],
    /--isl: '0' is out of range; .* between 1 and 10,000,000/,
  );
  assert.match((await problemsOf(["-m", "m", "--isl", "1e12"]))[0], /between 1 and 10,000,000/);
  assert.match(
    (await problemsOf(["-m", "m", "--num-dataset-entries", "1e12"]))[0],
    /--num-dataset-entries: '1e12' is out of range; .* between 1 and 1,000,000/,
  );
  assert.match((await problemsOf(["-m", "m", "--conversation-turn-mean", "1e6"]))[0], /between 1 and 10,000/);
  // Each value within its bound, the product above what a run builds in memory.
  assert.match(
    (await problemsOf(["-m", "m", "--num-dataset-entries", "1000000"]))[0],
    /--num-dataset-entries 1000000 × 1 turn × 550 prompt tokens .* above the 100,000,000/,
  );
  // A file dataset builds no synthetic prompts, so the product does not apply.
  const { config } = await parse(["-m", "m", "--num-dataset-entries", "1000000", "--input-file", "x.jsonl"]);
  assert.equal(config.numDatasetEntries, 1_000_000);
});

Deno.test("AIPerf's environment settings that have an infermeter option are read as aliases, ours first", async () => {
  const env = await parse(
    ["-m", "m"],
    fakeIo({ env: { AIPERF_API_SERVER_POST_COMPLETE_GRACE: "5", AIPERF_UI_CONSOLE_EXPORT_WIDTH: "120" } }),
  );
  assert.equal(env.config.apiKeepAlive, 5);
  assert.equal(env.config.consoleWidth, 120);
  const ours = await parse(
    ["-m", "m"],
    fakeIo({ env: { AIPERF_UI_CONSOLE_EXPORT_WIDTH: "120", INFERMETER_CONSOLE_WIDTH: "100" } }),
  );
  assert.equal(ours.config.consoleWidth, 100);
  assert.equal((await parse(["-m", "m", "--console-width", "90"])).config.consoleWidth, 90);
  assert.match(
    (await problemsOf(["-m", "m"], fakeIo({ env: { AIPERF_UI_CONSOLE_EXPORT_WIDTH: "wide" } })))[0],
    /AIPERF_UI_CONSOLE_EXPORT_WIDTH/,
  );
});

Deno.test("parseProfileArgs names a fractional bound as it is, not rounded to one it refuses", async () => {
  const [problem] = await problemsOf([
    "-m",
    "m",
    "--num-profile-runs",
    "3",
    "--convergence-metric",
    "request_latency",
    "--convergence-threshold",
    "1",
  ]);
  assert.match(
    problem,
    /--convergence-threshold: '1' is out of range; give a number greater than 0 and at most 0\.999999\./,
  );
});
