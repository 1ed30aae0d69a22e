/**
 * What a synthesized agentic-code dataset holds against what its config asked for: AIPerf's `quality.json`
 * (observed distributions with percentiles, percentage errors against the config's targets, how sessions ended) and
 * its shareable `comparison.txt`.
 */
import type { AgenticCodeConfig } from "./agentic_code_config.ts";
import type { SynthesizedSession } from "./agentic_code_synthesizer.ts";

export interface PercentileStats {
  readonly count: number;
  readonly mean: number;
  readonly std: number;
  readonly median: number;
  readonly p05: number;
  readonly p25: number;
  readonly p75: number;
  readonly p95: number;
  readonly p99: number;
}

export interface QualityMetric {
  readonly target_mean: number | null;
  readonly target_median: number | null;
  readonly observed: PercentileStats;
  readonly pct_error_mean: number | null;
  readonly pct_error_median: number | null;
}

export interface QualityReport {
  readonly config_summary: Readonly<Record<string, number>>;
  readonly observed_vs_target: Readonly<Record<string, QualityMetric>>;
  readonly session_stats: PercentileStats;
  readonly session_end_stats: {
    readonly total_sessions: number;
    readonly forced_retires: number;
    readonly probabilistic_resets: number;
    readonly target_turn_completions: number;
    readonly restart_splits: number;
    readonly retire_fraction: number;
    readonly reset_fraction: number;
    readonly target_turn_fraction: number;
    readonly restart_split_fraction: number;
    readonly final_context_utilization: PercentileStats;
  };
}

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

/** The q-th percentile with linear interpolation between closest ranks (numpy's default). */
function percentile(sorted: readonly number[], q: number): number {
  const pos = (sorted.length - 1) * q / 100;
  const lo = Math.floor(pos), hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** Count, mean, population standard deviation and percentiles, rounded to 2 decimals (as AIPerf). */
export function percentileStats(values: readonly number[]): PercentileStats {
  if (values.length === 0) return { count: 0, mean: 0, std: 0, median: 0, p05: 0, p25: 0, p75: 0, p95: 0, p99: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const std = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length);
  return {
    count: values.length,
    mean: round(mean),
    std: round(std),
    median: round(percentile(sorted, 50)),
    p05: round(percentile(sorted, 5)),
    p25: round(percentile(sorted, 25)),
    p75: round(percentile(sorted, 75)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
  };
}

function metric(values: readonly number[], targetMean: number | null, targetMedian: number | null): QualityMetric {
  const observed = percentileStats(values);
  const err = (target: number | null, got: number) =>
    target === null ? null : round(target === 0 ? 0 : Math.abs(got - target) / target * 100);
  return {
    target_mean: targetMean,
    target_median: targetMedian,
    observed,
    pct_error_mean: err(targetMean, observed.mean),
    pct_error_median: err(targetMedian, observed.median),
  };
}

/** The config's main parameters, flat (AIPerf's `config_summary`). */
export function configSummary(c: AgenticCodeConfig): Record<string, number> {
  const l1 = c.cache.layer1Tokens, l15 = c.cache.layer15Tokens;
  const summary: Record<string, number> = {
    initial_context_mean: l1 + l15 + c.cache.layer2.mean,
    initial_context_median: l1 + l15 + c.cache.layer2.median,
    layer1_tokens: l1,
    layer1_5_tokens: l15,
    layer2_mean: c.cache.layer2.mean,
    layer2_median: c.cache.layer2.median,
    num_groups: c.cache.groups.numGroups,
    zipf_alpha: c.cache.groups.zipfAlpha,
    new_tokens_per_turn_mean: c.newTokensPerTurn.mean,
    new_tokens_per_turn_median: c.newTokensPerTurn.median,
    generation_length_mean: c.generationLength.mean,
    generation_length_median: c.generationLength.median,
    max_prompt_tokens: c.maxPromptTokens,
    block_size: c.blockSize,
    inter_turn_delay_agentic_fraction: c.interTurnDelay.agenticFraction,
    inter_turn_delay_agentic_mean_ms: c.interTurnDelay.agenticDelay.mean,
    inter_turn_delay_human_mean_ms: c.interTurnDelay.humanDelay.mean,
    turn_mode_enabled: c.turns === null ? 0 : 1,
  };
  if (c.reset !== null) {
    summary.reset_base_probability = c.reset.baseProbability;
    summary.reset_context_scaling = c.reset.contextScaling;
  }
  if (c.turns !== null) {
    summary.turns_mean = c.turns.mean;
    summary.turns_median = c.turns.median;
    summary.turns_min = c.turns.min;
    summary.turns_max = c.turns.max;
  }
  return summary;
}

export function qualityReport(sessions: readonly SynthesizedSession[], c: AgenticCodeConfig): QualityReport {
  const initial: number[] = [], fresh: number[] = [], outputs: number[] = [], delays: number[] = [];
  const turnsPer: number[] = [], finalUse: number[] = [];
  const ends = { forced_retire: 0, probabilistic_reset: 0, target_turn_count: 0, restart_split: 0 };
  for (const s of sessions) {
    turnsPer.push(s.turns.length);
    ends[s.endReason]++;
    finalUse.push(s.turns[s.turns.length - 1].inputLength / c.maxPromptTokens);
    for (const t of s.turns) {
      if (t.turnIndex === 0) initial.push(t.inputLength);
      else {
        fresh.push(t.newTokens);
        delays.push(t.delayMs);
      }
      outputs.push(t.outputLength);
    }
  }
  const l1l15 = c.cache.layer1Tokens + c.cache.layer15Tokens;
  const ovt: Record<string, QualityMetric> = {};
  if (initial.length > 0) {
    ovt.initial_context = metric(initial, l1l15 + c.cache.layer2.mean, l1l15 + c.cache.layer2.median);
  }
  if (outputs.length > 0) ovt.generation_length = metric(outputs, c.generationLength.mean, c.generationLength.median);
  if (fresh.length > 0) ovt.new_tokens_per_turn = metric(fresh, c.newTokensPerTurn.mean, c.newTokensPerTurn.median);
  if (delays.length > 0) ovt.inter_turn_delay_ms = metric(delays, null, null);
  if (turnsPer.length > 0) {
    ovt.turns_per_session = metric(turnsPer, c.turns?.mean ?? null, c.turns?.median ?? null);
  }
  const total = sessions.length;
  const share = (n: number) => round(n / Math.max(total, 1), 4);
  return {
    config_summary: configSummary(c),
    observed_vs_target: ovt,
    session_stats: percentileStats(turnsPer.length > 0 ? turnsPer : [0]),
    session_end_stats: {
      total_sessions: total,
      forced_retires: ends.forced_retire,
      probabilistic_resets: ends.probabilistic_reset,
      target_turn_completions: ends.target_turn_count,
      restart_splits: ends.restart_split,
      retire_fraction: share(ends.forced_retire),
      reset_fraction: share(ends.probabilistic_reset),
      target_turn_fraction: share(ends.target_turn_count),
      restart_split_fraction: share(ends.restart_split),
      final_context_utilization: percentileStats(finalUse.length > 0 ? finalUse : [0]),
    },
  };
}

/** Session durations (minutes) at 20,000 prefill and 60 decode tokens/s plus the think times, as AIPerf estimates. */
export function sessionDurationsMin(sessions: readonly SynthesizedSession[], prefillTps = 20_000, decodeTps = 60) {
  return sessions.map((s) =>
    s.turns.reduce((ms, t) => ms + t.delayMs + (t.newTokens / prefillTps + t.outputLength / decodeTps) * 1000, 0) /
    60_000
  );
}

const grouped = (n: number, digits: number) =>
  n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** AIPerf's `comparison.txt`: target against the dataset, then more of what the dataset holds. */
export function comparisonText(q: QualityReport, sessionDuration?: PercentileStats): string {
  const cfg = q.config_summary, ovt = q.observed_vs_target, ends = q.session_end_stats;
  const lines: string[] = [];
  const w = (s: string) => lines.push(s);
  const row = (
    label: string,
    target: number | null | undefined,
    observed: number | null | undefined,
    err?: number | null,
  ) => {
    const t = target === null || target === undefined ? "-".padStart(12) : grouped(target, 0).padStart(12);
    const o = observed === null || observed === undefined ? "-".padStart(12) : grouped(observed, 1).padStart(12);
    let e = "";
    if (err !== null && err !== undefined) {
      const sign = observed === null || observed === undefined || target === null || target === undefined ||
          Math.abs(err) === 0 || observed >= target
        ? "+"
        : "-";
      e = `  ${sign}${Math.abs(err).toFixed(1)}%`;
    }
    w(`  ${label.padEnd(38)}${t}${o}${e}`);
  };
  const block = (label: string, key: string) => {
    w(label);
    const m = ovt[key];
    row("mean", m?.target_mean, m?.observed.mean, m?.pct_error_mean);
    row("median", m?.target_median, m?.observed.median, m?.pct_error_median);
  };
  w("Agentic Code Session Profile: Target vs Synthesized Dataset");
  w("=".repeat(60));
  w("");
  w(
    `${grouped(ends.total_sessions, 0)} sessions | ${grouped(ovt.generation_length?.observed.count ?? 0, 0)} turns | ` +
      `block_size=${cfg.block_size}`,
  );
  w("");
  w(`${"".padEnd(40)} ${"Target".padStart(12)} ${"Dataset".padStart(12)} ${"Error".padStart(8)}`);
  w("-".repeat(76));
  block("Initial Context (tokens)", "initial_context");
  w("");
  block("New Tokens Per Turn", "new_tokens_per_turn");
  w("");
  const gen = ovt.generation_length;
  w("Generation Length (tokens)");
  row("mean", gen?.target_mean, gen?.observed.mean, gen?.pct_error_mean);
  row("median", gen?.target_median, gen?.observed.median, gen?.pct_error_median);
  row("p05", 30, gen?.observed.p05);
  row("p99", 3_750, gen?.observed.p99);
  w("");
  w("Prompt");
  w(
    `  ${"max_prompt_tokens".padEnd(38)}${grouped(cfg.max_prompt_tokens, 0).padStart(12)}` +
      `${grouped(cfg.max_prompt_tokens, 0).padStart(12)}`,
  );
  w("");
  w("Additional Dataset Statistics");
  w("-".repeat(76));
  w("Turns Per Session");
  for (const key of ["mean", "median", "p05", "p25", "p75", "p95", "p99"] as const) {
    w(`  ${key.padEnd(38)}${"-".padStart(12)}${q.session_stats[key].toFixed(1).padStart(12)}`);
  }
  w("");
  const delay = ovt.inter_turn_delay_ms?.observed;
  if (delay !== undefined) {
    w("Inter-Turn Delay (ms)");
    for (const key of ["mean", "median", "p05", "p95"] as const) {
      w(`  ${key.padEnd(38)}${"-".padStart(12)}${grouped(delay[key], 0).padStart(12)}`);
    }
    const af = cfg.inter_turn_delay_agentic_fraction;
    w(
      `  (${Math.round(af * 100)}% agentic ~${Math.round(cfg.inter_turn_delay_agentic_mean_ms / 1000)}s, ` +
        `${Math.round((1 - af) * 100)}% human ~${Math.round(cfg.inter_turn_delay_human_mean_ms / 1000)}s)`,
    );
    w("");
  }
  if (sessionDuration !== undefined) {
    w("Session Duration (estimated @ 20,000 prefill tok/s, 60 decode tok/s)");
    w(`  ${"mean".padEnd(38)}${"-".padStart(12)}${sessionDuration.mean.toFixed(1).padStart(12)} min`);
    w(`  ${"median".padEnd(38)}${"-".padStart(12)}${sessionDuration.median.toFixed(1).padStart(12)} min`);
    w("");
  }
  w("Session Endings");
  w(`  ${"forced retires (hit context limit)".padEnd(38)}${"-".padStart(12)}${
    String(ends.forced_retires).padStart(12)
  }`);
  w(`  ${"probabilistic resets".padEnd(38)}${"-".padStart(12)}${String(ends.probabilistic_resets).padStart(12)}`);
  w(`  ${"restart splits".padEnd(38)}${"-".padStart(12)}${String(ends.restart_splits).padStart(12)}`);
  return lines.join("\n") + "\n";
}
