/**
 * One turn of `infermeter chat`: a streamed chat completion sent through the same executor and transport as a
 * profile run, its text handed on as it arrives, and its figures computed by the profile's own metric definitions
 * (TTFT, request latency, output sequence length, inter-token latency, ISL from the server's usage), so the numbers
 * mean what they mean in a benchmark. AIPerf's `aiperf chat` prints the same block after each reply.
 */
import { CHAT_ADAPTER } from "../endpoints/openai/chat.ts";
import { encodeRequestBody } from "../endpoints/endpoint_adapter.ts";
import { executeRequest, type RequestSender } from "../engine/request_executor.ts";
import type { ProcessedRecord, RequestRecord } from "../records/request_record.ts";
import { METRIC_REGISTRY } from "../metrics/metric_registry.ts";
import type { RecordMetricDef } from "../metrics/metric_def.ts";
import type { Tokenizer } from "../tokenizer/tokenizer.ts";

/** One chat message as sent. */
export interface ChatTurnMessage {
  readonly role: string;
  readonly content: string;
}

export interface ChatTurnOptions {
  readonly sender: RequestSender;
  /** The chat completions path on the target (base path included). */
  readonly path: string;
  /** The run's constant headers (content type, credentials, user agent). */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly model: string;
  /** System prompt, history and the new user message, in order. */
  readonly messages: readonly ChatTurnMessage[];
  readonly tokenizer: Tokenizer;
  /** 0-based turn number of the session. */
  readonly turn: number;
  /** A generous bound: a slow first token or a long answer is never cut short by a chat. */
  readonly timeoutMs: number;
  /** Each piece of text as it arrives (reasoning first, then the answer). */
  readonly onText?: (text: string, reasoning: boolean) => void;
  readonly signal?: AbortSignal;
}

export interface ChatTurnResult {
  readonly record: RequestRecord;
  /** Record metrics by tag (ms, tokens), the ones that apply to this answer. */
  readonly metrics: Readonly<Record<string, number>>;
  readonly outputTokens: number;
  readonly reasoningTokens: number;
  /** Prompt tokens the server read from its prefix cache, when its usage says (`prompt_tokens_details`). */
  readonly cachedPromptTokens?: number;
}

const CHAT_METRICS = METRIC_REGISTRY.selectMetrics({
  streaming: true,
  producesTokens: true,
  tokenizesInput: true,
  supportsReasoning: true,
  goodput: false,
}).filter((d): d is RecordMetricDef => d.kind === "record");

/** The cached prompt tokens a usage chunk reports, if any. */
function cachedTokens(data: string): number | undefined {
  if (!data.includes("cached_tokens")) return undefined;
  try {
    const usage = JSON.parse(data)?.usage;
    const n = usage?.prompt_tokens_details?.cached_tokens ?? usage?.input_tokens_details?.cached_tokens;
    return typeof n === "number" ? n : undefined;
  } catch {
    return undefined;
  }
}

export async function sendChatTurn(o: ChatTurnOptions): Promise<ChatTurnResult> {
  let cached: number | undefined;
  // The executor's collector parses each event after it is stamped; the text is shown from a copy of the event.
  const sender: RequestSender = {
    send(req, opts, route) {
      const onEvent = opts?.onSseEvent;
      return o.sender.send(req, {
        ...opts,
        onSseEvent: onEvent === undefined ? undefined : (data, t, event) => {
          const result = onEvent(data, t, event);
          cached = cachedTokens(data) ?? cached;
          try {
            const delta = CHAT_ADAPTER.parseEvent(data);
            if (delta?.reasoning) o.onText?.(delta.reasoning, true);
            if (delta?.content) o.onText?.(delta.content, false);
          } catch {
            // A malformed event is the record's parse error; nothing to show.
          }
          return result;
        },
      }, route);
    },
  };
  const turn = { texts: [], messages: o.messages.map((m) => ({ role: m.role, content: m.content })) };
  const body = CHAT_ADAPTER.buildRequest(turn, {
    model: o.model,
    streaming: true,
    useLegacyMaxTokens: false,
    useServerTokenCount: false,
    extraInputs: {},
  }, []);
  const record = await executeRequest(
    {
      sender,
      adapter: CHAT_ADAPTER,
      path: o.path,
      headers: o.headers,
      timeoutMs: o.timeoutMs,
      clockOffsetMs: 0,
      workerId: "chat",
      phase: "profiling",
    },
    { conversationId: "chat", turnIndex: o.turn, body: encodeRequestBody(CHAT_ADAPTER, body) },
    { requestIndex: o.turn, sessionIndex: 0, turnIndex: o.turn, creditIssuedAt: performance.now() },
    "chat",
    o.signal ?? new AbortController().signal,
  );
  const outputTokens = record.content === "" ? 0 : o.tokenizer.count(record.content);
  const reasoningTokens = record.reasoning === "" ? 0 : o.tokenizer.count(record.reasoning);
  const processed: ProcessedRecord = { ...record, outputTokens, reasoningTokens, isl: record.usage?.promptTokens };
  const metrics: Record<string, number> = {};
  if (record.error === undefined) {
    for (const def of CHAT_METRICS) {
      const v = def.compute(processed, metrics);
      if (typeof v === "number") metrics[def.tag] = v;
    }
  }
  return {
    record,
    metrics,
    outputTokens,
    reasoningTokens,
    ...(cached === undefined ? {} : { cachedPromptTokens: cached }),
  };
}

/**
 * The block printed after a reply, as AIPerf's chat prints it: TTFT; end-to-end tokens per second with the token
 * count and time; the inter-token latency and its decode rate (with at least two tokens); the prompt-cache hit
 * rate when the server reports cached tokens.
 */
export function formatChatStats(r: ChatTurnResult): string {
  const ttft = r.metrics.time_to_first_token;
  const latency = r.metrics.request_latency;
  const osl = r.metrics.output_sequence_length;
  if (ttft === undefined || latency === undefined || !osl) return "(no tokens received)";
  const seconds = latency / 1000;
  const tps = seconds > 0 ? osl / seconds : 0;
  const tokens = `${osl} tokens` + (r.reasoningTokens > 0 ? `, ${r.reasoningTokens} reasoning` : "");
  const lines = [
    `TTFT: ${ttft.toFixed(2)} ms`,
    `TPS:  ${tps.toFixed(2)} tokens/s (${tokens} in ${seconds.toFixed(2)}s)`,
  ];
  const itl = r.metrics.inter_token_latency;
  if (itl) lines.push(`ITL:  ${itl.toFixed(2)} ms/token (decode ${(1000 / itl).toFixed(2)} tokens/s)`);
  const isl = r.metrics.input_sequence_length;
  if (isl && r.cachedPromptTokens !== undefined) {
    lines.push(
      `Cache: ${r.cachedPromptTokens}/${isl} prompt tokens cached (${(100 * r.cachedPromptTokens / isl).toFixed(1)}%)`,
    );
  }
  return lines.join("\n");
}
