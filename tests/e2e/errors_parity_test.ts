/**
 * Failed requests against AIPerf 0.13's own output for the same scenario (`tests/fixtures/aiperf_0_13/errors/`,
 * `scripts/parity/capture_aiperf.ts`): `context_overflow_count`, blank error-adjusted cells where AIPerf leaves
 * them blank, the Error Summary first and the error-adjusted rows in AIPerf's order, the raw response body as the
 * error message.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runScenario, SCENARIOS } from "../../scripts/parity/harness.ts";
import { compareShapes, consoleTables } from "../../scripts/parity/compare_exports.ts";
import { tempDir } from "./cli_harness.ts";

const FIXTURE = new URL("../fixtures/aiperf_0_13/errors/", import.meta.url).pathname;

/** Each "(error-adjusted)" CSV row: its label and which of its cells are empty. */
function adjustedCells(csv: string): [string, boolean[]][] {
  return csv.split(/\r?\n/).filter((l) => l.includes("(error-adjusted)")).map((l) => {
    const cells = l.split(",");
    return [cells[0], cells.slice(1).map((c) => c === "")];
  });
}

Deno.test("errors: AIPerf's rows and keys, blank error-adjusted cells, its table order and raw error bodies", async () => {
  await using tmp = await tempDir();
  const run = await runScenario(SCENARIOS.find((s) => s.name === "errors")!, "infermeter", tmp.path, "aiperf");
  const read = (dir: string, f: string) => Deno.readTextFile(join(dir, f));
  const ours = {
    csv: await read(run.artifacts, "profile_export_aiperf.csv"),
    json: JSON.parse(await read(run.artifacts, "profile_export_aiperf.json")),
    console: run.run.stdout,
  };
  const theirs = {
    csv: await read(FIXTURE, "profile_export_aiperf.csv"),
    json: JSON.parse(await read(FIXTURE, "profile_export_aiperf.json")),
    console: await read(FIXTURE, "console_stdout.txt"),
  };
  for (const m of compareShapes(theirs, ours)) {
    assert.deepEqual(m.missing, [], `${m.what} lacks AIPerf's ${m.missing.join(", ")}`);
  }
  assert.deepEqual(ours.json.context_overflow_count, { unit: "requests", avg: 0 });
  assert.match(ours.csv, /\r?\nContext Overflow Count,0\.00\r?\n/);

  // The same cells are blank (avg, max, sum, std and the percentiles that fall on a failure), none says inf.
  assert.deepEqual(adjustedCells(ours.csv), adjustedCells(theirs.csv));
  assert.ok(!/\binf\b/.test(ours.csv) && !/│\s+inf\s+│/.test(ours.console), "no inf anywhere");
  for (const tag of Object.keys(theirs.json).filter((k) => k.startsWith("adj_"))) {
    assert.deepEqual(Object.keys(ours.json[tag]), Object.keys(theirs.json[tag]), `${tag} keys`);
  }
  assert.deepEqual(
    Object.keys(ours.json).filter((k) => k.startsWith("adj_")),
    Object.keys(theirs.json).filter((k) => k.startsWith("adj_")),
    "error-adjusted metrics in AIPerf's order",
  );

  // Console: the Error Summary comes first; error-adjusted rows in AIPerf's order.
  const titles = (text: string) => [...consoleTables(text).keys()].filter((t) => !t.startsWith("Server Metrics"));
  assert.deepEqual(titles(ours.console), titles(theirs.console));
  const adjusted = (text: string) =>
    consoleTables(text).get("LLM Metrics")!.filter((r) => r.includes("error-adjusted"));
  assert.deepEqual(adjusted(ours.console), adjusted(theirs.console));

  // The message is the response body as the server sent it, as AIPerf keeps it.
  assert.deepEqual(
    ours.json.error_summary.map((e: { error_details: unknown }) => e.error_details),
    theirs.json.error_summary.map((e: { error_details: unknown }) => e.error_details),
  );
});
