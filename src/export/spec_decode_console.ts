/**
 * The console's `Spec Decode` section as AIPerf 0.13 prints it: the `<metrics title>: Spec Decode` table of the
 * speculative-decoding metrics (acceptance length, token-weighted acceptance length, draft acceptance rates,
 * accepted per verified, steps), then one line with the share of verification steps by accepted drafts, pooled over
 * the run: `Accepted drafts per step (% of steps):  0: 10%   1: 30%   …`, buckets `0 … min(max seen, 7)` and one
 * `>=8` bucket folding the rest so the line stays short whatever the draft length.
 */
import type { ViewRow } from "../metrics/result_view.ts";
import { type ConsoleTableOptions, renderGroupTable } from "./console_table.ts";
import { formatFixed } from "./number_format.ts";

/** Buckets shown one by one; from this one on they fold into `>=CAP`. */
export const HISTOGRAM_CONSOLE_CAP = 8;

/** The pooled histogram's line, or undefined when it has no steps. */
export function acceptanceHistogramLine(
  histogram: Readonly<Record<string, number>>,
  cap = HISTOGRAM_CONSOLE_CAP,
): string | undefined {
  const buckets = Object.entries(histogram).map(([j, n]) => [Number(j), n] as const);
  const total = buckets.reduce((a, [, n]) => a + n, 0);
  if (total <= 0) return undefined;
  const max = Math.max(...buckets.map(([j]) => j));
  const overflow = max >= cap;
  const top = overflow ? cap - 1 : max;
  const pct = (n: number) => `${formatFixed(n / total * 100, 0)}%`;
  const parts: string[] = [];
  for (let j = 0; j <= top; j++) parts.push(`${j}: ${pct(histogram[String(j)] ?? 0)}`);
  if (overflow) parts.push(`>=${cap}: ${pct(buckets.filter(([j]) => j >= cap).reduce((a, [, n]) => a + n, 0))}`);
  return "Accepted drafts per step (% of steps):  " + parts.join("   ");
}

/** The section, or "" when no request reported speculative-decoding statistics. */
export function renderSpecDecodeSection(
  rows: readonly ViewRow[],
  histogram: Readonly<Record<string, number>> | undefined,
  options: ConsoleTableOptions = {},
): string {
  const table = renderGroupTable(rows.filter((r) => r.inConsole && r.group === "spec_decode"), {
    ...options,
    metricsTitle: `${options.metricsTitle ?? "LLM Metrics"}: Spec Decode`,
  });
  if (table === "") return "";
  const line = histogram === undefined ? undefined : acceptanceHistogramLine(histogram);
  return line === undefined ? table : `${table}\n  ${line}\n`;
}
