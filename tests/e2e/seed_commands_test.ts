/**
 * The four `aiperf profile` commands of seed 001 (docs: "Profile OpenAI-Compatible Text APIs"), verbatim except
 * `--url`, which points at a fast simulated server instead of vLLM on localhost:8000.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  assertExit,
  type CliResult,
  consoleTableRows,
  type ExportRecord,
  metric,
  parseCsvSections,
  readJson,
  readJsonl,
  runCli,
  startSim,
  tempDir,
} from "./cli_harness.ts";
import { oracleTokenizer } from "../sim/oracle_tokenizer.ts";

/** 5 ms to the first token, 0.2 ms between tokens: a 200-token answer takes ~45 ms. */
const FAST_SIM = ["--ttft", "5", "--itl", "0.2"];

const CHAT_DIR = "artifacts/Qwen_Qwen3-0.6B-chat-concurrency1";
const COMPLETIONS_DIR = "artifacts/Qwen_Qwen3-0.6B-completions-concurrency1";

/** Rows of the seed's sample output (AIPerf prints the same labels). */
const SEED_ROWS = [
  "Request Latency (ms)",
  "Output Sequence Length (tokens)",
  "Request Throughput (requests/sec)",
];
const STREAMING_ROWS = ["Time to First Token (ms)", "Inter Token Latency (ms)"];

interface InputsJson {
  readonly data: readonly { readonly session_id: string; readonly payloads: readonly Record<string, unknown>[] }[];
}

/** Checks what every seed run shares: exit 0, the table, the four exports, and `requestCount` requests. */
async function checkSeedRun(
  cwd: string,
  run: CliResult,
  dir: string,
  requestCount: number,
  streaming: boolean,
) {
  assertExit(run, 0);
  const rows = consoleTableRows(run.stdout);
  for (const label of SEED_ROWS) assert.ok(rows.has(label), `table lacks '${label}'`);
  for (const label of STREAMING_ROWS) assert.equal(rows.has(label), streaming, `table row '${label}'`);
  assert.equal(rows.get("Request Count (requests)")?.[0], `${requestCount}.00`);
  assert.match(run.stdout, new RegExp(`JSON Export: ${dir}/profile_export_aiperf\\.json`));
  assert.match(run.stderr, new RegExp(`Results saved to: ${dir}/`));

  const summary = await readJson(join(cwd, dir, "profile_export_aiperf.json"));
  assert.equal(metric(summary, "request_count").avg, requestCount);
  assert.equal(summary.was_cancelled, false);
  assert.deepEqual(summary.error_summary, []);
  assert.equal("time_to_first_token" in summary, streaming);

  const csv = parseCsvSections(await Deno.readTextFile(join(cwd, dir, "profile_export_aiperf.csv")));
  assert.deepEqual(csv[0].header.slice(0, 4), ["Metric", "avg", "min", "max"]);
  assert.ok(csv[0].rows.some((r) => r[0] === "Request Latency (ms)"));
  const countRow = csv.flatMap((s) => s.rows).find((r) => r[0] === "Request Count");
  assert.equal(Number(countRow?.[1]), requestCount);

  const records = await readJsonl(join(cwd, dir, "profile_export.jsonl"));
  assert.equal(records.length, requestCount);
  for (const { record } of records) assert.equal(record.error, undefined);

  const inputs = await readJson<InputsJson>(join(cwd, dir, "inputs.json"));
  assert.ok(inputs.data.length > 0);
  for (const session of inputs.data) {
    assert.equal(session.payloads[0].model, "Qwen/Qwen3-0.6B");
    assert.equal(session.payloads[0].stream, streaming);
  }
  return { summary, records: records.map((l) => l.record), inputs };
}

/** Each record's prompt text, found through its conversation id in inputs.json. */
function promptOf(record: ExportRecord, inputs: InputsJson): string {
  const session = inputs.data.find((s) => s.session_id === record.metadata.conversation_id);
  assert.ok(session, `inputs.json has no session ${record.metadata.conversation_id}`);
  const payload = session.payloads[0] as { prompt?: string; messages?: { content: string }[] };
  return payload.prompt ?? payload.messages!.map((m) => m.content).join("");
}

Deno.test("seed 001 chat command with synthetic inputs runs 20 streaming requests of exactly 100 → 200 tokens", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(FAST_SIM);
  // deno-fmt-ignore
  const run = await runCli([
    "profile",
    "--model", "Qwen/Qwen3-0.6B",
    "--endpoint-type", "chat",
    "--endpoint", "/v1/chat/completions",
    "--streaming",
    "--synthetic-input-tokens-mean", "100",
    "--synthetic-input-tokens-stddev", "0",
    "--output-tokens-mean", "200",
    "--output-tokens-stddev", "0",
    "--url", sim.url,
    "--request-count", "20",
  ], { cwd: tmp.path });
  const { summary, inputs } = await checkSeedRun(tmp.path, run, CHAT_DIR, 20, true);
  assert.equal(metric(summary, "output_token_count").min, 200);
  assert.equal(metric(summary, "output_token_count").max, 200);
  assert.equal(metric(summary, "input_sequence_length").min, 100);
  assert.equal(metric(summary, "input_sequence_length").max, 100);
  assert.equal(inputs.data.length, 100, "the default --num-dataset-entries is 100");
  for (const s of inputs.data) assert.equal(s.payloads[0].max_completion_tokens, 200);
});

Deno.test("seed 001 chat command with an input file sends both prompts in turn", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(FAST_SIM);
  await Deno.writeTextFile(join(tmp.path, "inputs.jsonl"), '{"texts": ["Hello!"]}\n{"texts": ["Tell me a joke."]}\n');
  // deno-fmt-ignore
  const run = await runCli([
    "profile",
    "--model", "Qwen/Qwen3-0.6B",
    "--endpoint-type", "chat",
    "--endpoint", "/v1/chat/completions",
    "--streaming",
    "--input-file", "inputs.jsonl",
    "--custom-dataset-type", "single_turn",
    "--url", sim.url,
    "--request-count", "10",
  ], { cwd: tmp.path });
  const { records, inputs } = await checkSeedRun(tmp.path, run, CHAT_DIR, 10, true);
  assert.deepEqual(
    inputs.data.map((s) => (s.payloads[0].messages as { content: string }[])[0].content),
    ["Hello!", "Tell me a joke."],
  );
  assert.equal(inputs.data[0].payloads[0].max_completion_tokens, undefined, "no output length was asked for");
  const tok = oracleTokenizer();
  const prompts = records.map((r) => promptOf(r, inputs));
  assert.deepEqual(prompts.slice(0, 4), ["Hello!", "Tell me a joke.", "Hello!", "Tell me a joke."], "sequential");
  for (const [i, r] of records.entries()) {
    assert.equal(r.metrics.input_sequence_length.value, tok.count(prompts[i]));
  }
});

Deno.test("seed 001 completions command with synthetic inputs varies ISL and OSL around 64 and 128", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(FAST_SIM);
  // deno-fmt-ignore
  const run = await runCli([
    "profile",
    "--model", "Qwen/Qwen3-0.6B",
    "--endpoint-type", "completions",
    "--endpoint", "/v1/completions",
    "--synthetic-input-tokens-mean", "64",
    "--synthetic-input-tokens-stddev", "4",
    "--output-tokens-mean", "128",
    "--output-tokens-stddev", "4",
    "--url", sim.url,
    "--request-count", "32",
  ], { cwd: tmp.path });
  const { summary } = await checkSeedRun(tmp.path, run, COMPLETIONS_DIR, 32, false);
  const isl = metric(summary, "input_sequence_length");
  const osl = metric(summary, "output_sequence_length");
  assert.ok(isl.avg > 60 && isl.avg < 68, `ISL avg ${isl.avg}`);
  assert.ok(osl.avg > 124 && osl.avg < 132, `OSL avg ${osl.avg}`);
  assert.ok(isl.std! > 0 && osl.std! > 0, "stddev 4 must vary the lengths");
});

Deno.test("seed 001 completions command with an input file sends both prompts in turn", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(FAST_SIM);
  await Deno.writeTextFile(
    join(tmp.path, "inputs.jsonl"),
    '{"texts": ["How are you?"]}\n{"texts": ["Give me a poem."]}\n',
  );
  // deno-fmt-ignore
  const run = await runCli([
    "profile",
    "--model", "Qwen/Qwen3-0.6B",
    "--endpoint-type", "completions",
    "--endpoint", "/v1/completions",
    "--input-file", "inputs.jsonl",
    "--custom-dataset-type", "single_turn",
    "--url", sim.url,
    "--request-count", "10",
  ], { cwd: tmp.path });
  const { records, inputs } = await checkSeedRun(tmp.path, run, COMPLETIONS_DIR, 10, false);
  assert.deepEqual(inputs.data.map((s) => s.payloads[0].prompt), ["How are you?", "Give me a poem."]);
  const tok = oracleTokenizer();
  for (const r of records) {
    assert.equal(r.metrics.input_sequence_length.value, tok.count(promptOf(r, inputs)));
  }
});
