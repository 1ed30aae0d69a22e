/**
 * Speculative decoding, when the server reports it per request (vLLM `--per-request-spec-decode-metrics`): the
 * acceptance histogram pooled over the profiling phase's successful requests (AIPerf's
 * `pooled_spec_decode_acceptance_histogram`, which the JSON export writes) and the console's `Spec Decode` section.
 * Writes no file of its own; shows nothing when no request carried statistics.
 */
import type { ProcessedRecord } from "../../records/request_record.ts";
import { buildResultView, viewMetricsOf } from "../../metrics/result_view.ts";
import { renderSpecDecodeSection } from "../../export/spec_decode_console.ts";
import type { Output, OutputSink, PublishContext } from "./output.ts";

/** Sums each successful profiling request's `{j: steps}` histogram. */
export class AcceptancePool implements OutputSink {
  readonly name = "spec_decode";
  readonly #steps = new Map<number, number>();

  measured(record: ProcessedRecord): void {
    const spec = record.specDecode;
    if (spec === undefined || record.phase !== "profiling" || record.error !== undefined || record.cancelled) return;
    for (const [j, n] of Object.entries(spec.acceptanceHistogram)) {
      this.#steps.set(Number(j), (this.#steps.get(Number(j)) ?? 0) + n);
    }
  }

  /** `{"0": n0, "1": n1, …}` in bucket order, zero buckets left out; undefined when nothing was pooled. */
  histogram(): Record<string, number> | undefined {
    const out: Record<string, number> = {};
    for (const j of [...this.#steps.keys()].sort((a, b) => a - b)) {
      const n = this.#steps.get(j)!;
      if (n > 0) out[String(j)] = n;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
}

/** The pooled histogram a finished run left for the other outputs (the JSON export, the console). */
export function pooledSpecDecodeHistogram(ctx: Pick<PublishContext, "shared">): Record<string, number> | undefined {
  return ctx.shared.get(SPEC_DECODE_OUTPUT.name) as Record<string, number> | undefined;
}

export const SPEC_DECODE_OUTPUT: Output = {
  name: "spec_decode",
  description:
    "speculative decoding: the pooled acceptance histogram (JSON export) and the Spec Decode console section",
  enabled: () => true,
  files: () => [],
  compactConsole: true,
  sink: () => new AcceptancePool(),
  finish(ctx) {
    const histogram = (ctx.sink as AcceptancePool | undefined)?.histogram();
    if (histogram !== undefined) ctx.shared.set(SPEC_DECODE_OUTPUT.name, histogram);
    return Promise.resolve();
  },
  console(ctx, width) {
    if (ctx.results === undefined) return undefined;
    const rows = buildResultView(viewMetricsOf(ctx.results.summary), { requests: { ok: 0, errors: 0 } }).rows;
    const text = renderSpecDecodeSection(rows, pooledSpecDecodeHistogram(ctx), { maxWidth: width });
    return text === "" ? undefined : text;
  },
};
