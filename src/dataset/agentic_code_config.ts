/**
 * The distributions of AIPerf's agentic-code session synthesis (`infermeter synthesize agentic-code`): a JSON object
 * with AIPerf's field names and defaults, checked as AIPerf checks them (a lognormal's mean at least its median, a
 * `turns` mode exclusive of `reset`, …). Unknown fields are accepted and ignored, as AIPerf's permissive config is.
 * A config may also be a previous run's `manifest.json` (its `generation_params`), or a bundled name (`default`).
 */

/** A lognormal given by its real-space mean and median (μ = ln median, σ = √(2 ln(mean / median))). */
export interface Lognormal {
  readonly mu: number;
  readonly sigma: number;
  readonly mean: number;
  readonly median: number;
  /** Draws below are drawn again (then clamped). */
  readonly min?: number;
  /** Draws above are drawn again (then clamped). */
  readonly max?: number;
}

export interface NewTokensConfig extends Lognormal {
  /** Scales the distribution (μ + ln bias; mean and median × bias). */
  readonly bias: number;
}

export interface MixtureDelay {
  /** Share of the fast (agentic) component. */
  readonly agenticFraction: number;
  readonly agenticDelay: Lognormal;
  readonly humanDelay: Lognormal;
  readonly max?: number;
}

export interface TurnCount {
  readonly mean: number;
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly allowTruncation: boolean;
  readonly maxSessionAttempts?: number;
}

export interface AgenticCodeConfig {
  readonly newTokensPerTurn: NewTokensConfig;
  readonly generationLength: Lognormal;
  readonly interTurnDelay: MixtureDelay;
  /** P(reset) = base × (1 + (scaling − 1) × input / max_prompt_tokens); null: no resets. */
  readonly reset: { readonly baseProbability: number; readonly contextScaling: number } | null;
  readonly turns: TurnCount | null;
  readonly maxPromptTokens: number;
  readonly blockSize: number;
  readonly cache: {
    /** Tools + system prompt, shared by every session. */
    readonly layer1Tokens: number;
    /** Shared by the sessions of one group (a repository's instructions). */
    readonly layer15Tokens: number;
    /** Each session's own initial files. */
    readonly layer2: Lognormal;
    readonly groups: { readonly numGroups: number; readonly zipfAlpha: number };
  };
  readonly restartInitialProbability: number;
  readonly restartTurnRange: readonly [number, number];
}

/** A config problem, in the words of the field (`cache.layer2.mean`). */
export class AgenticCodeConfigError extends Error {
  override readonly name = "AgenticCodeConfigError";
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);

function num(o: Json, key: string, where: string, fallback: number | undefined, rule: {
  readonly gt?: number;
  readonly ge?: number;
  readonly le?: number;
  readonly int?: boolean;
} = {}): number {
  const v = o[key] ?? fallback;
  const at = `${where}${key}`;
  if (typeof v !== "number" || !Number.isFinite(v) || typeof v === "boolean") {
    throw new AgenticCodeConfigError(`${at} must be a number (got ${JSON.stringify(v)})`);
  }
  if (rule.int && !Number.isInteger(v)) throw new AgenticCodeConfigError(`${at} must be an integer (got ${v})`);
  if (rule.gt !== undefined && !(v > rule.gt)) throw new AgenticCodeConfigError(`${at} must be > ${rule.gt}`);
  if (rule.ge !== undefined && !(v >= rule.ge)) throw new AgenticCodeConfigError(`${at} must be ≥ ${rule.ge}`);
  if (rule.le !== undefined && !(v <= rule.le)) throw new AgenticCodeConfigError(`${at} must be ≤ ${rule.le}`);
  return v;
}

function optional(o: Json, key: string, where: string, rule: { gt?: number; ge?: number } = {}): number | undefined {
  return o[key] === undefined || o[key] === null ? undefined : num(o, key, where, undefined, rule);
}

function obj(o: Json, key: string, where: string): Json | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw new AgenticCodeConfigError(`${where}${key} must be an object`);
  return v;
}

/** A lognormal from `{mean, median[, mu, sigma][, min][, max]}` (μ and σ derived when absent). */
export function lognormal(o: Json, where: string, defaults?: { mean: number; median: number }): Lognormal {
  const mean = num(o, "mean", where, defaults?.mean, { gt: 0 });
  const median = num(o, "median", where, defaults?.median, { gt: 0 });
  if (mean < median) throw new AgenticCodeConfigError(`${where}mean (${mean}) must be ≥ median (${median})`);
  const min = optional(o, "min", where, { gt: 0 });
  const max = optional(o, "max", where, { gt: 0 });
  if (min !== undefined && max !== undefined && min > max) {
    throw new AgenticCodeConfigError(`${where}min (${min}) must be ≤ max (${max})`);
  }
  const mu = optional(o, "mu", where);
  const sigma = optional(o, "sigma", where, { ge: 0 });
  if ((mu === undefined) !== (sigma === undefined)) {
    throw new AgenticCodeConfigError(`${where}mu and sigma must be given together`);
  }
  return {
    mu: mu ?? Math.log(median),
    sigma: sigma ?? (mean / median > 1 ? Math.sqrt(2 * Math.log(mean / median)) : 0),
    mean,
    median,
    ...(min === undefined ? {} : { min }),
    ...(max === undefined ? {} : { max }),
  };
}

/** Parses a config object (AIPerf's field names); missing fields take AIPerf's model defaults. */
export function parseAgenticCodeConfig(raw: unknown): AgenticCodeConfig {
  if (!isObject(raw)) throw new AgenticCodeConfigError("the config must be a JSON object");
  let data: Json = raw;
  if (data.$id !== undefined && data.properties !== undefined) {
    throw new AgenticCodeConfigError("this is a JSON Schema reference, not a config");
  }
  if ("generation_params" in data) {
    if (!isObject(data.generation_params)) {
      throw new AgenticCodeConfigError("generation_params must be a JSON object");
    }
    data = data.generation_params;
  }
  data = { ...data };
  delete data.system_prompt_tokens; // removed from AIPerf's config: ignored
  if ("restart_fraction" in data) {
    const fraction = data.restart_fraction;
    if (data.restart_initial_probability !== undefined && data.restart_initial_probability !== fraction) {
      throw new AgenticCodeConfigError("restart_fraction cannot differ from restart_initial_probability");
    }
    data.restart_initial_probability = fraction;
  }
  if (data.turns !== undefined && data.turns !== null && !("reset" in data)) data.reset = null;

  const ntp = obj(data, "new_tokens_per_turn", "") ?? {};
  const newTokens = lognormal(ntp, "new_tokens_per_turn.", { mean: 3500, median: 1800 });
  const gen = lognormal(obj(data, "generation_length", "") ?? {}, "generation_length.", { mean: 500, median: 300 });
  const itd = obj(data, "inter_turn_delay", "") ?? {};
  const delay: MixtureDelay = {
    agenticFraction: num(itd, "agentic_fraction", "inter_turn_delay.", 0.7, { ge: 0, le: 1 }),
    agenticDelay: lognormal(obj(itd, "agentic_delay", "inter_turn_delay.") ?? {}, "inter_turn_delay.agentic_delay.", {
      mean: 2500,
      median: 1800,
    }),
    humanDelay: lognormal(obj(itd, "human_delay", "inter_turn_delay.") ?? {}, "inter_turn_delay.human_delay.", {
      mean: 40000,
      median: 25000,
    }),
    ...(optional(itd, "max", "inter_turn_delay.", { ge: 0 }) === undefined
      ? {}
      : { max: optional(itd, "max", "inter_turn_delay.", { ge: 0 })! }),
  };
  const resetRaw = data.reset === null ? null : obj(data, "reset", "") ?? {};
  const reset = resetRaw === null ? null : {
    baseProbability: num(resetRaw, "base_probability", "reset.", 0.02, { ge: 0, le: 1 }),
    contextScaling: num(resetRaw, "context_scaling", "reset.", 2, { ge: 1 }),
  };
  const turnsRaw = obj(data, "turns", "");
  let turns: TurnCount | null = null;
  if (turnsRaw !== undefined) {
    const t = (k: string) => num(turnsRaw, k, "turns.", undefined, { gt: 0, int: true });
    const allowTruncation = turnsRaw.allow_truncation === true;
    const attempts = optional(turnsRaw, "max_session_attempts", "turns.", { ge: 1 });
    const [mean, median, min, max] = [t("mean"), t("median"), t("min"), t("max")];
    if (mean < median) throw new AgenticCodeConfigError(`turns.mean (${mean}) must be ≥ median (${median})`);
    if (min > median) throw new AgenticCodeConfigError(`turns.min (${min}) must be ≤ median (${median})`);
    if (mean > max) throw new AgenticCodeConfigError(`turns.mean (${mean}) must be ≤ max (${max})`);
    if (allowTruncation && attempts !== undefined) {
      throw new AgenticCodeConfigError("turns.max_session_attempts cannot be set when allow_truncation is true");
    }
    turns = {
      mean,
      median,
      min,
      max,
      allowTruncation,
      ...(allowTruncation ? {} : { maxSessionAttempts: attempts ?? 100 }),
    };
  }
  const cacheRaw = obj(data, "cache", "") ?? {};
  const groupsRaw = obj(cacheRaw, "layer1_5_groups", "cache.") ?? {};
  const cache = {
    layer1Tokens: num(cacheRaw, "layer1_tokens", "cache.", 32_000, { ge: 0, int: true }),
    layer15Tokens: num(cacheRaw, "layer1_5_tokens", "cache.", 20_000, { ge: 0, int: true }),
    layer2: lognormal(obj(cacheRaw, "layer2", "cache.") ?? {}, "cache.layer2.", { mean: 10_000, median: 5_000 }),
    groups: {
      numGroups: num(groupsRaw, "num_groups", "cache.layer1_5_groups.", 50, { ge: 1, int: true }),
      zipfAlpha: num(groupsRaw, "zipf_alpha", "cache.layer1_5_groups.", 1.2, { ge: 0 }),
    },
  };
  const range = data.restart_turn_range ?? [5, 15];
  if (!Array.isArray(range) || range.length !== 2 || !range.every((x) => Number.isInteger(x))) {
    throw new AgenticCodeConfigError("restart_turn_range must be two integers [min, max)");
  }
  if (range[0] < 1) throw new AgenticCodeConfigError("restart_turn_range minimum must be ≥ 1");
  if (range[1] <= range[0]) throw new AgenticCodeConfigError("restart_turn_range must be ordered as [min, max)");
  const config: AgenticCodeConfig = {
    newTokensPerTurn: { ...newTokens, bias: num(ntp, "bias", "new_tokens_per_turn.", 1, { gt: 0 }) },
    generationLength: gen,
    interTurnDelay: delay,
    reset,
    turns,
    maxPromptTokens: num(data, "max_prompt_tokens", "", 200_000, { ge: 1, int: true }),
    blockSize: num(data, "block_size", "", 512, { ge: 1, int: true }),
    cache,
    restartInitialProbability: num(data, "restart_initial_probability", "", 0, { ge: 0, le: 1 }),
    restartTurnRange: [range[0], range[1]],
  };
  if (turns !== null) {
    if (reset !== null) throw new AgenticCodeConfigError("turns mode cannot be combined with reset");
    if (config.restartInitialProbability !== 0) {
      throw new AgenticCodeConfigError("turns mode cannot be combined with restart_initial_probability");
    }
    checkTurnFeasibility(config, turns);
  }
  return config;
}

/** Explicit-turn configs that can never fit under `max_prompt_tokens` are refused up front (as AIPerf). */
function checkTurnFeasibility(c: AgenticCodeConfig, turns: TurnCount): void {
  const minL2 = c.cache.layer2.min !== undefined ? Math.trunc(c.cache.layer2.min) : 1;
  const minNew = c.newTokensPerTurn.min !== undefined ? Math.trunc(c.newTokensPerTurn.min) : 1;
  const minOutput = c.generationLength.max !== undefined ? Math.min(30, Math.trunc(c.generationLength.max)) : 30;
  let input = c.cache.layer1Tokens + c.cache.layer15Tokens + minL2;
  if (input >= c.maxPromptTokens) {
    throw new AgenticCodeConfigError("turns mode is impossible: minimum initial context exceeds max_prompt_tokens");
  }
  if (turns.allowTruncation) return;
  for (let k = 1; k < turns.min; k++) {
    input += minOutput + minNew;
    if (input >= c.maxPromptTokens) {
      throw new AgenticCodeConfigError(
        "turns mode is impossible: minimum turn count cannot fit under max_prompt_tokens",
      );
    }
  }
}

/** AIPerf's bundled configs, by name (`--config default`). */
export const BUNDLED_AGENTIC_CODE_CONFIGS: Readonly<Record<string, Json>> = {
  default: {
    new_tokens_per_turn: { mean: 6000, median: 6000, max: 10000, bias: 1.1 },
    generation_length: { mean: 1000, median: 1000, max: 1500 },
    inter_turn_delay: {
      agentic_fraction: 0.7,
      agentic_delay: { mean: 2500, median: 1800, max: 10000 },
      human_delay: { mean: 40000, median: 25000, max: 120000 },
      max: null,
    },
    reset: { base_probability: 0.01, context_scaling: 1.5 },
    max_prompt_tokens: 167000,
    block_size: 512,
    cache: {
      layer1_tokens: 32000,
      layer1_5_tokens: 0,
      layer2: { mean: 15000, median: 5000, max: 30000 },
      layer1_5_groups: { num_groups: 1, zipf_alpha: 0.6 },
    },
  },
};

/** The config as AIPerf's manifest writes it (`generation_params`: every field, μ and σ included). */
export function configJson(c: AgenticCodeConfig): Json {
  const ln = (l: Lognormal) => ({
    mu: l.mu,
    sigma: l.sigma,
    mean: l.mean,
    median: l.median,
    min: l.min ?? null,
    max: l.max ?? null,
  });
  return {
    new_tokens_per_turn: { ...ln(c.newTokensPerTurn), bias: c.newTokensPerTurn.bias },
    generation_length: ln(c.generationLength),
    inter_turn_delay: {
      agentic_fraction: c.interTurnDelay.agenticFraction,
      agentic_delay: ln(c.interTurnDelay.agenticDelay),
      human_delay: ln(c.interTurnDelay.humanDelay),
      max: c.interTurnDelay.max ?? null,
    },
    reset: c.reset === null
      ? null
      : { base_probability: c.reset.baseProbability, context_scaling: c.reset.contextScaling },
    turns: c.turns === null ? null : {
      mean: c.turns.mean,
      median: c.turns.median,
      min: c.turns.min,
      max: c.turns.max,
      allow_truncation: c.turns.allowTruncation,
      max_session_attempts: c.turns.maxSessionAttempts ?? null,
    },
    max_prompt_tokens: c.maxPromptTokens,
    block_size: c.blockSize,
    cache: {
      layer1_tokens: c.cache.layer1Tokens,
      layer1_5_tokens: c.cache.layer15Tokens,
      layer2: ln(c.cache.layer2),
      layer1_5_groups: { num_groups: c.cache.groups.numGroups, zipf_alpha: c.cache.groups.zipfAlpha },
    },
    restart_initial_probability: c.restartInitialProbability,
    restart_turn_range: [...c.restartTurnRange],
  };
}
