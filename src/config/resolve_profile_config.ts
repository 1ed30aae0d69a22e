/**
 * Builds the final `ProfileConfig` from layered values: fills defaults the way AIPerf resolves them (concurrency 1
 * without a rate, request count `max(10, 2 × concurrency)` for synthetic runs without a duration, smoothness alone
 * selects gamma, UI from the terminal) and checks the rules that involve several options, collecting every
 * problem.
 */
import type { LayeredValue } from "./layer_option_values.ts";
import { OPTION_TABLE, type OptionKey, tableDefault, type ValueSource } from "./option_table.ts";
import type {
  ArrivalPattern,
  ConnectionReuseStrategy,
  CustomDatasetType,
  ExportLevel,
  GoodputSlo,
  LogLevel,
  ProfileConfig,
  UiType,
} from "./profile_config.ts";
import type { EndpointType } from "../endpoints/endpoint_adapter.ts";
import type { SamplingStrategy } from "../dataset/conversation.ts";

/** Options for {@link resolveProfileConfig}. */
export interface ResolveProfileConfigOptions {
  /** Whether stderr is a terminal (the default UI is `simple` there, else `none`). @default false */
  readonly isTty?: boolean;
}

/** Result of {@link resolveProfileConfig}; `config` is meaningful only when `problems` is empty. */
export interface ResolvedProfileConfig {
  readonly config: ProfileConfig;
  readonly sources: Readonly<Record<OptionKey, ValueSource>>;
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
}

/** Every `ProfileConfig` field (a record, so the compiler flags a field added to the contract but not here). */
const CONFIG_FIELDS: Readonly<Record<OptionKey, true>> = {
  modelNames: true,
  modelSelectionStrategy: true,
  endpointType: true,
  customEndpoint: true,
  streaming: true,
  urls: true,
  requestTimeoutSeconds: true,
  apiKey: true,
  useLegacyMaxTokens: true,
  useServerTokenCount: true,
  connectionReuseStrategy: true,
  tokenizer: true,
  extraInputs: true,
  headers: true,
  inputFile: true,
  customDatasetType: true,
  datasetSamplingStrategy: true,
  randomSeed: true,
  numDatasetEntries: true,
  configFile: true,
  syntheticInputTokensMean: true,
  syntheticInputTokensStddev: true,
  outputTokensMean: true,
  outputTokensStddev: true,
  concurrency: true,
  requestRate: true,
  arrivalPattern: true,
  arrivalSmoothness: true,
  requestCount: true,
  benchmarkDuration: true,
  benchmarkGracePeriod: true,
  concurrencyRampDuration: true,
  warmupRequestCount: true,
  failedRequestThreshold: true,
  goodput: true,
  artifactDir: true,
  artifactDirExplicit: true,
  profileExportPrefix: true,
  exportLevel: true,
  ui: true,
  logLevel: true,
  workers: true,
  cpuDmaLatency: true,
};
const CONFIG_KEYS = Object.keys(CONFIG_FIELDS) as OptionKey[];

/** The first long flag that writes `key`, for messages about options that were not given. */
function flagOf(key: OptionKey): string {
  return OPTION_TABLE.find((spec) => "key" in spec && spec.key === key && spec.type !== "switch")?.flags[0] ?? key;
}

/** Applies defaults and cross-option rules. Never throws. */
export function resolveProfileConfig(
  values: ReadonlyMap<OptionKey, LayeredValue>,
  options: ResolveProfileConfigOptions = {},
): ResolvedProfileConfig {
  const problems: string[] = [];
  const warnings: string[] = [];
  const sources = Object.fromEntries(
    CONFIG_KEYS.map((key) => [key, values.get(key)?.source ?? "default"]),
  ) as Record<OptionKey, ValueSource>;
  const given = (key: OptionKey): boolean => values.has(key);
  /** How to name an option in a message: as the user wrote it, or by its flag. */
  const named = (key: OptionKey): string => values.get(key)?.origin ?? flagOf(key);
  function get<T>(key: OptionKey): T | undefined {
    const layered = values.get(key);
    return (layered === undefined ? tableDefault(key) : layered.value) as T | undefined;
  }

  // Endpoint
  const modelNames = get<readonly string[]>("modelNames") ?? [];
  if (modelNames.length === 0) {
    problems.push("No model given; add -m/--model NAME (several: a comma list), or 'model: NAME' in the -f file.");
  }
  let customEndpoint = get<string>("customEndpoint");
  if (customEndpoint !== undefined && !customEndpoint.startsWith("/")) customEndpoint = `/${customEndpoint}`;

  // Input
  const inputFile = get<string>("inputFile");
  const customDatasetType = get<CustomDatasetType>("customDatasetType");
  if (customDatasetType !== undefined && inputFile === undefined) {
    problems.push(
      `${named("customDatasetType")} describes an input file, but none is given; add --input-file FILE or remove it.`,
    );
  }

  // Output sequence length
  const outputTokensMean = get<number>("outputTokensMean");
  const outputTokensStddev = get<number>("outputTokensStddev") ?? 0;
  if (outputTokensMean === undefined && outputTokensStddev > 0) {
    warnings.push(
      `${named("outputTokensStddev")} has no effect without an output length; add --output-tokens-mean N to use it.`,
    );
  }

  // Load generator
  const requestRate = get<number>("requestRate");
  let concurrency = get<number>("concurrency");
  if (concurrency === undefined && requestRate === undefined) concurrency = 1;

  let arrivalPattern = get<ArrivalPattern>("arrivalPattern") ?? "poisson";
  const arrivalSmoothness = get<number>("arrivalSmoothness");
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

  const benchmarkDuration = get<number>("benchmarkDuration");
  const benchmarkGracePeriod = get<number>("benchmarkGracePeriod") ?? 30;
  if (given("benchmarkGracePeriod") && benchmarkDuration === undefined) {
    problems.push(
      `${named("benchmarkGracePeriod")} only applies after --benchmark-duration; add --benchmark-duration SECONDS ` +
        "or remove the grace period.",
    );
  }
  const concurrencyRampDuration = get<number>("concurrencyRampDuration");
  if (concurrencyRampDuration !== undefined && requestRate !== undefined) {
    problems.push(
      `${named("concurrencyRampDuration")} ramps a concurrency run; with ${named("requestRate")} the rate sets the ` +
        "load, so remove one of them.",
    );
  }
  let requestCount = get<number>("requestCount");
  if (requestCount === undefined && benchmarkDuration === undefined && inputFile === undefined) {
    requestCount = Math.max(10, 2 * (concurrency ?? 1));
  }

  // Output
  const artifactDir = get<string>("artifactDir") ?? "artifacts";
  sources.artifactDirExplicit = sources.artifactDir;

  // UI
  let ui = get<UiType>("ui");
  if (ui === "dashboard") {
    warnings.push(`${named("ui")} 'dashboard' is not available yet; showing the simple progress display instead.`);
    ui = "simple";
  }
  ui ??= options.isTty ? "simple" : "none";

  const config: ProfileConfig = {
    modelNames,
    modelSelectionStrategy: get<"round_robin" | "random">("modelSelectionStrategy") ?? "round_robin",
    endpointType: get<EndpointType>("endpointType") ?? "chat",
    customEndpoint,
    streaming: get<boolean>("streaming") ?? false,
    urls: get<readonly string[]>("urls") ?? ["http://localhost:8000"],
    requestTimeoutSeconds: get<number>("requestTimeoutSeconds") ?? 21600,
    apiKey: get<string>("apiKey"),
    useLegacyMaxTokens: get<boolean>("useLegacyMaxTokens") ?? false,
    useServerTokenCount: get<boolean>("useServerTokenCount") ?? false,
    connectionReuseStrategy: get<ConnectionReuseStrategy>("connectionReuseStrategy") ?? "pooled",
    tokenizer: get<string>("tokenizer") ?? "builtin",
    extraInputs: get<Record<string, unknown>>("extraInputs") ?? {},
    headers: get<ReadonlyArray<readonly [string, string]>>("headers") ?? [],
    inputFile,
    customDatasetType,
    datasetSamplingStrategy: get<SamplingStrategy>("datasetSamplingStrategy"),
    randomSeed: get<number>("randomSeed"),
    numDatasetEntries: get<number>("numDatasetEntries") ?? 100,
    configFile: get<string>("configFile"),
    syntheticInputTokensMean: get<number>("syntheticInputTokensMean") ?? 550,
    syntheticInputTokensStddev: get<number>("syntheticInputTokensStddev") ?? 0,
    outputTokensMean,
    outputTokensStddev,
    concurrency,
    requestRate,
    arrivalPattern,
    arrivalSmoothness,
    requestCount,
    benchmarkDuration,
    benchmarkGracePeriod,
    concurrencyRampDuration,
    warmupRequestCount: get<number>("warmupRequestCount"),
    failedRequestThreshold: get<number>("failedRequestThreshold"),
    goodput: get<readonly GoodputSlo[]>("goodput") ?? [],
    artifactDir,
    artifactDirExplicit: given("artifactDir"),
    profileExportPrefix: get<string>("profileExportPrefix"),
    exportLevel: get<ExportLevel>("exportLevel") ?? "records",
    ui,
    logLevel: get<LogLevel>("logLevel") ?? "INFO",
    workers: get<number>("workers"),
    cpuDmaLatency: get<number>("cpuDmaLatency"),
  };
  return { config: dropUndefined(config), sources, problems, warnings };
}

/** Removes keys whose value is undefined, so optional fields are truly absent. */
function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== undefined)) as T;
}
