import assert from "node:assert/strict";
import { JsonlWriter, RecordLineFormatter } from "../../src/export/jsonl_writer.ts";
import { MetricAccumulator } from "../../src/metrics/metric_accumulator.ts";
import { METRIC_REGISTRY } from "../../src/metrics/metric_registry.ts";
import { makeRecord } from "../metrics/record_fixture.ts";
import { RecordRow } from "../../src/metrics/record_row.ts";

const metrics = METRIC_REGISTRY.selectMetrics({
  streaming: true,
  producesTokens: true,
  tokenizesInput: true,
  supportsReasoning: false,
  goodput: false,
});
// epoch ms at run-clock 0; run-clock times below carry µs fractions
const ORIGIN = 1_759_813_207_000;

const ok = makeRecord({
  sessionNum: 45,
  xRequestId: "7609a2e7",
  xCorrelationId: "32ee4f33",
  conversationId: "77aa5b0e",
  creditIssuedAt: 532.5,
  startAt: 532.900363,
  headersAt: 650.730976,
  responseTimes: [788.5, 790.25, 800],
  endAt: 838.764604,
  outputTokens: 3,
  isl: 550,
  workerId: "worker_1",
});
const failed = makeRecord({
  sessionNum: 80,
  xRequestId: "c35e4b1b",
  xCorrelationId: "77ecf78d",
  conversationId: "9526b41d",
  creditIssuedAt: 100,
  startAt: 119.147826,
  endAt: 119.772754,
  cancelled: true,
  error: { code: 499, type: "RequestCancellationError", message: "Request was cancelled after 0.000 seconds" },
  isl: 550,
});

const OK_LINE = '{"metadata":{"session_num":45,"x_request_id":"7609a2e7","x_correlation_id":"32ee4f33",' +
  '"conversation_id":"77aa5b0e","turn_index":0,"credit_issued_ns":1759813207532500000,' +
  '"request_start_ns":1759813207532900363,"request_ack_ns":1759813207650730976,' +
  '"request_end_ns":1759813207838764604,"worker_id":"worker_1","record_processor_id":"record_processor_0",' +
  '"benchmark_phase":"profiling","phase_index":0,"profiling_index":0,"phase_name":"profiling",' +
  '"phase_kind":"profiling","was_cancelled":false,"context_overflow_skip":false,"agent_depth":0,' +
  '"root_correlation_id":"32ee4f33"},"metrics":{"request_latency":{"value":267.099637,"unit":"ms"},' +
  '"time_to_first_token":{"value":255.599637,"unit":"ms"},"time_to_second_token":{"value":1.75,"unit":"ms"},' +
  '"output_token_count":{"value":3,"unit":"tokens"},"output_sequence_length":{"value":3,"unit":"tokens"},' +
  '"input_sequence_length":{"value":550,"unit":"tokens"},"inter_chunk_latency":{"value":[1.75,9.75],"unit":"ms"},' +
  '"inter_token_latency":{"value":5.75,"unit":"ms"},"decode_duration":{"value":11.5,"unit":"ms"},' +
  '"e2e_output_token_throughput":{"value":11.23,"unit":"tokens/sec/user"},' +
  '"prefill_throughput_per_user":{"value":2151.8,"unit":"tokens/sec/user"},' +
  '"output_token_throughput_per_user":{"value":173.91304347826087,"unit":"tokens/sec/user"}}}';

const FAILED_LINE = '{"metadata":{"session_num":80,"x_request_id":"c35e4b1b","x_correlation_id":"77ecf78d",' +
  '"conversation_id":"9526b41d","turn_index":0,"credit_issued_ns":1759813207100000000,' +
  '"request_start_ns":1759813207119147826,"request_end_ns":1759813207119772754,"worker_id":"worker_0",' +
  '"record_processor_id":"record_processor_0","benchmark_phase":"profiling","phase_index":0,' +
  '"profiling_index":0,"phase_name":"profiling","phase_kind":"profiling","was_cancelled":true,' +
  '"cancellation_time_ns":1759813207119772754,"context_overflow_skip":false,"agent_depth":0,' +
  '"root_correlation_id":"77ecf78d"},"metrics":{"error_isl":{"value":550,"unit":"tokens"}},' +
  '"error":{"code":499,"type":"RequestCancellationError","message":"Request was cancelled after 0.000 seconds"}}';

function lines(): string[] {
  const acc = new MetricAccumulator(metrics);
  const f = new RecordLineFormatter({ metrics, timeOriginMs: ORIGIN });
  return [f.format(ok, acc.add(ok)), f.format(failed, acc.add(failed))];
}

Deno.test("per-record line has AIPerf's metadata with exact epoch ns, metrics with units, and no error key", () => {
  // latency 800 − 532.900363 = 267.099637; TTFT 788.5 − 532.900363 = 255.599637; ITL (267.099637 − 255.599637)/2 = 5.75
  const [line] = lines();
  const parsed = JSON.parse(line);
  assert.ok(Math.abs(parsed.metrics.request_latency.value - 267.099637) < 1e-9);
  // compare the exact text, with the floating values as JavaScript prints them
  const expected = JSON.parse(OK_LINE);
  expected.metrics.request_latency.value = 800 - 532.900363;
  expected.metrics.time_to_first_token.value = 788.5 - 532.900363;
  expected.metrics.inter_token_latency.value = (800 - 788.5) / 2;
  expected.metrics.output_token_throughput_per_user.value = 1000 / ((800 - 788.5) / 2);
  // decode = latency − TTFT = 800 − 788.5 = 11.5; e2e = 3 / 0.267099637 s; prefill = 550 / 0.255599637 s
  assert.ok(Math.abs(parsed.metrics.e2e_output_token_throughput.value - 11.2317636) < 1e-6);
  assert.ok(Math.abs(parsed.metrics.prefill_throughput_per_user.value - 2151.80274) < 1e-4);
  expected.metrics.e2e_output_token_throughput.value = 3 / ((800 - 532.900363) / 1000);
  expected.metrics.prefill_throughput_per_user.value = 550 / ((788.5 - 532.900363) / 1000);
  assert.deepEqual(parsed, expected);
  assert.deepEqual(Object.keys(parsed), ["metadata", "metrics"]);
  assert.deepEqual(Object.keys(parsed.metadata), Object.keys(expected.metadata));
  assert.deepEqual(Object.keys(parsed.metrics), Object.keys(expected.metrics));
  // epoch ns are integer digits, never floats
  assert.match(line, /"request_start_ns":1759813207532900363,/);
  assert.match(line, /"request_ack_ns":1759813207650730976,/);
  assert.match(line, /"output_token_count":\{"value":3,"unit":"tokens"\}/);
});

Deno.test("a child session's record line says its depth, its parent and its tree's root, in AIPerf's key order", () => {
  const child = { ...ok, lineage: { agentDepth: 1, parentCorrelationId: "p-1", rootCorrelationId: "r-0" } };
  const f = new RecordLineFormatter({ metrics, timeOriginMs: ORIGIN });
  const metadata = JSON.parse(f.format(child, new MetricAccumulator(metrics).add(child))).metadata;
  const keys = Object.keys(metadata);
  assert.deepEqual(keys.slice(keys.indexOf("context_overflow_skip")), [
    "context_overflow_skip",
    "agent_depth",
    "parent_correlation_id",
    "root_correlation_id",
  ]);
  assert.equal(metadata.agent_depth, 1);
  assert.equal(metadata.parent_correlation_id, "p-1");
  assert.equal(metadata.root_correlation_id, "r-0");
});

Deno.test("failed record line carries only error_isl and the error, with cancellation time", () => {
  assert.equal(lines()[1], FAILED_LINE);
});

Deno.test("JSONL writer buffers lines and writes them in batches", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/profile_export.jsonl`;
  try {
    const writer = await JsonlWriter.open(path, {
      metrics,
      timeOriginMs: ORIGIN,
      flushEveryRecords: 2,
      flushIntervalMs: 60_000,
    });
    const acc = new MetricAccumulator(metrics);
    writer.write(ok, acc.add(ok));
    // below the batch size and before the interval: nothing written yet
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(await Deno.readTextFile(path), "");
    writer.write(failed, acc.add(failed));
    await writer.flush();
    assert.equal(writer.recordsWritten, 2);
    writer.write(failed, acc.add(failed));
    await writer.close();
    await writer.close();
    const text = await Deno.readTextFile(path);
    assert.equal(text, [lines()[0], FAILED_LINE, FAILED_LINE, ""].join("\n"));
    assert.throws(() => writer.write(ok, {}), TypeError);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("JSONL writer flushes on its interval without more records", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/r.jsonl`;
  try {
    const writer = await JsonlWriter.open(path, { metrics, timeOriginMs: ORIGIN, flushIntervalMs: 5 });
    writer.write(failed, new MetricAccumulator(metrics).add(failed));
    for (let i = 0; i < 100 && (await Deno.readTextFile(path)) === ""; i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal(await Deno.readTextFile(path), FAILED_LINE + "\n");
    await writer.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("JSONL writer: rehearsing a record (warmup) writes and counts nothing", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/r.jsonl`;
  try {
    const writer = await JsonlWriter.open(path, { metrics, timeOriginMs: ORIGIN, flushEveryRecords: 1 });
    const acc = new MetricAccumulator(metrics);
    // Longer than the first scratch buffer, twice: the scratch grows and is reused.
    for (let i = 0; i < 2; i++) writer.rehearse(ok, acc.add(ok));
    await writer.flush();
    assert.equal(writer.recordsWritten, 0);
    assert.equal(await Deno.readTextFile(path), "");
    writer.write(failed, acc.add(failed));
    await writer.close();
    assert.equal(await Deno.readTextFile(path), FAILED_LINE + "\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("per-record line carries the server's own timing in metadata, snake case, only the fields reported", () => {
  const f = new RecordLineFormatter({ metrics, timeOriginMs: ORIGIN });
  const withTiming = {
    ...ok,
    serverTiming: { source: "llama.cpp" as const, prefillMs: 12.5, decodeMs: 30, decodeTokens: 4 },
  };
  const parsed = JSON.parse(f.format(withTiming, new MetricAccumulator(metrics).add(withTiming)));
  assert.deepEqual(parsed.metadata.server_timing, {
    source: "llama.cpp",
    prefill_ms: 12.5,
    decode_ms: 30,
    decode_tokens: 4,
  });
  assert.ok(!lines()[0].includes("server_timing"), "absent when the server reported none");
});

/** `JSON.rawJSON` (V8 has it; the TypeScript library does not declare it yet). */
const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

/** `text` as `JSON.stringify` writes the value it parses to (integers beyond 2^53 kept as their digits). */
function canonical(text: string): string {
  const parsed = JSON.parse(
    text,
    (_key, value, ctx?: { source?: string }) =>
      typeof value === "number" && Number.isInteger(value) && !Number.isSafeInteger(value) && ctx?.source
        ? rawJSON(ctx.source)
        : value,
  );
  return JSON.stringify(parsed);
}

Deno.test("per-record lines are exactly JSON.stringify's text, escapes and non-ASCII included, as UTF-8 bytes", async () => {
  const odd = makeRecord({
    sessionNum: 3,
    xRequestId: 'quote " backslash \\ tab \t nul \u0000 del \u007f',
    xCorrelationId: "é ü 中文 🚀 lone \ud800 end",
    conversationId: "conv",
    workerId: "worker_\n1",
    creditIssuedAt: 1.25,
    startAt: 1.5,
    scheduledAt: 1.125,
    responseTimes: [2, 2.5, 3.0000001],
    endAt: 3.25,
    outputTokens: 3,
    isl: 7,
    serverTiming: { source: "llama.cpp", prefillMs: 0.1 + 0.2, decodeTokens: 3 },
    error: { code: 500, type: 'Server "boom"', message: "naïve \u2028 line" },
    cancelled: false,
  });
  const acc = new MetricAccumulator(metrics);
  const f = new RecordLineFormatter({ metrics, timeOriginMs: ORIGIN + 0.5, withWarmup: true });
  const records = [ok, failed, odd, { ...ok, phase: "warmup" as const }];
  for (const r of records) {
    const values = acc.measure(r);
    const text = f.format(r, values);
    assert.equal(text, canonical(text));
    assert.deepEqual(f.formatInto(r, values).bytes(), new TextEncoder().encode(text));
  }
  // a list metric with a value that JSON cannot carry prints null, as JSON.stringify does
  const listed = f.format(ok, { inter_chunk_latency: [1.5, NaN, 2], request_latency: Infinity });
  assert.match(listed, /"inter_chunk_latency":\{"value":\[1\.5,null,2\],"unit":"ms"\}/);
  assert.match(listed, /"request_latency":\{"value":null,"unit":"ms"\}/);
  // the writer puts the same bytes in the file
  const path = await Deno.makeTempFile();
  try {
    const w = await JsonlWriter.open(path, { metrics, timeOriginMs: ORIGIN + 0.5, withWarmup: true });
    for (const r of records) w.write(r, acc.measure(r));
    await w.close();
    const expected = records.map((r) => f.format(r, acc.measure(r)) + "\n").join("");
    assert.equal(await Deno.readTextFile(path), expected);
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("a formatter writing records of changing metric sets and orders gives each the line a fresh formatter gives", () => {
  const long = new RecordLineFormatter({ metrics, timeOriginMs: ORIGIN });
  const tags = metrics.filter((d) => d.kind === "record").map((d) => d.tag);
  let seed = 34;
  const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
  const shapes: string[][] = [
    tags,
    tags.slice(0, 5),
    tags.slice(0, 4),
    [...tags].reverse(),
    [...tags.slice(0, 3), "not_a_metric", ...tags.slice(3, 6)],
    ["not_a_metric"],
    [],
  ];
  for (let i = 0; i < 3000; i++) {
    // Mostly one shape in a row, as a run's records are, with changes between them.
    const shape = rand() < 0.7 ? shapes[i % 2] : shapes[Math.floor(rand() * shapes.length)];
    const values: Record<string, number | number[]> = {};
    for (const tag of shape) {
      values[tag] = rand() < 0.1 ? [rand() * 10, NaN] : rand() < 0.5 ? Math.floor(rand() * 99) : rand();
    }
    const record = i % 3 === 0 ? failed : ok;
    assert.equal(
      long.format(record, values),
      new RecordLineFormatter({ metrics, timeOriginMs: ORIGIN }).format(record, values),
    );
  }
});

Deno.test("a formatter writing a metric's value again, then another, gives each record the line a fresh formatter gives", () => {
  const long = new RecordLineFormatter({ metrics, timeOriginMs: ORIGIN });
  const tags = metrics.filter((d) => d.kind === "record").map((d) => d.tag).slice(0, 6);
  // Values repeat from record to record (as a request's size in KB does), then change, including to the values whose
  // digits are special: -0 (written "0"), NaN and the infinities (written null), and numbers equal to earlier ones.
  const sequence = [
    0.263671875,
    0.263671875,
    0.5,
    0.5,
    -0,
    0,
    -0,
    NaN,
    NaN,
    Infinity,
    Infinity,
    -Infinity,
    1e21,
    1e21,
    0.1 + 0.2,
    0.3,
    3,
    3,
  ];
  let seed = 7;
  const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
  for (let i = 0; i < 600; i++) {
    const values: Record<string, number | number[]> = {};
    for (const [j, tag] of tags.entries()) {
      values[tag] = j === 5 && i % 7 === 0
        ? [sequence[i % sequence.length]]
        : sequence[(i + j * (rand() < 0.8 ? 0 : 1)) % sequence.length];
    }
    assert.equal(
      long.format(ok, values),
      new RecordLineFormatter({ metrics, timeOriginMs: ORIGIN }).format(ok, values),
    );
  }
});

Deno.test("a record's row gives the line its values keyed by tag give, over a long run of changing records", () => {
  // The row path, as a run takes it: the lines checked above first (by hand: see `lines()`), then again.
  const f = new RecordLineFormatter({ metrics, timeOriginMs: ORIGIN });
  const acc = new MetricAccumulator(metrics);
  for (let i = 0; i < 2; i++) {
    assert.deepEqual([f.format(ok, acc.measure(ok)), f.format(failed, acc.measure(failed))], lines());
  }
  assert.equal(lines()[1], FAILED_LINE);
  // Then records whose values change, repeat and go missing: streamed or not, failed, new connections or reused.
  let seed = 21;
  const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
  const long = new RecordLineFormatter({ metrics, timeOriginMs: ORIGIN });
  let record = ok;
  for (let i = 0; i < 2000; i++) {
    const kind = rand();
    if (kind > 0.3) {
      // Most records differ from the one before in only a few values, as a run's do.
      const start = 1000 + i;
      const chunks = kind < 0.5 ? 1 : 2 + Math.floor(rand() * 3);
      const gap = rand() < 0.5 ? 2 : rand() * 3;
      const times = Array.from({ length: chunks }, (_, c) => start + 10 + c * gap);
      record = makeRecord({
        startAt: start,
        creditIssuedAt: start - 1,
        responseTimes: times,
        endAt: times[chunks - 1] + (rand() < 0.5 ? 0 : rand()),
        outputTokens: rand() < 0.9 ? chunks : undefined,
        isl: rand() < 0.8 ? 32 : 33,
        connectionReused: rand() < 0.8,
        bytesSent: rand() < 0.7 ? 300 : 301 + Math.floor(rand() * 5),
        error: kind > 0.95 ? { code: 500, type: "HTTPError", message: "boom" } : undefined,
        cancelled: kind > 0.93 && kind <= 0.95,
      });
    }
    const row = acc.measure(record);
    assert.equal(long.format(record, row), f.format(record, row.toObject()), `record ${i}`);
  }
});

Deno.test("a row whose metrics come and go gives each record the line its values keyed by tag give", () => {
  const tags = metrics.filter((d) => d.kind === "record").map((d) => d.tag);
  const row = RecordRow.of(Object.fromEntries(tags.map((tag) => [tag, 0])));
  const long = new RecordLineFormatter({ metrics, timeOriginMs: ORIGIN });
  let seed = 99;
  const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
  // Few shapes at first (plans reused), then many (plans made and let go), values repeating from record to record.
  for (let i = 0; i < 3000; i++) {
    const shapes = i < 1500 ? 3 : 40;
    let shape = Math.floor(rand() * shapes);
    for (let slot = 0; slot < tags.length; slot++, shape = (shape * 7 + 3) % 41) {
      const keep = shape % 3 !== 0 || slot === 0;
      const value = rand() < 0.6
        ? slot
        : rand() < 0.1
        ? [rand(), slot]
        : rand() < 0.5
        ? Math.floor(rand() * 99)
        : rand();
      row.set(slot, keep ? value : undefined);
    }
    assert.equal(
      long.format(ok, row),
      new RecordLineFormatter({ metrics, timeOriginMs: ORIGIN }).format(ok, row.toObject()),
    );
  }
});
