/**
 * Speculative decoding against AIPerf 0.13's own output (`tests/fixtures/aiperf_0_13/spec_decode/`, captured by
 * `scripts/parity/capture_aiperf.ts` against serve-sim's simulation with every draft accepted): the same CSV rows,
 * JSON keys, console Spec Decode table and histogram line, JSONL record — and, the statistics being the same for any
 * prompt, the same values.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runScenario, SCENARIOS } from "../../scripts/parity/harness.ts";
import { compareShapes, readJsonlText } from "../../scripts/parity/compare_exports.ts";
import { tempDir } from "./cli_harness.ts";

const FIXTURES = new URL("../fixtures/aiperf_0_13/spec_decode/", import.meta.url).pathname;

Deno.test("speculative decoding: every row, key and console line AIPerf writes, with AIPerf's values", async () => {
  await using tmp = await tempDir();
  const run = await runScenario(SCENARIOS.find((s) => s.name === "spec_decode")!, "infermeter", tmp.path, "aiperf");
  const read = (dir: string, name: string) => Deno.readTextFile(join(dir, name));
  const ours = {
    csv: await read(run.artifacts, "profile_export_aiperf.csv"),
    json: JSON.parse(await read(run.artifacts, "profile_export_aiperf.json")),
    console: run.run.stdout,
    jsonl: readJsonlText(await read(run.artifacts, "profile_export.jsonl")),
  };
  const theirs = {
    csv: await read(FIXTURES, "profile_export_aiperf.csv"),
    json: JSON.parse(await read(FIXTURES, "profile_export_aiperf.json")),
    console: await read(FIXTURES, "console_stdout.txt"),
    jsonl: readJsonlText(await read(FIXTURES, "profile_export.jsonl")),
  };
  const shapes = compareShapes(theirs, ours);
  for (const m of shapes) {
    if (!/spec|LLM Metrics: Spec Decode|CSV|JSON/i.test(m.what)) continue;
    assert.deepEqual(
      m.missing.filter((x) => /spec|draft|accept/i.test(x)),
      [],
      `${m.what} lacks AIPerf's ${m.missing}`,
    );
  }
  const table = shapes.find((m) => m.what === 'console "LLM Metrics: Spec Decode"');
  assert.ok(table !== undefined, "AIPerf's Spec Decode table is compared");
  assert.deepEqual([table.missing, table.extra, table.sameOrder], [[], [], true]);
  const line = (text: string) => text.split("\n").find((l) => l.includes("Accepted drafts per step"))?.trim();
  assert.equal(line(ours.console), line(theirs.console));
  assert.deepEqual(
    ours.json.pooled_spec_decode_acceptance_histogram,
    theirs.json.pooled_spec_decode_acceptance_histogram,
  );
  const keys = (doc: Record<string, unknown>) =>
    Object.keys(doc).filter((k) => /spec_decode|draft_tokens/.test(k)).sort();
  assert.deepEqual(keys(ours.json), keys(theirs.json));
  for (const tag of keys(theirs.json).filter((k) => k !== "pooled_spec_decode_acceptance_histogram")) {
    const [a, b] = [theirs.json[tag], ours.json[tag]] as { unit: string; avg: number }[];
    assert.equal(b.unit, a.unit, tag);
    assert.ok(Math.abs(b.avg - a.avg) < 1e-9, `${tag}: ${b.avg} vs AIPerf ${a.avg}`);
  }
  const spec = (r: unknown) => (r as { spec_decode_acceptance: Record<string, unknown> }).spec_decode_acceptance;
  assert.deepEqual(spec(ours.jsonl[0]), spec(theirs.jsonl[0]));
  assert.deepEqual(Object.keys(ours.jsonl[0]), Object.keys(theirs.jsonl[0]));
});
