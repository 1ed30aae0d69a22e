/**
 * A hand-made three-request run for the peers' tests: two successful streamed requests and one failure, with every
 * value chosen so each tool's figures can be worked out by hand (the expected values sit in the tests).
 *
 * A: start 0 ms, chunks at 100, 110, 130, 160 ms (TTFT 100, gaps 10 20 30), end 170 ms, OSL 5, usage 6, ISL 40.
 * B: start 50 ms, chunks at 250, 290 ms (TTFT 200, gap 40), end 300 ms, OSL 2, no usage, ISL 60.
 * C: start 100 ms, failed at 400 ms.
 * A warm-up line comes first and must be left out.
 */
// Small enough that every nanosecond stamp is an exact double, so the expected values are exact.
const BASE_NS = 1_000_000_000_000;

function line(
  startMs: number,
  endMs: number,
  metrics: Record<string, number | number[]>,
  extra: { error?: boolean; phase?: string } = {},
): string {
  const m: Record<string, { value: number | number[]; unit: string }> = {};
  for (const [k, v] of Object.entries(metrics)) m[k] = { value: v, unit: "ms" };
  const record: Record<string, unknown> = {
    metadata: {
      session_num: 0,
      request_start_ns: BASE_NS + startMs * 1e6,
      request_end_ns: BASE_NS + endMs * 1e6,
      benchmark_phase: extra.phase ?? "profiling",
      was_cancelled: false,
    },
    metrics: m,
  };
  if (extra.error) record.error = { code: 500, type: "HTTPError", message: "boom" };
  return JSON.stringify(record);
}

export const PEER_FIXTURE_JSONL = [
  line(-1000, -900, { time_to_first_token: 5, request_latency: 50, output_sequence_length: 3 }, { phase: "warmup" }),
  line(0, 170, {
    time_to_first_token: 100,
    inter_chunk_latency: [10, 20, 30],
    request_latency: 160,
    output_sequence_length: 5,
    usage_completion_tokens: 6,
    input_sequence_length: 40,
  }),
  line(50, 300, {
    time_to_first_token: 200,
    inter_chunk_latency: [40],
    request_latency: 240,
    output_sequence_length: 2,
    input_sequence_length: 60,
  }),
  line(100, 400, { input_sequence_length: 10 }, { error: true }),
].join("\n") + "\n";
