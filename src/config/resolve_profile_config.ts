/**
 * Builds the final `ProfileConfig` from layered values (the table's defaults already in them) by applying the rules
 * that involve several options, the way AIPerf resolves them: concurrency 1 without a rate, request count
 * `max(10, 2 × concurrency)` for synthetic runs without a duration, smoothness alone selects gamma, UI from the
 * terminal. It checks the cross-option constraints too, collecting every problem. It restates no default: constants
 * live in the option table only (each rule is described there in `defaultDescription`).
 */
import { type LayeredValue, valueSources } from "./layer_option_values.ts";
import { MAX_SYNTHETIC_TOKENS } from "../dataset/dataset_limits.ts";
import { OPTION_TABLE, type OptionKey, PROFILE_COMMAND, type ProfileOptionTable } from "./option_table.ts";
import type { ValueSource } from "./option_spec.ts";
import type { LayeredOptionValues } from "./option_values.ts";
import type { ProfileConfig } from "./profile_config.ts";

/** Options for {@link resolveProfileConfig}. */
export interface ResolveProfileConfigOptions {
  /** Whether stderr is a terminal (the default UI is `simple` there, else `none`). @default false */
  readonly isTty?: boolean;
}

/** Result of {@link resolveProfileConfig}; `config` is meaningful only when `problems` is empty. */
export interface ResolvedProfileConfig {
  readonly config: ProfileConfig;
  readonly sources: Readonly<Record<keyof ProfileConfig, ValueSource>>;
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
}

/** The first long flag that writes `key`, for messages about options that were not given. */
function flagOf(key: OptionKey): string {
  return PROFILE_COMMAND.index.forKey(key)?.flags[0] ?? key;
}

/** Applies the cross-option rules to `values` (which hold the table's defaults too). Never throws. */
export function resolveProfileConfig(
  values: ReadonlyMap<string, LayeredValue>,
  options: ResolveProfileConfigOptions = {},
): ResolvedProfileConfig {
  const problems: string[] = [];
  const warnings: string[] = [];
  const sources = {
    ...valueSourcesOf(values),
    artifactDirExplicit: values.get("artifactDir")?.source ?? "default",
  } as Record<keyof ProfileConfig, ValueSource>;
  // Typed by the table and checked when layered; a required field is missing only when a problem was reported, and
  // then the config is not used.
  const fields = Object.fromEntries([...values].map(([key, layered]) => [key, layered.value])) as LayeredOptionValues<
    ProfileOptionTable
  >;
  const given = (key: OptionKey): boolean => (values.get(key)?.source ?? "default") !== "default";
  /** How to name an option in a message: as the user wrote it, or by its flag. */
  const named = (key: OptionKey): string => values.get(key)?.origin ?? flagOf(key);

  // Endpoint
  let customEndpoint = fields.customEndpoint;
  if (customEndpoint !== undefined && !customEndpoint.startsWith("/")) customEndpoint = `/${customEndpoint}`;

  // Input
  const inputFile = fields.inputFile;
  if (fields.customDatasetType !== undefined && inputFile === undefined) {
    problems.push(
      `${named("customDatasetType")} describes an input file, but none is given; add --input-file FILE or remove it.`,
    );
  }

  // Synthetic prompts are all built before the run: their expected total must fit in memory.
  if (inputFile === undefined) {
    const entries = fields.conversationNum ?? fields.numDatasetEntries;
    const perPrompt = fields.syntheticInputTokensMean + fields.syntheticInputTokensStddev;
    const turns = fields.conversationTurnMean + fields.conversationTurnStddev;
    const total = entries * turns * perPrompt;
    if (total > MAX_SYNTHETIC_TOKENS) {
      problems.push(
        `${named(fields.conversationNum === undefined ? "numDatasetEntries" : "conversationNum")} ${entries} × ` +
          `${turns} turn${turns === 1 ? "" : "s"} × ${perPrompt} prompt tokens is ${total.toExponential(2)} ` +
          `tokens of synthetic prompts, above the ${MAX_SYNTHETIC_TOKENS.toLocaleString("en-US")} a run builds ` +
          "in memory; lower the entry count or --isl (prompts are reused across requests).",
      );
    }
  }

  // Output sequence length
  if (fields.outputTokensMean === undefined && fields.outputTokensStddev > 0) {
    warnings.push(
      `${named("outputTokensStddev")} has no effect without an output length; add --output-tokens-mean N to use it.`,
    );
  }

  // Load generator
  const requestRate = fields.requestRate;
  const userCentricRate = fields.userCentricRate;
  let concurrency = fields.concurrency;
  if (concurrency === undefined && requestRate === undefined && userCentricRate === undefined) concurrency = 1;
  if (userCentricRate !== undefined) {
    if (fields.numUsers === undefined) {
      problems.push(`${named("userCentricRate")} needs the number of users; add --num-users N.`);
    }
    if (requestRate !== undefined) {
      problems.push(
        `${named("userCentricRate")} and ${named("requestRate")} both set the request rate; remove one of them.`,
      );
    }
  } else if (fields.numUsers !== undefined) {
    problems.push(
      `${named("numUsers")} needs --user-centric-rate; add it to enable user-centric mode, or remove --num-users.`,
    );
  }
  if (fields.requestRateRampDuration !== undefined && requestRate === undefined && userCentricRate === undefined) {
    problems.push(
      `${named("requestRateRampDuration")} ramps a request rate; add --request-rate or --user-centric-rate, or ` +
        "remove the ramp.",
    );
  }
  if (fields.prefillConcurrency !== undefined && !fields.streaming) {
    problems.push(
      `${named("prefillConcurrency")} limits requests waiting for their first token, which needs streaming; add ` +
        "--streaming or remove the prefill limit.",
    );
  }
  if (fields.prefillConcurrencyRampDuration !== undefined && fields.prefillConcurrency === undefined) {
    problems.push(`${named("prefillConcurrencyRampDuration")} ramps --prefill-concurrency, which is not set.`);
  }
  if (given("requestCancellationDelay") && fields.requestCancellationRate === undefined) {
    problems.push(
      `${named("requestCancellationDelay")} needs --request-cancellation-rate; add it or remove the delay.`,
    );
  }
  const warmup = fields.warmupRequestCount !== undefined || fields.warmupDuration !== undefined ||
    fields.numWarmupSessions !== undefined;
  if (fields.warmupRequestCount !== undefined && fields.numWarmupSessions !== undefined) {
    problems.push(
      `${named("warmupRequestCount")} and ${named("numWarmupSessions")} both bound the warmup; keep one of them.`,
    );
  }
  if (given("warmupGracePeriod") && fields.warmupDuration === undefined) {
    problems.push(
      `${named("warmupGracePeriod")} only applies after --warmup-duration; add it or remove the grace period.`,
    );
  }
  if (!warmup) {
    for (const key of ["warmupConcurrency", "warmupRequestRate", "warmupPrefillConcurrency"] as const) {
      if (fields[key] !== undefined) {
        warnings.push(
          `${named(key)} has no effect without a warmup; add --warmup-request-count, --warmup-duration or ` +
            "--num-warmup-sessions.",
        );
      }
    }
  }

  let arrivalPattern = fields.arrivalPattern;
  const arrivalSmoothness = fields.arrivalSmoothness;
  if (arrivalSmoothness !== undefined) {
    if (given("arrivalPattern") && arrivalPattern !== "gamma") {
      problems.push(
        `${named("arrivalSmoothness")} only shapes gamma arrivals, but ${named("arrivalPattern")} is ` +
          `'${arrivalPattern}'; use --arrival-pattern gamma or remove the smoothness.`,
      );
    } else if (requestRate === undefined) {
      problems.push(
        `${named("arrivalSmoothness")} shapes request-rate arrivals, but no --request-rate is set; add ` +
          `--request-rate N or remove the smoothness.`,
      );
    } else {
      arrivalPattern = "gamma";
    }
  }
  if (requestRate === undefined) {
    if (given("arrivalPattern") && arrivalPattern !== "concurrency_burst" && arrivalSmoothness === undefined) {
      warnings.push(
        `${named("arrivalPattern")} '${arrivalPattern}' has no effect without --request-rate; requests are sent as ` +
          "fast as --concurrency allows.",
      );
    }
    arrivalPattern = "concurrency_burst";
  } else if (arrivalPattern === "concurrency_burst") {
    problems.push(
      `${named("arrivalPattern")} 'concurrency_burst' ignores ${named("requestRate")}; use constant, poisson or ` +
        "gamma, or remove the request rate.",
    );
  }

  const benchmarkDuration = fields.benchmarkDuration;
  if (given("benchmarkGracePeriod") && benchmarkDuration === undefined) {
    problems.push(
      `${named("benchmarkGracePeriod")} only applies after --benchmark-duration; add --benchmark-duration SECONDS ` +
        "or remove the grace period.",
    );
  }
  if (fields.fixedScheduleAutoOffset && fields.fixedScheduleStartOffset !== undefined) {
    problems.push(
      `${named("fixedScheduleAutoOffset")} and ${named("fixedScheduleStartOffset")} both say where the replay ` +
        "starts; keep one of them.",
    );
  }
  if (
    fields.fixedScheduleStartOffset !== undefined && fields.fixedScheduleEndOffset !== undefined &&
    fields.fixedScheduleEndOffset < fields.fixedScheduleStartOffset
  ) {
    problems.push(`${named("fixedScheduleEndOffset")} is before ${named("fixedScheduleStartOffset")}; swap them.`);
  }
  if (fields.concurrencyRampDuration !== undefined && requestRate !== undefined) {
    problems.push(
      `${named("concurrencyRampDuration")} ramps a concurrency run; with ${named("requestRate")} the rate sets the ` +
        "load, so remove one of them.",
    );
  }
  let requestCount = fields.requestCount;
  // --conversation-num stops the run after that many sessions instead (AIPerf's session count); a file or public
  // dataset gets its default in the load plan (run/load_plans.ts).
  if (
    requestCount === undefined && benchmarkDuration === undefined && inputFile === undefined &&
    fields.publicDataset === undefined && fields.conversationNum === undefined
  ) {
    requestCount = Math.max(10, 2 * (concurrency ?? 1));
  }
  if (userCentricRate !== undefined && fields.numUsers !== undefined && requestCount !== undefined) {
    if (requestCount < fields.numUsers) {
      problems.push(
        `--request-count (${requestCount}) must be at least --num-users (${fields.numUsers}): each user needs at ` +
          "least one request.",
      );
    }
  }

  // UI
  const ui = fields.ui ?? (options.isTty ? "simple" : "none");

  const config: ProfileConfig = {
    ...fields,
    customEndpoint,
    concurrency,
    arrivalPattern,
    requestCount,
    ui,
    artifactDirExplicit: given("artifactDir"),
  };
  return { config: dropUndefined(config), sources, problems, warnings };
}

/** Which layer each field of the table came from (`default` also for fields left unset). */
function valueSourcesOf(values: ReadonlyMap<string, LayeredValue>): Record<OptionKey, ValueSource> {
  return valueSources(OPTION_TABLE, values) as Record<OptionKey, ValueSource>;
}

/** Removes keys whose value is undefined, so optional fields are truly absent. */
function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== undefined)) as T;
}
