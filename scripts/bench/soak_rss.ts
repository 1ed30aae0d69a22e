/**
 * The soak's resident-memory curve summed up: the peak while measuring and overall, and the slope of a least-squares
 * line over the measuring part past its first fifth (start-up and the heap's first growth left out), in MiB per
 * minute: memory flat in run length reads near 0.
 */
export interface RssSample {
  /** Seconds since the CLI was spawned. */
  readonly t: number;
  readonly mib: number;
}

export interface RssSummary {
  /** Highest sample while the benchmark ran (up to its duration). */
  readonly peakMeasuringMiB: number;
  /** Highest sample overall (the results' writing included). */
  readonly peakMiB: number;
  /** MiB per minute past the first fifth of the run; NaN (null in JSON) with fewer than 3 samples there. */
  readonly slopeMiBPerMin: number;
  /** The sample nearest each tenth of the run. */
  readonly tenths: readonly RssSample[];
}

export function summarizeRss(samples: readonly RssSample[], runSec: number): RssSummary | undefined {
  const during = samples.filter((s) => s.t <= runSec);
  if (during.length < 3) return undefined;
  const fit = during.filter((s) => s.t >= runSec / 5);
  let slope = NaN;
  if (fit.length >= 3) {
    const n = fit.length;
    const mt = fit.reduce((a, s) => a + s.t, 0) / n;
    const mm = fit.reduce((a, s) => a + s.mib, 0) / n;
    const sxy = fit.reduce((a, s) => a + (s.t - mt) * (s.mib - mm), 0);
    const sxx = fit.reduce((a, s) => a + (s.t - mt) ** 2, 0);
    slope = sxx > 0 ? 60 * sxy / sxx : NaN;
  }
  const peak = (xs: readonly RssSample[]) => xs.reduce((a, s) => Math.max(a, s.mib), 0);
  const tenths = Array.from({ length: 10 }, (_, k) => {
    const t = (runSec * (k + 1)) / 10;
    return during.reduce((best, x) => Math.abs(x.t - t) < Math.abs(best.t - t) ? x : best, during[0]);
  });
  return { peakMeasuringMiB: peak(during), peakMiB: peak(samples), slopeMiBPerMin: slope, tenths };
}

export function renderRss(s: RssSummary | undefined): string {
  if (s === undefined) return "RSS: not sampled (needs Linux /proc)";
  return `RSS MiB: ${s.tenths.map((x) => `${x.t.toFixed(0)} s ${x.mib.toFixed(0)}`).join(", ")}; peak while ` +
    `measuring ${s.peakMeasuringMiB.toFixed(0)}, overall ${s.peakMiB.toFixed(0)} (after the run: results written); ` +
    `slope past the first fifth ${s.slopeMiBPerMin.toFixed(2)} MiB/min`;
}

/** What the bench reads back from one soak's audit.json. */
export interface SoakMemory {
  readonly minutes: number;
  /** Records the CLI exported. */
  readonly requests: number;
  readonly rss: RssSummary;
  /** The CLI's own figure: bytes its metric columns keep per finished request. */
  readonly retainedBytesPerRequest?: number;
  /** Whether the audit (server journal, exports and summary agree) balanced. */
  readonly balanced: boolean;
}

/** Reads a soak's audit.json (soak.ts `--out DIR`); undefined when RSS was not sampled. */
export function soakMemoryOf(audit: {
  minutes: number;
  balanced: boolean;
  client: { records: number };
  rss_summary: RssSummary | null;
  retained_bytes_per_request: number | null;
}): SoakMemory | undefined {
  if (audit.rss_summary === null) return undefined;
  return {
    minutes: audit.minutes,
    requests: audit.client.records,
    rss: { ...audit.rss_summary, slopeMiBPerMin: audit.rss_summary.slopeMiBPerMin ?? NaN },
    retainedBytesPerRequest: audit.retained_bytes_per_request ?? undefined,
    balanced: audit.balanced,
  };
}
