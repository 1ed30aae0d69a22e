/**
 * What a Mooncake trace holds, as AIPerf's `analyze-trace` reports it (its `PrefixAnalyzer`): input and output length
 * distributions, how much of each prompt is context shared with other requests, and the prefix-cache hit rate an
 * infinite cache would have.
 *
 * Per line (`input_length`, `output_length` and `hash_ids`; a missing length counts as 0, as in AIPerf):
 * - a block (position, hash id) is *repeated* when it occurs at that position in more than one line;
 * - context length = the line's `input_length` when every block is repeated, else `repeated blocks × block size`;
 *   unique prompt length = `input_length − context length` (a line without hash ids: 0 and its `input_length`);
 * - hit rate (lines with hash ids, in file order) = the index of the first block not seen in any earlier line ÷ its
 *   number of blocks (Dynamo's rule: a cache hit is a prefix);
 * - unique prefixes = distinct leading runs `hash_ids[0..i]`; prefix groups = first blocks shared by 2+ lines;
 *   prefix reuse ratio = occurrences of prefixes seen more than once ÷ all prefix occurrences.
 * Statistics: mean, population standard deviation, min, 25th/50th/75th percentiles (linear interpolation, as numpy)
 * and max.
 */

/** One metric's distribution (AIPerf's `MetricStats`). */
export interface MetricStats {
  readonly mean: number;
  readonly std_dev: number;
  readonly min: number;
  readonly p25: number;
  readonly median: number;
  readonly p75: number;
  readonly max: number;
}

/** AIPerf's `AnalysisStats`, with its field names and order (written as the `--output-file` JSON). */
export interface TraceAnalysis {
  readonly total_requests: number;
  readonly unique_prefixes: number;
  readonly num_prefix_groups: number;
  readonly cache_hit_rate: number;
  readonly min_isl: number;
  readonly max_isl: number;
  readonly avg_isl: number;
  readonly min_osl: number;
  readonly max_osl: number;
  readonly avg_osl: number;
  readonly prefix_reuse_ratio: number;
  readonly isl_stats: MetricStats | null;
  readonly osl_stats: MetricStats | null;
  readonly context_length_stats: MetricStats | null;
  readonly unique_prompt_length_stats: MetricStats | null;
  readonly hit_rate_stats: MetricStats | null;
}

/** One trace line's fields the analysis reads. */
export interface TraceAnalysisLine {
  readonly inputLength: number;
  readonly outputLength: number;
  readonly hashIds: readonly number[];
}

/** numpy's default percentile: linear interpolation between the closest ranks of the sorted values. */
function percentile(sorted: readonly number[], p: number): number {
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
}

export function metricStats(values: readonly number[]): MetricStats | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, v) => a + (v - mean) ** 2, 0) / values.length;
  return {
    mean,
    std_dev: Math.sqrt(variance),
    min: sorted[0],
    p25: percentile(sorted, 25),
    median: percentile(sorted, 50),
    p75: percentile(sorted, 75),
    max: sorted[sorted.length - 1],
  };
}

/** The smallest or largest value (0 for none), without spreading a long list into arguments. */
function extreme(values: readonly number[], pick: (a: number, b: number) => number): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => pick(a, b));
}

export function analyzeTrace(lines: readonly TraceAnalysisLine[], blockSize: number): TraceAnalysis {
  const positionCounts = new Map<string, number>();
  const prefixCounts = new Map<string, number>();
  for (const { hashIds } of lines) {
    let prefix = "";
    hashIds.forEach((id, pos) => {
      prefix = pos === 0 ? String(id) : `${prefix},${id}`;
      prefixCounts.set(prefix, (prefixCounts.get(prefix) ?? 0) + 1);
      const key = `${pos}:${id}`;
      positionCounts.set(key, (positionCounts.get(key) ?? 0) + 1);
    });
  }
  const repeated = (pos: number, id: number) => (positionCounts.get(`${pos}:${id}`) ?? 0) > 1;
  const context: number[] = [];
  const unique: number[] = [];
  for (const { inputLength, hashIds } of lines) {
    if (hashIds.length === 0) {
      context.push(0);
      unique.push(inputLength);
      continue;
    }
    const shared = hashIds.filter((id, pos) => repeated(pos, id)).length;
    const contextLength = shared === hashIds.length ? inputLength : shared * blockSize;
    context.push(contextLength);
    unique.push(inputLength - contextLength);
  }
  const seen = new Set<number>();
  const hitRates: number[] = [];
  for (const { hashIds } of lines) {
    if (hashIds.length === 0) continue;
    const firstUnseen = hashIds.findIndex((id) => !seen.has(id));
    hitRates.push((firstUnseen === -1 ? hashIds.length : firstUnseen) / hashIds.length);
    for (const id of hashIds) seen.add(id);
  }
  const firstBlocks = new Map<number, number>();
  for (const { hashIds } of lines) {
    if (hashIds.length > 0) firstBlocks.set(hashIds[0], (firstBlocks.get(hashIds[0]) ?? 0) + 1);
  }
  let reused = 0;
  let total = 0;
  for (const count of prefixCounts.values()) {
    total += count;
    if (count > 1) reused += count;
  }
  const isls = lines.map((l) => l.inputLength);
  const osls = lines.map((l) => l.outputLength);
  const avg = (v: readonly number[]) => v.length === 0 ? 0 : v.reduce((a, b) => a + b, 0) / v.length;
  return {
    total_requests: lines.length,
    unique_prefixes: prefixCounts.size,
    num_prefix_groups: [...firstBlocks.values()].filter((n) => n > 1).length,
    cache_hit_rate: avg(hitRates),
    min_isl: extreme(isls, Math.min),
    max_isl: extreme(isls, Math.max),
    avg_isl: avg(isls),
    min_osl: extreme(osls, Math.min),
    max_osl: extreme(osls, Math.max),
    avg_osl: avg(osls),
    prefix_reuse_ratio: total > 0 ? reused / total : 0,
    isl_stats: metricStats(isls),
    osl_stats: metricStats(osls),
    context_length_stats: metricStats(context),
    unique_prompt_length_stats: metricStats(unique),
    hit_rate_stats: metricStats(hitRates),
  };
}
