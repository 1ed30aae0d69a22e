/**
 * Builds the final `ProfileConfig` from layered values (the table's defaults already in them): first the relations
 * options declare (`requires`, `conflictsWith`, `needs`, checked generically by `check_option_relations.ts`) and
 * the load-mode rules (`check_load_modes.ts`: one mode asked, no option of another mode, each mode's own checks);
 * then the rules that give values the way AIPerf resolves them: concurrency 1 unless an open-loop mode is asked,
 * request count `max(10, 2 × concurrency)` for synthetic runs without a duration, UI from the terminal. Every
 * problem is collected. It restates no default: constants live in the option table only (each rule is described
 * there in `defaultDescription`).
 */
import { PEERS } from "../report/peers/peer_registry.ts";
import { type LayeredValue, valueSources } from "./layer_option_values.ts";
import { MAX_SYNTHETIC_TOKENS } from "../dataset/dataset_limits.ts";
import { type OptionKey, profileCommandFor, type ProfileOptionTable } from "./option_table.ts";
import type { ValueSource } from "../base/option_spec.ts";
import type { LayeredOptionValues } from "../base/option_values.ts";
import type { Registry } from "../base/registry.ts";
import type { LoadStrategyEntry } from "../timing/load_strategy.ts";
import { LOAD_STRATEGIES } from "../timing/load_strategies.ts";
import type { ProfileConfig } from "./profile_config.ts";
import { checkOptionRelations, OptionValueView } from "./check_option_relations.ts";
import { checkLoadModes } from "./check_load_modes.ts";
import { checkDatasetFormats } from "./check_dataset_formats.ts";
import { checkAgenticReplay } from "./check_agentic_replay.ts";
import { applyScenario } from "./scenario_lock.ts";
import { scheduleSpanProblem } from "../timing/schedule_limits.ts";
import { DATASET_LOADERS } from "../dataset/dataset_loaders.ts";
import { trackingExportProblems } from "./check_tracking_export.ts";

/** Options for {@link resolveProfileConfig}. */
export interface ResolveProfileConfigOptions {
  /** Whether stderr is a terminal (the default UI is `simple` there, else `none`). @default false */
  readonly isTty?: boolean;
  /** The load strategies whose options and rules apply. @default LOAD_STRATEGIES */
  readonly strategies?: Registry<LoadStrategyEntry>;
}

/** Result of {@link resolveProfileConfig}; `config` is meaningful only when `problems` is empty. */
export interface ResolvedProfileConfig {
  readonly config: ProfileConfig;
  readonly sources: Readonly<Record<keyof ProfileConfig, ValueSource>>;
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
}

/** Applies the cross-option rules to `values` (which hold the table's defaults too). Never throws. */
export function resolveProfileConfig(
  values: ReadonlyMap<string, LayeredValue>,
  options: ResolveProfileConfigOptions = {},
): ResolvedProfileConfig {
  const strategies = options.strategies ?? LOAD_STRATEGIES;
  const table = profileCommandFor(strategies).options;
  const problems: string[] = [];
  const warnings: string[] = [];
  const sources = {
    ...valueSources(table, values),
    artifactDirExplicit: values.get("artifactDir")?.source ?? "default",
  } as Record<keyof ProfileConfig, ValueSource>;
  // Typed by the table and checked when layered; a required field is missing only when a problem was reported, and
  // then the config is not used.
  const fields = Object.fromEntries([...values].map(([key, layered]) => [key, layered.value])) as LayeredOptionValues<
    ProfileOptionTable
  >;
  const given = (key: OptionKey): boolean => (values.get(key)?.source ?? "default") !== "default";
  const view = new OptionValueView(table, values);
  const named = (key: OptionKey): string => view.named(key);

  // A scenario lock fills what the user left unset and reports what conflicts with it (config/scenario_lock.ts).
  const lock = applyScenario({
    value: (key) => view.value(key),
    given: (key) => view.given(key),
    named: (key) => view.named(key),
  });
  Object.assign(fields as Record<string, unknown>, lock.fills);
  problems.push(...lock.problems);
  warnings.push(...lock.warnings);

  // Peers' metrics are computed from the per-request records after the run: check the names and the records now.
  for (const name of fields.peerMetrics.flatMap((n) => n.split(",")).map((n) => n.trim()).filter((n) => n !== "")) {
    if (name !== "all" && !PEERS.has(name)) {
      problems.push(`${named("peerMetrics")}: ${PEERS.describeUnknown(name)}, or all.`);
    }
  }
  if (fields.peerMetrics.length > 0 && fields.exportLevel === "summary") {
    warnings.push(
      `${named("peerMetrics")} reads the per-request records, which --export-level summary leaves out: ` +
        "peer_metrics.json will not be written.",
    );
  }

  problems.push(...trackingExportProblems(fields, (key) => named(key as OptionKey)));

  // Endpoint
  let customEndpoint = fields.customEndpoint;
  if (customEndpoint !== undefined && !customEndpoint.startsWith("/")) customEndpoint = `/${customEndpoint}`;

  // Synthetic prompts are all built before the run: their expected total must fit in memory.
  const inputFile = fields.inputFile;
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

  // --hf-weka-dataset names the repository of the weka_hf public dataset, and so selects it.
  let publicDataset = fields.publicDataset;
  if (fields.hfWekaDataset !== undefined) {
    if (publicDataset !== undefined && publicDataset !== "weka_hf") {
      problems.push(
        `${named("hfWekaDataset")} reads the weka_hf public dataset, and ${named("publicDataset")} is ` +
          `${publicDataset}; remove one of them.`,
      );
    } else publicDataset = "weka_hf";
  }

  // Load generator: the mode asked decides whether sessions in flight are capped by default.
  const asked = strategies.entries().filter((entry) => entry.selectedBy.some((key) => view.isSet(key)));
  let concurrency = fields.concurrency;
  if (concurrency === undefined && !asked.some((entry) => entry.openLoop === true)) concurrency = 1;
  const benchmarkDuration = fields.benchmarkDuration;
  let requestCount = fields.requestCount;
  // --conversation-num stops the run after that many sessions instead (AIPerf's session count); a file or public
  // dataset gets its default in the load plan (run/load_plans.ts).
  if (
    requestCount === undefined && benchmarkDuration === undefined && inputFile === undefined &&
    publicDataset === undefined && fields.conversationNum === undefined
  ) {
    requestCount = Math.max(10, 2 * (concurrency ?? 1));
  }

  const config: ProfileConfig = dropUndefined({
    ...fields,
    publicDataset,
    customEndpoint,
    concurrency,
    requestCount,
    artifactDirExplicit: given("artifactDir"),
  });

  const resolvedValues = new Map(values);
  for (const key of ["concurrency", "requestCount"] as const) {
    const value = config[key];
    if (value !== undefined && !values.has(key)) resolvedValues.set(key, { value, source: "default", origin: key });
  }
  // What the scenario filled in is what the checks below see (its 0–1 ratios beside a given max ratio).
  for (const [key, value] of Object.entries(lock.fills)) {
    const layered = values.get(key);
    resolvedValues.set(key, layered === undefined ? { value, source: "default", origin: key } : { ...layered, value });
  }
  const modes = checkLoadModes(view, new OptionValueView(table, resolvedValues), strategies);
  const formats = checkDatasetFormats(view, DATASET_LOADERS);
  const warmupSpan = scheduleSpanProblem(view, "warmupRequestRate", {
    durationKey: "warmupDuration",
    countKey: "warmupRequestCount",
  });
  if (warmupSpan !== undefined) problems.push(warmupSpan);
  const relations = checkOptionRelations(table, values, modes.reported);
  const agentic = checkAgenticReplay(new OptionValueView(table, resolvedValues));
  problems.push(...modes.problems, ...formats.problems, ...relations.problems, ...agentic.problems);
  warnings.push(...modes.warnings, ...formats.warnings, ...relations.warnings, ...agentic.warnings);
  return { config, sources, problems, warnings };
}

/** Removes keys whose value is undefined, so optional fields are truly absent. */
function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== undefined)) as T;
}
