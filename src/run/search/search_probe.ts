/** One probe of a search as the artifacts, the answer and the report see it. */
import type { RunSummary } from "../../metrics/run_summary.ts";
import type { ProbeJudgement } from "./probe_verdict.ts";

export interface SearchProbe {
  /** 0-based, in the order the probes were run. */
  readonly index: number;
  /** Its directory name: `search_iter_0003` (boundary styles), `concurrency_12` (grids), `shape_128_128_c4`. */
  readonly label: string;
  /** What the probe set: `{concurrency: 12}`, plus `isl` and `osl` for a Pareto sweep. */
  readonly values: Readonly<Record<string, number>>;
  /** Each run of it (the first, then repeats): its directory, how it ended, its summary when it has one. */
  readonly runs: readonly {
    readonly label: string;
    readonly dir: string;
    readonly end: string;
    readonly summary?: RunSummary;
  }[];
  readonly judgement: ProbeJudgement;
  /** Repeats run because the verdict was within noise. */
  readonly repeats: number;
  /** Its verdict contradicted the bracket (a pass above a failure, or the reverse). */
  readonly nonMonotonic: boolean;
}

/** The swept value of a probe. */
export function concurrencyOf(p: SearchProbe): number {
  return p.values.concurrency;
}

/** The summaries of a probe's runs that produced one. */
export function summariesOf(p: SearchProbe): RunSummary[] {
  return p.runs.flatMap((r) => (r.summary === undefined ? [] : [r.summary]));
}
