/**
 * The bench scenarios. `events` scenarios stream long responses (one token per SSE event) and are judged on
 * parsed SSE events/s; `requests` scenarios ask for 1-token responses and are judged on requests/s.
 */
import type { Scenario } from "./bench_types.ts";

const CORE_SCENARIOS: readonly Scenario[] = [
  {
    id: "sse-c16",
    title: "SSE events/s: streaming, 512-token responses, concurrency 16",
    kind: "events",
    streaming: true,
    isl: 32,
    osl: 512,
    concurrency: 16,
  },
  {
    id: "sse-c64",
    title: "SSE events/s: streaming, 512-token responses, concurrency 64",
    kind: "events",
    streaming: true,
    isl: 32,
    osl: 512,
    concurrency: 64,
  },
  {
    id: "rps-stream-c16",
    title: "requests/s: streaming, 1-token responses, concurrency 16",
    kind: "requests",
    streaming: true,
    isl: 32,
    osl: 1,
    concurrency: 16,
  },
  {
    id: "rps-stream-c64",
    title: "requests/s: streaming, 1-token responses, concurrency 64",
    kind: "requests",
    streaming: true,
    isl: 32,
    osl: 1,
    concurrency: 64,
  },
  {
    id: "rps-nonstream-c64",
    title: "requests/s: non-streaming, 1-token responses, concurrency 64",
    kind: "requests",
    streaming: false,
    isl: 32,
    osl: 1,
    concurrency: 64,
  },
];

/** Every other endpoint type AIPerf 0.13 has, side by side: 1-token answers (or none), concurrency 64. */
const ENDPOINT_SCENARIOS: readonly Scenario[] = [
  ["completions", "completions: non-streaming, 1-token responses", 1],
  ["embeddings", "embeddings: one 32-token input per request", 0],
  ["nim_rankings", "rankings (NIM): a query and its passages per request", 0],
  ["responses", "responses (OpenAI Responses API): non-streaming, 1-token responses", 1],
  ["messages", "messages (Anthropic Messages API): non-streaming, 1-token responses", 1],
].map(([type, title, osl]) => ({
  id: `ep-${String(type).replace("nim_", "")}`,
  title: `requests/s: ${title}, concurrency 64`,
  kind: "requests" as const,
  streaming: false,
  isl: 32,
  osl: Number(osl),
  concurrency: 64,
  endpointType: String(type),
}));

export const SCENARIOS: readonly Scenario[] = [...CORE_SCENARIOS, ...ENDPOINT_SCENARIOS];

/** Chat is `rps-nonstream-c64`; the other endpoint types are the `ep-` scenarios. */
export const ENDPOINT_SCENARIO_IDS: readonly string[] = ["rps-nonstream-c64", ...ENDPOINT_SCENARIOS.map((s) => s.id)];

export const DEFAULT_SCENARIOS: readonly string[] = [
  "sse-c16",
  "sse-c64",
  "rps-stream-c64",
  "rps-nonstream-c64",
  ...ENDPOINT_SCENARIOS.map((s) => s.id),
];
export const QUICK_SCENARIOS: readonly string[] = ["sse-c64", "rps-stream-c64"];

/** Resolves `--scenarios` ids (or `all`, or `none` for the other measurements alone); throws a RangeError naming the valid ids for an unknown one. */
export function pickScenarios(ids: readonly string[]): Scenario[] {
  if (ids.length === 1 && ids[0] === "all") return [...SCENARIOS];
  if (ids.length === 1 && ids[0] === "none") return [];
  return ids.map((id) => {
    const s = SCENARIOS.find((x) => x.id === id);
    if (!s) {
      throw new RangeError(
        `unknown scenario '${id}'; use one of: ${SCENARIOS.map((x) => x.id).join(", ")}, all, none.`,
      );
    }
    return s;
  });
}

/** The chat request body a scenario sends (the shape `infermeter profile` and AIPerf send; wrk posts it). */
export function requestBody(s: Scenario, model: string): string {
  // " the" is one o200k_base token: the prompt is `isl` tokens.
  const prompt = " the".repeat(s.isl).trim();
  const body: Record<string, unknown> = {
    model,
    messages: [{ role: "user", content: prompt }],
    stream: s.streaming,
    max_completion_tokens: s.osl,
    ignore_eos: true,
  };
  if (s.streaming) body.stream_options = { include_usage: true };
  return JSON.stringify(body);
}
