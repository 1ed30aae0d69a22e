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
  assert.match(run.stderr, /config\.yaml: unknown key 'concurency'; did you mean 'concurrency'\?/);
  assert.equal(await exists(join(tmp.path, "artifacts")), false, "a usage error writes no artifacts");
});
