/**
 * `profile -f config.yaml`: the same options as flags give the same run (flat keys and AIPerf's `benchmark:`
 * layout alike), flags override the file, and a misspelled key is a usage error with a hint.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, exists, metric, readJson, runCli, startSim, tempDir, unusedPort } from "./cli_harness.ts";

const DIR = "artifacts/Qwen_Qwen3-0.6B-chat-concurrency1";

/** Seed 001's first command as flags (request count lowered to keep the suite fast). */
function seedFlags(url: string): string[] {
  // deno-fmt-ignore
  return [
    "--model", "Qwen/Qwen3-0.6B", "--endpoint-type", "chat", "--endpoint", "/v1/chat/completions", "--streaming",
    "--synthetic-input-tokens-mean", "100", "--synthetic-input-tokens-stddev", "0",
    "--output-tokens-mean", "200", "--output-tokens-stddev", "0", "--url", url, "--request-count", "8",
  ];
}

/** The same options in flat YAML (flag names without dashes). */
function flatYaml(url: string): string {
  return `# seed 001, chat with synthetic inputs
model: Qwen/Qwen3-0.6B
endpoint_type: chat
endpoint: /v1/chat/completions
streaming: true
synthetic_input_tokens_mean: 100
synthetic_input_tokens_stddev: 0
output_tokens_mean: 200
output_tokens_stddev: 0
url: ${url}
request_count: 8
`;
}

/** The same options in AIPerf's structured layout. */
function structuredYaml(url: string): string {
  return `schema_version: "2.0"
benchmark:
  model: Qwen/Qwen3-0.6B
  endpoint:
    url: ${url}
    type: chat
    path: /v1/chat/completions
    streaming: true
  dataset:
    type: synthetic
    prompts: {isl: {mean: 100, stddev: 0}, osl: {mean: 200, stddev: 0}}
  phases:
    type: concurrency
    concurrency: 1
    requests: 8
`;
}

interface Summary extends Record<string, unknown> {
  readonly input_config: {
    readonly endpoint: Record<string, unknown>;
    readonly datasets: Record<string, unknown>[];
    readonly phases: Record<string, unknown>[];
    readonly infermeter: Record<string, unknown>;
  };
}

Deno.test("profile -f config.yaml gives the same artifact dir, counts and settings as the equivalent flags", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "2", "--itl", "0.1"]);
  const dirs = ["flags", "flat", "structured"].map((n) => join(tmp.path, n));
  for (const d of dirs) await Deno.mkdir(d);
  await Deno.writeTextFile(join(dirs[1], "config.yaml"), flatYaml(sim.url));
  await Deno.writeTextFile(join(dirs[2], "config.yaml"), structuredYaml(sim.url));
  const runs = await Promise.all([
    runCli(["profile", "--ui", "none", ...seedFlags(sim.url)], { cwd: dirs[0] }),
    runCli(["profile", "--ui", "none", "-f", "config.yaml"], { cwd: dirs[1] }),
    runCli(["profile", "--ui", "none", "-f", "config.yaml"], { cwd: dirs[2] }),
  ]);
  const summaries: Summary[] = [];
  for (const [i, run] of runs.entries()) {
    assertExit(run, 0);
    assert.match(run.stdout, new RegExp(`JSON Export: ${DIR}/profile_export_aiperf\\.json`));
    const summary = await readJson<Summary>(join(dirs[i], DIR, "profile_export_aiperf.json"));
    assert.equal(metric(summary, "request_count").avg, 8);
    assert.equal(metric(summary, "input_sequence_length").max, 100);
    assert.equal(metric(summary, "output_sequence_length").min, 200);
    summaries.push(summary);
  }
  for (const s of summaries.slice(1)) {
    assert.deepEqual(s.input_config.endpoint, summaries[0].input_config.endpoint);
    assert.equal(s.input_config.infermeter.config_file, "config.yaml");
    assert.deepEqual(s.input_config.datasets, summaries[0].input_config.datasets);
    assert.deepEqual(s.input_config.phases, summaries[0].input_config.phases);
  }
});

Deno.test("profile flags override the values of -f config.yaml", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "2", "--itl", "0.1"]);
  await Deno.writeTextFile(join(tmp.path, "config.yaml"), flatYaml(sim.url));
  const run = await runCli(
    ["profile", "--ui", "none", "-f", "config.yaml", "--request-count", "3", "--output-tokens-mean", "30"],
    { cwd: tmp.path },
  );
  assertExit(run, 0);
  const summary = await readJson(join(tmp.path, DIR, "profile_export_aiperf.json"));
  assert.equal(metric(summary, "request_count").avg, 3);
  assert.equal(metric(summary, "output_sequence_length").avg, 30);
  assert.equal(metric(summary, "input_sequence_length").avg, 100, "the YAML still supplies the rest");
});

Deno.test("profile rejects an unknown key in -f config.yaml with exit 2 and a did-you-mean hint", async () => {
  await using tmp = await tempDir();
  await Deno.writeTextFile(
    join(tmp.path, "config.yaml"),
    flatYaml(`http://127.0.0.1:${unusedPort()}`) + "concurency: 2\n",
  );
  const run = await runCli(["profile", "--ui", "none", "-f", "config.yaml"], { cwd: tmp.path });
  assertExit(run, 2);
  assert.equal(run.stdout, "");
  assert.match(run.stderr, /config\.yaml:12: unknown key 'concurency'; did you mean 'concurrency'\?/);
  assert.equal(await exists(join(tmp.path, "artifacts")), false, "a usage error writes no artifacts");
});

Deno.test("config validate and profile -f report every problem of a file with its line, the missing input file too", async () => {
  await using tmp = await tempDir();
  await Deno.writeTextFile(
    join(tmp.path, "bad.yaml"),
    "model: m\nurl: http://127.0.0.1:9\ninput_file: no-such-data.jsonl\nconcurrency: -3\nrequest_count: abc\n",
  );
  const validate = await runCli(["config", "validate", "bad.yaml"], { cwd: tmp.path });
  assertExit(validate, 2);
  assert.equal(validate.stdout, "");
  assert.deepEqual(validate.stderr.trimEnd().split("\n"), [
    "3 problems:",
    "  bad.yaml:3: input_file: 'no-such-data.jsonl' does not exist; give the path of a dataset file or directory.",
    "  bad.yaml:4: concurrency: '-3' is out of range; give a whole number between 1 and 1,000,000.",
    "  bad.yaml:5: request_count: 'abc' is not a whole number; give a whole number between 1 and 1,000,000,000.",
  ]);
  const profile = await runCli(["profile", "--ui", "none", "-f", "bad.yaml"], { cwd: tmp.path });
  assertExit(profile, 2);
  assert.match(profile.stderr, /^ {2}- bad\.yaml:4: concurrency: '-3' is out of range/m);
  assert.match(profile.stderr, /^ {2}- bad\.yaml:5: request_count: 'abc' is not a whole number/m);

  // Several syntax errors: each with its line and column, not only the first.
  await Deno.writeTextFile(
    join(tmp.path, "broken.yaml"),
    'model: m\nconcurrency: [1\nrequest_count: : 3\nstreaming: true\nurl: "x\n',
  );
  const broken = await runCli(["config", "validate", "broken.yaml"], { cwd: tmp.path });
  assertExit(broken, 2);
  const lines = broken.stderr.trimEnd().split("\n");
  assert.match(lines[0], /^[3-9] problems:$/);
  assert.deepEqual(lines.slice(1).map((l) => /broken\.yaml:(\d+):\d+: invalid YAML/.exec(l)?.[1]), ["3", "3", "6"]);

  // A file that exists is fine, and so is the rest.
  await Deno.writeTextFile(join(tmp.path, "data.jsonl"), '{"text": "hello"}\n');
  await Deno.writeTextFile(join(tmp.path, "good.yaml"), "model: m\nurl: http://127.0.0.1:9\ninput_file: data.jsonl\n");
  const good = await runCli(["config", "validate", "good.yaml"], { cwd: tmp.path });
  assertExit(good, 0);
  assert.equal(good.stdout, "good.yaml: valid\n");
});
