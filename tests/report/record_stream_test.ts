import assert from "node:assert/strict";
import {
  foldRecords,
  iterateRecords,
  type RecordQuery,
  type RecordSource,
  type StreamedRecord,
} from "../../src/report/record_stream.ts";
import { ReportError } from "../../src/report/report_error.ts";
import { FIXTURE_RUNS } from "./run_fixture.ts";

const T0 = 1_700_000_000_000_000_000;
const QUERY: RecordQuery = {
  metrics: ["time_to_first_token", "request_latency", "output_sequence_length"],
  chunkGaps: true,
};

function record(startNs: number, endNs: number, metrics: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const m = Object.fromEntries(Object.entries(metrics).map(([k, v]) => [k, { value: v, unit: "ms" }]));
  return {
    metadata: { request_start_ns: startNs, request_end_ns: endNs, benchmark_phase: "profiling", ...extra },
    metrics: m,
  };
}

/** A stream of `text`'s UTF-8 bytes in pieces of `size` bytes (cutting characters in two). */
function byteStream(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

async function readAll(source: RecordSource, query: RecordQuery = QUERY): Promise<StreamedRecord[]> {
  return await foldRecords(source, query, [] as StreamedRecord[], (all, r) => {
    all.push(r);
    return all;
  });
}

/** The line as a whitespace-laden but equivalent JSON text: the fast path declines it, JSON.parse reads it. */
function spaced(line: string): string {
  return JSON.stringify(JSON.parse(line), null, 1).replace(/\n\s*/g, " ");
}

Deno.test("foldRecords: times, asked-for metric values and chunk gaps of profiling records; warm-up left out", async () => {
  const lines = [
    record(T0 + 5_000_000, T0 + 60_000_000, {
      time_to_first_token: 20,
      inter_chunk_latency: [10, 15],
      request_latency: 55,
      output_sequence_length: 3,
    }),
    record(T0, T0 + 40_000_000, {}, { benchmark_phase: "warmup" }),
    { ...record(T0 + 1_000_000, T0 + 2_000_000, { error_isl: 4 }), error: { code: 500, type: "x", message: "y" } },
    { ...record(T0 + 3_000_000, T0 + 3_000_000, { request_latency: null }), error: null },
  ].map((r) => JSON.stringify(r));
  const records = await readAll({ name: "x.jsonl", readable: byteStream(lines.join("\n") + "\n", 4096) });
  assert.deepEqual(records.map((r) => r.line), [1, 3, 4], "the warm-up record (line 2) is left out");
  assert.deepEqual(records[0], {
    line: 1,
    startNs: T0 + 5_000_000,
    endNs: T0 + 60_000_000,
    failed: false,
    values: [20, 55, 3],
    chunkGapsMs: [10, 15],
  });
  assert.equal(records[1].failed, true);
  assert.deepEqual(records[1].values, [undefined, undefined, undefined]);
  assert.equal(records[2].failed, false, `"error":null is a success`);
  assert.deepEqual(records[2].values, [undefined, undefined, undefined], "a null value is no value");
  assert.deepEqual(await readAll({ name: "x", readable: byteStream(lines.map(spaced).join("\n"), 4096) }), records);
});

Deno.test("foldRecords: the fast path and full parsing agree on every fixture run, ours and AIPerf's", async () => {
  const files = [
    `${FIXTURE_RUNS}faster/profile_export.jsonl`,
    `${FIXTURE_RUNS}sweep/c4/profile_export.jsonl`,
    new URL("../fixtures/aiperf_0_13/chat_streaming/profile_export.jsonl", import.meta.url).pathname,
    new URL("../fixtures/aiperf_0_13/completions/profile_export.jsonl", import.meta.url).pathname,
  ];
  const query: RecordQuery = {
    metrics: ["time_to_first_token", "inter_token_latency", "request_latency", "output_sequence_length"],
    chunkGaps: true,
  };
  for (const file of files) {
    const fast = await readAll(file, query);
    assert.ok(fast.length >= 2, file);
    const text = await Deno.readTextFile(file);
    const lines = text.split("\n").filter((l) => l !== "");
    const slow = await readAll({ name: file, readable: byteStream(lines.map(spaced).join("\n"), 1000) }, query);
    assert.deepEqual(fast, slow, file);
    // Spaces after commas only (JSON.stringify's separators in some writers): still the fast path, same records.
    const commas = lines.map((l) => JSON.stringify(JSON.parse(l)).replace(/,(?=["{\[\d-])/g, ", "));
    assert.deepEqual(await readAll({ name: file, readable: byteStream(commas.join("\n"), 999) }, query), fast, file);
    // Each line's metrics in a different order: the fast path follows them.
    const shuffled = lines.map((l, i) => {
      const r = JSON.parse(l);
      const entries = Object.entries(r.metrics as Record<string, unknown>);
      r.metrics = Object.fromEntries(i % 2 === 0 ? entries.reverse() : [...entries.slice(3), ...entries.slice(0, 3)]);
      return JSON.stringify(r);
    });
    assert.deepEqual(await readAll({ name: file, readable: byteStream(shuffled.join("\n"), 777) }, query), fast, file);
  }
});

Deno.test("foldRecords: bytes in 7-byte pieces, characters cut in two, give the records of the whole file", async () => {
  const lines = Array.from(
    { length: 50 },
    (_, i) =>
      JSON.stringify(
        record(T0 + i * 1e6, T0 + i * 1e6 + 5e6, {
          time_to_first_token: i,
          inter_chunk_latency: [i, i + 0.5],
          request_latency: 2 * i,
          output_sequence_length: 3,
        }, { conversation_id: `café☕${i}` }),
      ),
  );
  const text = lines.join("\r\n");
  const tmp = await Deno.makeTempFile({ suffix: ".jsonl" });
  try {
    await Deno.writeTextFile(tmp, text);
    const whole = await readAll(tmp);
    assert.equal(whole.length, 50);
    assert.deepEqual(whole[49].values, [49, 98, 3]);
    assert.deepEqual(await readAll({ name: "s", readable: byteStream(text, 7) }), whole);
  } finally {
    await Deno.remove(tmp);
  }
});

Deno.test("iterateRecords: an endless stream gives records as it goes and is closed on break", async () => {
  const line = JSON.stringify(record(T0, T0 + 1e6, { request_latency: 1 })) + "\n";
  let pulls = 0;
  let cancelled = false;
  const endless = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulls++;
      controller.enqueue(new TextEncoder().encode(line.repeat(10)));
    },
    cancel() {
      cancelled = true;
    },
  });
  let n = 0;
  for await (const r of iterateRecords({ name: "endless", readable: endless }, { metrics: ["request_latency"] })) {
    assert.deepEqual(r.values, [1]);
    if (++n === 100) break;
  }
  assert.equal(n, 100);
  assert.ok(pulls <= 12, `${pulls} pieces read for 100 records of 10 per piece`);
  assert.ok(cancelled, "the stream is released");
});

Deno.test("foldRecords: bad lines, an endless line and unreadable files are errors naming the file and line", async () => {
  const good = JSON.stringify(record(T0, T0 + 1, {}));
  const fails = async (text: string, pattern: RegExp, maxLineChars?: number) => {
    await assert.rejects(
      readAll({ name: "run/profile_export.jsonl", readable: byteStream(text, 5) }, { ...QUERY, maxLineChars }),
      (e: unknown) => e instanceof ReportError && pattern.test(e.message),
    );
  };
  await fails(`${good}\n{oops\n`, /^run\/profile_export\.jsonl:2: not valid JSON/);
  await fails(`${good}\n\n{"metrics":{}}`, /^run\/profile_export\.jsonl:3: not a per-request record/);
  await fails(`{"metadata":{"request_start_ns":"x"}}`, /:1: the record has no request_start_ns/);
  await fails(`${good}\n${good}\n${"x".repeat(5000)}`, /:3: the line is longer than 4096 characters/, 4096);

  const dir = await Deno.makeTempDir();
  try {
    await assert.rejects(readAll(`${dir}/none.jsonl`), Deno.errors.NotFound);
    await assert.rejects(
      readAll(dir),
      (e: unknown) => e instanceof ReportError && /not a regular file/.test(e.message),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
