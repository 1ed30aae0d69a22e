/**
 * Request bodies built once, before the run, from the dataset: the hot path only looks them up. The same
 * payloads are what `inputs.json` records, so the file shows exactly what was sent.
 */
import type { Dataset } from "../dataset/conversation.ts";
import type { BuildContext, EndpointAdapter } from "../endpoints/endpoint_adapter.ts";
import { sampleLength, type SeededRandom } from "../base/seeded_random.ts";

export interface PreparedEntry {
  readonly conversationId: string;
  readonly turnIndex: number;
  /** The JSON body as sent. */
  readonly payload: Readonly<Record<string, unknown>>;
  /** UTF-8 bytes of `payload`, written as-is for every request that uses this entry. */
  readonly body: Uint8Array;
  readonly inputTokens?: number;
  readonly requestedOutputTokens?: number;
}

export interface PrepareOptions {
  readonly adapter: EndpointAdapter;
  readonly modelNames: readonly string[];
  readonly modelSelectionStrategy: "round_robin" | "random";
  readonly streaming: boolean;
  readonly useLegacyMaxTokens: boolean;
  readonly useServerTokenCount: boolean;
  readonly extraInputs: Readonly<Record<string, unknown>>;
  /** Applies to turns without their own `maxTokens` (file datasets); undefined = server decides. */
  readonly outputTokensMean?: number;
  readonly outputTokensStddev: number;
  readonly rng: SeededRandom;
}

/**
 * One entry per turn of every conversation (a single-turn dataset gives one entry per conversation).
 * Models are assigned per entry like AIPerf: round robin (entry n → model n mod N) or seeded random.
 */
export function prepareEntries(dataset: Dataset, opts: PrepareOptions): PreparedEntry[] {
  const encoder = new TextEncoder();
  const modelRng = opts.rng.derive("model-selection");
  const oslRng = opts.rng.derive("file-osl");
  const entries: PreparedEntry[] = [];
  for (const conversation of dataset.conversations) {
    conversation.turns.forEach((turn, turnIndex) => {
      const n = entries.length;
      const model = opts.modelSelectionStrategy === "random"
        ? opts.modelNames[modelRng.int(opts.modelNames.length)]
        : opts.modelNames[n % opts.modelNames.length];
      let maxTokens = turn.maxTokens;
      if (maxTokens === undefined && opts.outputTokensMean !== undefined) {
        maxTokens = sampleLength(oslRng, opts.outputTokensMean, opts.outputTokensStddev);
      }
      const ctx: BuildContext = {
        model,
        streaming: opts.streaming,
        maxTokens,
        useLegacyMaxTokens: opts.useLegacyMaxTokens,
        useServerTokenCount: opts.useServerTokenCount,
        extraInputs: opts.extraInputs,
        systemMessage: conversation.systemMessage,
      };
      const payload = opts.adapter.buildRequest(turn, ctx, []);
      entries.push({
        conversationId: conversation.id,
        turnIndex,
        payload,
        body: encoder.encode(JSON.stringify(payload)),
        inputTokens: turn.inputTokens,
        requestedOutputTokens: readRequestedOutput(payload) ?? maxTokens,
      });
    });
  }
  return entries;
}

/** What the body finally asks for (extra inputs may override the synthetic OSL). */
function readRequestedOutput(payload: Readonly<Record<string, unknown>>): number | undefined {
  for (const key of ["max_completion_tokens", "max_tokens", "max_output_tokens"]) {
    const v = payload[key];
    if (typeof v === "number") return v;
  }
  return undefined;
}
