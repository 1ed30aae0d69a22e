/**
 * Multi-turn ISL end to end: a later turn carries the conversation so far, and its ISL is what the request carried,
 * counted as AIPerf 0.13 counts the wire payload (every message text joined by one space). Checked against the
 * bodies `serve-sim` journaled and the `usage.prompt_tokens` it answered.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, metric, readJson, readJsonl, runCli, startSim, tempDir } from "./cli_harness.ts";
import { readRequestJournal } from "../../src/sim/read_request_journal.ts";
import { payloadText } from "../../src/dataset/payload_text.ts";
import { oracleTokenizer } from "../sim/oracle_tokenizer.ts";

Deno.test("multi-turn ISL counts the history each request carries, and the usage check agrees with the server", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim(["--ttft", "2", "--itl", "0.2", "--record-requests", journal]);
  const conversations = ["alpha", "beta", "gamma"].map((id) => ({
    session_id: id,
    turns: [1, 2, 3].map((k) => ({
      text: `Turn ${k} of ${id}: describe the harbour, its ships and the weather in a few lines.`,
      output_length: 30,
    })),
  }));
  await Deno.writeTextFile(join(tmp.path, "conv.jsonl"), conversations.map((c) => JSON.stringify(c)).join("\n") + "\n");
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "m", "--url", sim.url, "--input-file", "conv.jsonl",
    "--custom-dataset-type", "multi_turn", "--request-count", "9", "--concurrency", "3", "--random-seed", "3",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  await sim.stop();
  const bodies = new Map(
    (await readRequestJournal(journal)).map((e) => [e.headers["x-request-id"], e.body as Record<string, unknown>]),
  );
  const dir = join(tmp.path, "artifacts/m-chat-concurrency3");
  const records = (await readJsonl(join(dir, "profile_export.jsonl"))).map((l) => l.record);
  assert.equal(records.length, 9);
  const oracle = oracleTokenizer();
  const islByTurn: number[][] = [[], [], []];
  for (const r of records) {
    const body = bodies.get(r.metadata.x_request_id as string);
    assert.ok(body, `the server saw request ${r.metadata.x_request_id}`);
    const messages = body.messages as unknown[];
    const turn = r.metadata.turn_index as number;
    assert.equal(messages.length, 2 * turn + 1, "each later turn carries the earlier ones and their replies");
    const isl = r.metrics.input_sequence_length.value as number;
    assert.equal(isl, oracle.count(payloadText(body)), `turn ${turn}: ISL is the count of what the body carried`);
    // The server counts each message on its own; joining them adds at most one token per boundary.
    const server = r.metrics.usage_prompt_tokens.value as number;
    assert.ok(isl >= server && isl - server <= 2 * turn, `turn ${turn}: ISL ${isl}, server ${server}`);
    islByTurn[turn].push(isl);
  }
  const [first, second, third] = islByTurn.map((v) => Math.min(...v));
  assert.ok(second > first + 30 && third > second + 30, `ISL grows with the history: ${islByTurn.join(" / ")}`);
  const summary = await readJson(join(dir, "profile_export_aiperf.json"));
  assert.equal(metric(summary, "usage_discrepancy_count").avg, 0, "no request is flagged by the usage check");
  const total = records.reduce((n, r) => n + (r.metrics.input_sequence_length.value as number), 0);
  assert.equal(metric(summary, "total_isl").avg, total);
  // Both throughputs share one window: their ratio is the ratio of the token totals.
  const ratio = metric(summary, "input_token_throughput").avg / metric(summary, "output_token_throughput").avg;
  const expected = total / metric(summary, "total_osl").avg;
  assert.ok(Math.abs(ratio - expected) <= 1e-9 * expected, `input token throughput follows: ${ratio} vs ${expected}`);
});
