/**
 * Parity with AIPerf 0.13.0's files, checked against what AIPerf itself wrote (tests/fixtures/aiperf_0_13): the
 * values of its own summary, rendered by our exporters, must give its CSV rows and console tables byte for byte,
 * and our JSON / JSONL / raw / inputs.json documents must have its keys in its order.
 */
import assert from "node:assert/strict";
import { renderSummaryCsv } from "../../src/export/csv_export.ts";
import { renderMetricsTable } from "../../src/export/console_table.ts";
import { summaryJsonObject } from "../../src/export/json_export.ts";
import { RecordLineFormatter } from "../../src/export/jsonl_writer.ts";
import { rawRecordLine } from "../../src/export/raw_record_line.ts";
import { renderInputsJson } from "../../src/export/inputs_json.ts";
import { toInputConfig } from "../../src/config/input_config.ts";
import { parseProfileArgs } from "../../src/config/parse_profile_args.ts";
import { METRIC_REGISTRY } from "../../src/metrics/metric_registry.ts";
import type { MetricResult, RunSummary } from "../../src/metrics/run_summary.ts";
import type { Stats } from "../../src/metrics/stats.ts";
import { MetricAccumulator } from "../../src/metrics/metric_accumulator.ts";
import { makeRecord } from "../metrics/record_fixture.ts";
import { SWEEP_METRIC_SPECS } from "../../src/metrics/sweep_line_metrics.ts";
import { fakeIo } from "../config/_fake_io.ts";

const FIXTURES = new URL("../fixtures/aiperf_0_13/", import.meta.url);
const CASES = ["chat_streaming", "completions"] as const;

/** The time-weighted metrics, which have no MetricDef of their own. */
const SWEEP = new Map(SWEEP_METRIC_SPECS.map((spec) => [spec.tag, spec] as const));

type Json = Record<string, unknown>;

function read(name: string, file: string): string {
  return Deno.readTextFileSync(new URL(`${name}/${file}`, FIXTURES));
}

function aiperfJson(name: string): Json {
  return JSON.parse(read(name, "profile_export_aiperf.json"));
}

/** AIPerf's own summary values as our RunSummary, for every metric both tools define. */
function summaryOf(doc: Json): RunSummary {
  const metrics: MetricResult[] = [];
  for (const [tag, block] of Object.entries(doc)) {
    const def = METRIC_REGISTRY.get(tag) ?? SWEEP.get(tag);
    if (def === undefined || block === null || typeof block !== "object" || !("unit" in block)) continue;
    const b = block as Record<string, number | string>;
    assert.equal(def.unit, b.unit, `${tag}: unit`);
    const base = {
      tag,
      header: def.header,
      unit: def.unit,
      kind: "kind" in def ? def.kind : "derived",
      flags: "flags" in def ? def.flags : {},
      displayOrder: def.displayOrder,
      consoleGroup: def.consoleGroup ?? ("flags" in def && def.flags.noConsole ? "none" : "llm"),
    } as const;
    if (!("kind" in def) || def.kind === "record") {
      // A statistic AIPerf does not write for a metric (the time-weighted ones have no p1, count, sum…) is NaN.
      const stats = Object.fromEntries(
        ["avg", "min", "max", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "std", "count", "sum"]
          .map((k) => [k, b[k] ?? NaN]),
      ) as unknown as Stats;
      metrics.push({ ...base, stats });
    } else metrics.push({ ...base, value: b.avg as number });
  }
  metrics.sort((a, b) => a.displayOrder - b.displayOrder);
  return { metrics, errors: [], successCount: 40, errorCount: 0 };
}

/** What a reader of the written file sees (undefined fields dropped). */
function jsonRoundTrip(value: unknown): Json {
  return JSON.parse(JSON.stringify(value));
}

/** The lines of one titled table in AIPerf's console text, from the top rule to the bottom rule. */
function tableBody(text: string, title: string): string[] {
  const lines = text.split("\n");
  const at = lines.findIndex((l) => l.trim().endsWith(title));
  assert.ok(at >= 0, `table ${title} not found`);
  const end = lines.findIndex((l, i) => i > at && l.startsWith("└"));
  return lines.slice(at + 1, end + 1).map((l) => l.trimEnd());
}

for (const name of CASES) {
  Deno.test(`AIPerf parity (${name}): every metric AIPerf exported exists here`, () => {
    const doc = aiperfJson(name);
    for (const [tag, block] of Object.entries(doc)) {
      if (block === null || typeof block !== "object" || !("unit" in block)) continue;
      assert.ok(METRIC_REGISTRY.get(tag) !== undefined || SWEEP.has(tag), `missing metric ${tag}`);
    }
  });

  Deno.test(`AIPerf parity (${name}): CSV header, sections, labels, sum column and numbers match AIPerf's rows`, () => {
    const ours = renderSummaryCsv(summaryOf(aiperfJson(name))).split("\r\n");
    const theirs = read(name, "profile_export_aiperf.csv").split("\r\n");
    assert.equal(ours[0], "Metric,avg,min,max,sum,p1,p5,p10,p25,p50,p75,p90,p95,p99,std");
    assert.equal(ours[0], theirs[0]);
    // Every row we write is AIPerf's row, in AIPerf's order (a script reading either file by label or by column
    // position gets the same numbers).
    let from = 0;
    for (const line of ours) {
      const at = theirs.indexOf(line, from);
      assert.ok(at >= 0, `row not in AIPerf's CSV (or out of order): ${JSON.stringify(line)}`);
      from = at + 1;
    }
    // …and every AIPerf row is ours (the GPU telemetry section aside).
    const missing = theirs.filter((l) => l !== "" && !ours.includes(l) && !l.startsWith("Endpoint,GPU_Index"));
    assert.deepEqual(missing, []);
  });

  Deno.test(`AIPerf parity (${name}): console tables match AIPerf's, rows, columns and wrapping`, () => {
    const text = renderMetricsTable(summaryOf(aiperfJson(name)), { maxWidth: 200 });
    const theirs = read(name, "profile_export_console.txt");
    for (const title of ["LLM Metrics: Effective", "LLM Metrics: Active", "LLM Metrics: Usage", "LLM Metrics"]) {
      assert.deepEqual(tableBody(text, `infermeter | ${title}`), tableBody(theirs, `NVIDIA AIPerf | ${title}`));
    }
  });

  Deno.test(`AIPerf parity (${name}): summary JSON has AIPerf's keys in AIPerf's order`, async () => {
    const doc = aiperfJson(name);
    const runInfo = doc.run_info as Json;
    const args = (runInfo.cli_command as string).split(" ").slice(2).map((a) => a.replace(/^'(.*)'$/, "$1"));
    const { config } = await parseProfileArgs(args, fakeIo());
    const ours = jsonRoundTrip(summaryJsonObject(summaryOf(doc), {
      infermeterVersion: "test",
      benchmarkId: "b",
      startTimeMs: 0,
      endTimeMs: 1,
      wasCancelled: false,
      inputConfig: toInputConfig(config) as never,
      runInfo: { randomSeed: 7, cliCommand: runInfo.cli_command as string },
    }));
    const expected = Object.keys(doc).filter((k) => k !== "telemetry_data");
    assert.deepEqual(Object.keys(ours).filter((k) => k !== "infermeter").slice(0, 4), expected.slice(0, 4));
    assert.deepEqual(new Set(Object.keys(ours).filter((k) => k !== "infermeter")), new Set(expected));
    // AIPerf's declared fields come first, in its order, then the document's own fields.
    const fixed = [
      "input_config",
      "run_info",
      "was_cancelled",
      "is_complete",
      "error_summary",
      "start_time",
      "end_time",
    ];
    const pos = (keys: string[], k: string) => keys.indexOf(k);
    const ourKeys = Object.keys(ours);
    for (let i = 1; i < fixed.length; i++) assert.ok(pos(ourKeys, fixed[i - 1]) < pos(ourKeys, fixed[i]));
    assert.equal(ours.schema_version, doc.schema_version);
    assert.equal(ours.aiperf_version, doc.aiperf_version);
    assert.deepEqual(Object.keys(ours.run_info as Json), Object.keys(runInfo));
    // input_config: the blocks AIPerf writes for the same command line, with the same keys where they apply.
    const theirConfig = doc.input_config as Record<string, Json>;
    const ourConfig = ours.input_config as Record<string, Json>;
    for (const block of ["models", "endpoint", "tokenizer"]) {
      assert.deepEqual(ourConfig[block], theirConfig[block], `input_config.${block}`);
    }
    const ourPhase = (ourConfig.phases as unknown as Json[])[0];
    assert.deepEqual(ourPhase, (theirConfig.phases as unknown as Json[])[0]);
    const ourDataset = (ourConfig.datasets as unknown as Json[])[0];
    const theirDataset = (theirConfig.datasets as unknown as Json[])[0];
    assert.deepEqual(Object.keys(ourDataset), Object.keys(theirDataset));
    assert.deepEqual(ourDataset.prompts, theirDataset.prompts);
  });

  Deno.test(`AIPerf parity (${name}): per-record JSONL metadata and metric keys are AIPerf's`, () => {
    const theirs = JSON.parse(read(name, "profile_export.jsonl").split("\n")[0]);
    const streaming = name === "chat_streaming";
    const metrics = METRIC_REGISTRY.selectMetrics({
      streaming,
      producesTokens: true,
      tokenizesInput: true,
      supportsReasoning: true,
      goodput: false,
    });
    const t = (ms: number) => ms;
    const record = makeRecord({
      creditIssuedAt: t(0),
      startAt: t(1),
      writeStartAt: t(1.2),
      connectStartAt: t(1),
      connectEndAt: t(1.1),
      sentAt: t(1.3),
      headersAt: t(2),
      firstBodyAt: t(30),
      lastBodyAt: streaming ? t(270) : t(30),
      endAt: streaming ? t(270) : t(30),
      responseTimes: streaming ? Array.from({ length: 50 }, (_, i) => 30 + i * 5) : [30],
      firstOutputAt: 30,
      outputTokens: 50,
      isl: 100,
      inputTokens: 100,
      requestedOutputTokens: 50,
      usage: { promptTokens: 99, completionTokens: 50, totalTokens: 149 },
      connectionReused: false,
      chunksSent: 1,
      chunksReceived: 50,
      bodyBytesSent: 600,
      bodyBytesReceived: 11000,
    });
    const values = new MetricAccumulator(metrics).add(record);
    const ours = JSON.parse(new RecordLineFormatter({ metrics, timeOriginMs: 1e12 }).format(record, values));
    assert.deepEqual(Object.keys(ours), Object.keys(theirs));
    assert.deepEqual(Object.keys(ours.metadata), Object.keys(theirs.metadata));
    assert.deepEqual(new Set(Object.keys(ours.metrics)), new Set(Object.keys(theirs.metrics)));
    for (const [tag, v] of Object.entries(theirs.metrics as Record<string, { unit: string }>)) {
      assert.equal(ours.metrics[tag].unit, v.unit, `${tag} unit`);
    }
  });

  Deno.test(`AIPerf parity (${name}): inputs.json has AIPerf's session ids and layout`, () => {
    const theirs = JSON.parse(read(name, "inputs.json"));
    const payload = theirs.data[0].payloads[0];
    const ours = JSON.parse(
      renderInputsJson([
        { sessionId: "session_000000", payloads: [payload] },
        { sessionId: "session_000001", payloads: [theirs.data[1].payloads[0]] },
      ]),
    );
    assert.deepEqual(ours, theirs);
  });
}

Deno.test("AIPerf parity: a raw record line has AIPerf's keys, metadata and SSE packet shape", () => {
  const theirs = JSON.parse(read("chat_streaming", "profile_export_raw.jsonl"));
  const record = makeRecord({
    startAt: 1,
    headersAt: 2,
    endAt: 30,
    status: 200,
    responseTimes: [10, 20],
    rawResponses: [{ t: 10, text: "{}" }, { t: 20, text: "[DONE]" }],
    sentBody: '{"model":"m"}',
  });
  const ours = JSON.parse(
    rawRecordLine(record, {
      timeOriginMs: 1e12,
      commonHeaders: [["User-Agent", "infermeter"], ["Accept", "text/event-stream"], [
        "Content-Type",
        "application/json",
      ], ["Authorization", "Bearer sk-secret"]],
    }),
  );
  assert.deepEqual(Object.keys(ours), Object.keys(theirs));
  assert.deepEqual(Object.keys(ours.metadata), Object.keys(theirs.metadata));
  assert.deepEqual(Object.keys(ours.responses[0]), Object.keys(theirs.responses[0]));
  assert.deepEqual(ours.responses[1].packets, [{ name: "data", value: "[DONE]" }]);
  assert.deepEqual(
    Object.keys(theirs.request_headers).filter((k) => !(k in ours.request_headers)),
    [],
  );
  assert.equal(ours.request_headers.Authorization, "<redacted>");
  assert.equal(ours.request_headers["X-Session-Affinity"], "<redacted>");
  assert.deepEqual(ours.payload, { model: "m" });
});
