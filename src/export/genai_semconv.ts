/**
 * How per-request metrics are named on an OpenTelemetry wire, as AIPerf 0.13 names them: the four that the GenAI
 * semantic conventions define (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-metrics/) take the spec's
 * name, unit (seconds, `{token}`), bucket boundaries and required attributes; every other metric keeps its tag as
 * `aiperf.<tag>` in AIPerf's base unit (ns for times, bytes for data), so dashboards built on AIPerf's stream read ours.
 */
import type { MetricUnit } from "../metrics/metric_def.ts";

/** Seconds: `gen_ai.client.operation.duration`. */
const DURATION_BOUNDS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
/** Seconds: time to first chunk and time per output chunk. */
const CHUNK_BOUNDS = [
  0.001,
  0.005,
  0.01,
  0.02,
  0.04,
  0.06,
  0.08,
  0.1,
  0.12,
  0.14,
  0.16,
  0.18,
  0.2,
  0.25,
  0.3,
  0.35,
  0.4,
  0.45,
  0.5,
  0.75,
  1.0,
  2.0,
  5.0,
];
const TOKEN_BOUNDS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216];

/** The OpenTelemetry SDKs' default explicit bucket boundaries (AIPerf's `aiperf.*` histograms use them). */
export const DEFAULT_HISTOGRAM_BOUNDS: readonly number[] = [
  0,
  5,
  10,
  25,
  50,
  75,
  100,
  250,
  500,
  750,
  1000,
  2500,
  5000,
  7500,
  10000,
];

export interface SemconvMetric {
  readonly name: string;
  readonly unit: string;
  readonly bounds: readonly number[];
  /** From our display unit (ms) to the spec's. */
  readonly scale: number;
  /** `gen_ai.token.type`, for token usage. */
  readonly tokenType?: "input" | "output";
}

/** Our record metrics that have a GenAI spec equivalent (AIPerf maps exactly these four). */
export const SEMCONV_METRICS: Readonly<Record<string, SemconvMetric>> = {
  request_latency: { name: "gen_ai.client.operation.duration", unit: "s", bounds: DURATION_BOUNDS, scale: 1e-3 },
  time_to_first_token: {
    name: "gen_ai.client.operation.time_to_first_chunk",
    unit: "s",
    bounds: CHUNK_BOUNDS,
    scale: 1e-3,
  },
  inter_token_latency: {
    name: "gen_ai.client.operation.time_per_output_chunk",
    unit: "s",
    bounds: CHUNK_BOUNDS,
    scale: 1e-3,
  },
  output_token_count: {
    name: "gen_ai.client.token.usage",
    unit: "{token}",
    bounds: TOKEN_BOUNDS,
    scale: 1,
    tokenType: "output",
  },
};

/** AIPerf's base unit of a metric shown in `unit`, and the factor from ours: ms → ns, KB → B, else as is. */
export function aiperfBaseUnit(unit: MetricUnit | string): { readonly unit: string; readonly scale: number } {
  if (unit === "ms") return { unit: "ns", scale: 1e6 };
  if (unit === "KB") return { unit: "B", scale: 1024 };
  return { unit, scale: 1 };
}

/** `gen_ai.operation.name` from the endpoint type; AIPerf falls back to `chat`. */
export function genAiOperationName(endpointType: string): string {
  switch (endpointType.toLowerCase()) {
    case "completions":
      return "text_completion";
    case "embeddings":
      return "embeddings";
    default:
      return "chat";
  }
}

const PROVIDER_HOSTS: ReadonlyArray<readonly [RegExp, string]> = [
  [/api\.openai\.com$/, "openai"],
  [/api\.anthropic\.com$/, "anthropic"],
  [/api\.deepseek\.com$/, "deepseek"],
  [/api\.mistral\.ai$/, "mistral_ai"],
  [/api\.cohere\.(ai|com)$/, "cohere"],
  [/api\.x\.ai$/, "x_ai"],
  [/api\.groq\.com$/, "groq"],
  [/api\.perplexity\.ai$/, "perplexity"],
  [/generativelanguage\.googleapis\.com$/, "gcp.gemini"],
  [/-aiplatform\.googleapis\.com$/, "gcp.vertex_ai"],
  [/^bedrock-runtime\..*\.amazonaws\.com$/, "aws.bedrock"],
  [/\.openai\.azure\.com$/, "azure.ai.openai"],
  [/\.services\.ai\.azure\.com$/, "azure.ai.inference"],
  [/\.ibm\.com$/, "ibm.watsonx.ai"],
];

/** `gen_ai.provider.name`: the `--gen-ai-provider` override, else known by the server's host, else `_OTHER`. */
export function genAiProviderName(override: string | undefined, urls: readonly string[]): string {
  if (override !== undefined && override !== "") return override;
  for (const url of urls) {
    const host = hostOf(url);
    if (host === undefined) continue;
    for (const [pattern, provider] of PROVIDER_HOSTS) if (pattern.test(host)) return provider;
  }
  return "_OTHER";
}

function hostOf(url: string): string | undefined {
  const text = url.trim().toLowerCase();
  if (text === "") return undefined;
  try {
    return new URL(text.includes("://") ? text : `http://${text}`).hostname;
  } catch {
    return undefined;
  }
}

/** `error.type` of a failed request, AIPerf's classes: `http_5xx`, `http_4xx`, `timeout`, `cancelled`, … */
export function genAiErrorType(
  error: { type: string; code?: number; message: string } | undefined,
): string | undefined {
  if (error === undefined) return undefined;
  const code = error.code;
  if (code !== undefined && code >= 500 && code <= 599) return "http_5xx";
  // 499 is a cancellation (AIPerf's code for it), which AIPerf also counts as a 4xx.
  if (code !== undefined && code >= 400 && code <= 499) return "http_4xx";
  if (error.type === "TimeoutError") return "timeout";
  if (error.type === "RequestCancellationError") return "cancelled";
  const message = error.message.toLowerCase();
  if (message.includes("json") && (message.includes("parse") || message.includes("decode"))) return "parse_error";
  return "_OTHER";
}
