/**
 * Token counts end to end: synthetic prompts hit their length exactly, output lengths match what was asked for,
 * and the server's usage counts agree with the client's tokenizer.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, metric, readJson, readJsonl, runCli, startSim, tempDir } from "./cli_harness.ts";
import { oracleTokenizer } from "../sim/oracle_tokenizer.ts";

const DIR = "artifacts/m-chat-concurrency1";

interface InputsJson {
  readonly data: readonly { readonly session_id: string; readonly payloads: readonly Record<string, unknown>[] }[];
}

async function runInSubdir(cwd: string, name: string, args: readonly string[]) {
  const dir = join(cwd, name);
  await Deno.mkdir(dir);
  const run = await runCli(["profile", "--ui", "none", ...args], { cwd: dir });
  return { run, dir };
}

Deno.test("profile counts exactly 100 input tokens and the requested output tokens, with or without ignore_eos and server counts", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "2", "--itl", "0.2"]);
  // The same seed in every run: the same prompts in the same order, so records can be compared one to one.
  const common = ["-m", "m", "--streaming", "--isl", "100", "--isl-stddev", "0", "--osl", "50", "--osl-stddev", "0"];
  const rest = ["--url", sim.url, "--request-count", "12", "--random-seed", "7"];
  const variants = {
    ignoreEos: [...common, "--extra-inputs", "ignore_eos:true", ...rest],
    plain: [...common, ...rest],
    serverCounts: [...common, "--use-server-token-count", ...rest],
  };
  const runs = await Promise.all(Object.entries(variants).map(([name, args]) => runInSubdir(tmp.path, name, args)));

  const perRecord: { isl: number[]; osl: number[] }[] = [];
  for (const [i, { run, dir }] of runs.entries()) {
    const name = Object.keys(variants)[i];
    assertExit(run, 0);
    const summary = await readJson(join(dir, DIR, "profile_export_aiperf.json"));
    const isl = metric(summary, "input_sequence_length");
    assert.deepEqual([isl.min, isl.max, isl.avg, isl.std], [100, 100, 100, 0], `${name}: ISL`);
    for (const tag of ["output_sequence_length", "output_token_count"]) {
      const osl = metric(summary, tag);
      assert.deepEqual([osl.min, osl.max, osl.avg, osl.std], [50, 50, 50, 0], `${name}: ${tag}`);
    }
    const records = (await readJsonl(join(dir, DIR, "profile_export.jsonl"))).map((l) => l.record);
    assert.equal(records.length, 12);
    perRecord.push({
      isl: records.map((r) => r.metrics.input_sequence_length.value as number),
      osl: records.map((r) => r.metrics.output_sequence_length.value as number),
    });
    const inputs = await readJson<InputsJson>(join(dir, DIR, "inputs.json"));
    assert.equal(inputs.data[0].payloads[0].ignore_eos, name === "ignoreEos" ? true : undefined, `${name}`);
  }
  assert.deepEqual(perRecord[2], perRecord[0], "--use-server-token-count gives the tokenizer's counts");
  assert.deepEqual(perRecord[1], perRecord[0]);
});

/** The prompt text and requested output length of a conversation in inputs.json. */
function payloadOf(conversationId: string, inputs: InputsJson) {
  const session = inputs.data.find((s) => s.session_id === conversationId);
  assert.ok(session, `inputs.json has no session ${conversationId}`);
  const p = session.payloads[0] as {
    prompt?: string;
    messages?: { content: string }[];
    max_tokens?: number;
    max_completion_tokens?: number;
  };
  return { text: p.prompt ?? p.messages!.map((m) => m.content).join(""), max: p.max_tokens ?? p.max_completion_tokens };
}

Deno.test("profile with --synthetic-input-tokens-stddev 4 varies ISL and each record's ISL is its prompt's real token count", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--fast"]);
  const common = ["-m", "m", "--isl", "64", "--isl-stddev", "4", "--osl", "32", "--osl-stddev", "4"];
  const rest = ["--url", sim.url, "--request-count", "24", "--random-seed", "3"];
  const runs = await Promise.all([
    runInSubdir(tmp.path, "completions", [...common, "--endpoint-type", "completions", ...rest]),
    runInSubdir(tmp.path, "chat", [...common, "--endpoint-type", "chat", "--streaming", ...rest]),
  ]);
  const tok = oracleTokenizer();
  for (const [i, { run, dir }] of runs.entries()) {
    const artifacts = join(dir, i === 0 ? "artifacts/m-completions-concurrency1" : DIR);
    assertExit(run, 0);
    const summary = await readJson(join(artifacts, "profile_export_aiperf.json"));
    const isl = metric(summary, "input_sequence_length");
    assert.ok(isl.min! < isl.max!, `ISL should vary: ${JSON.stringify(isl)}`);
    const inputs = await readJson<InputsJson>(join(artifacts, "inputs.json"));
    const records = (await readJsonl(join(artifacts, "profile_export.jsonl"))).map((l) => l.record);
    assert.equal(records.length, 24);
    for (const r of records) {
      const { text, max } = payloadOf(r.metadata.conversation_id, inputs);
      assert.equal(r.metrics.input_sequence_length.value, tok.count(text), `ISL of ${r.metadata.conversation_id}`);
      // The simulator answers exactly max tokens, so OSL must equal what the payload asked for.
      assert.equal(r.metrics.output_sequence_length.value, max, `OSL of ${r.metadata.conversation_id}`);
    }
    // The whole dataset, not just the sampled records, follows N(64, 4) around its mean.
    const counts = inputs.data.map((s) => tok.count(payloadOf(s.session_id, inputs).text));
    const mean = counts.reduce((a, b) => a + b, 0) / counts.length;
    const std = Math.sqrt(counts.reduce((a, b) => a + (b - mean) ** 2, 0) / counts.length);
    assert.ok(Math.abs(mean - 64) < 2, `dataset ISL mean ${mean}`);
    assert.ok(std > 2.5 && std < 6, `dataset ISL stddev ${std}`);
  }
});
