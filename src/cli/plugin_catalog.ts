/**
 * Every registry of infermeter as one catalog, for `infermeter plugins` (AIPerf's plugin categories, without plugin
 * loading): each category's entries with a one-line description and, per entry, the facts a user picks it by
 * (an endpoint's path and capabilities, a dataset format's or a load strategy's own options, the files an output
 * writes, a metric's unit and applicability), and the names recognised but not built, with why. Read-only.
 */
import type { Registry, RegistryEntry } from "../base/registry.ts";
import type { OptionSpec } from "../base/option_spec.ts";
import { ENDPOINTS } from "../endpoints/endpoint_registry.ts";
import { DATASET_LOADERS, datasetLoaders } from "../dataset/dataset_loaders.ts";
import { PUBLIC_DATASET_NAMES } from "../dataset/public_dataset_names.ts";
import { LOAD_STRATEGIES } from "../timing/load_strategies.ts";
import { OUTPUTS } from "../run/outputs/output_registry.ts";
import { METRIC_REGISTRY } from "../metrics/metric_registry.ts";
import type { MetricDef } from "../metrics/metric_def.ts";
import { SIM_ROUTES } from "../sim/sim_route_registry.ts";
import { artifactPaths } from "../export/artifact_paths.ts";
import { requestPath } from "../endpoints/endpoint_adapter.ts";

/** One entry as the catalog shows it. */
export interface CatalogEntry extends RegistryEntry {
  /** Label → value lines shown by `plugins <category> <name>`. */
  readonly facts: readonly (readonly [string, string])[];
}

export interface CatalogCategory {
  /** The category's name (AIPerf's where it has one). */
  readonly name: string;
  /** Other names accepted for it. */
  readonly aliases: readonly string[];
  /** Title of its listing ("Endpoint Types"). */
  readonly title: string;
  readonly description: string;
  readonly entries: readonly CatalogEntry[];
  /** Names recognised from AIPerf but not built, and why. */
  readonly notBuilt: Readonly<Record<string, string>>;
}

function flagsOf(options: readonly OptionSpec[] | undefined): string {
  const flags = (options ?? []).map((o) => o.flags[0]);
  return flags.length === 0 ? "none" : flags.join(", ");
}

function yesNo(value: boolean | undefined): string {
  return value ? "yes" : "no";
}

function fromRegistry<T extends RegistryEntry>(
  registry: Registry<T>,
  facts: (entry: T) => readonly (readonly [string, string])[],
): { entries: CatalogEntry[]; notBuilt: Readonly<Record<string, string>> } {
  return {
    entries: registry.entries().map((e) => ({ name: e.name, description: e.description, facts: facts(e) })),
    notBuilt: registry.unsupported(),
  };
}

function metricFacts(def: MetricDef): readonly (readonly [string, string])[] {
  const flags = Object.entries(def.flags).filter(([, on]) => on === true).map(([flag]) => flag);
  return [
    ["Header", def.header],
    ["Unit", def.unit],
    ["Kind", def.kind],
    ["Needs", def.requires.length === 0 ? "none" : def.requires.join(", ")],
    ["Flags", flags.length === 0 ? "none" : flags.join(", ")],
  ];
}

/**
 * The catalog, built on each call from the registries (constant lists); the endpoint adapters and dataset readers
 * are loaded to say which poll jobs and which read directories.
 */
export async function pluginCatalog(): Promise<readonly CatalogCategory[]> {
  const paths = artifactPaths("<artifact-dir>");
  const polling = new Set<string>();
  for (const e of ENDPOINTS.entries()) if ((await e.load()).job !== undefined) polling.add(e.name);
  const directories = new Set((await datasetLoaders()).filter((l) => l.canLoadDirectory).map((l) => l.name));
  return [
    {
      name: "endpoint",
      aliases: ["endpoints", "endpoint_type"],
      title: "Endpoint Types",
      description: "How requests are written and answers read for each API (--endpoint-type).",
      ...fromRegistry(ENDPOINTS, (a) => {
        const c = a.capabilities;
        return [
          ["Path", c.path === "" ? "the URL as given" : requestPath(c, false)],
          ...(c.streamingPath === undefined ? [] : [["Streaming path", c.streamingPath] as const]),
          ["Method", c.method],
          ["Streams", yesNo(c.supportsStreaming)],
          ["Produces tokens", yesNo(c.producesTokens)],
          ["Tokenizes input", yesNo(c.tokenizesInput)],
          ["Media", (c.media ?? []).join(", ") || "none"],
          ["Body", c.formData ? "multipart/form-data" : "application/json"],
          ["Job polling", yesNo(polling.has(a.name))],
          ["Metrics title", c.metricsTitle],
        ];
      }),
    },
    {
      name: "custom_dataset_loader",
      aliases: ["dataset", "datasets", "custom_dataset_type", "dataset_loader"],
      title: "Custom Dataset Types",
      description: "Formats --input-file is read in (--custom-dataset-type; detected when not given).",
      ...fromRegistry(DATASET_LOADERS, (l) => [
        ["Options", flagsOf(l.options)],
        ["Reads directories", yesNo(directories.has(l.name))],
      ]),
    },
    {
      name: "public_dataset_loader",
      aliases: ["public_dataset", "public_datasets"],
      title: "Public Datasets",
      description: "Public datasets read from a local copy (--public-dataset); never downloaded.",
      ...fromRegistry(PUBLIC_DATASET_NAMES, () => []),
    },
    {
      name: "timing_strategy",
      aliases: ["load_strategy", "load_strategies", "timing"],
      title: "Load Strategies",
      description: "How requests are scheduled: closed loop, open-loop rates, series, trace replay, user-centric.",
      ...fromRegistry(LOAD_STRATEGIES, (s) => [["Options", flagsOf(s.options)]]),
    },
    {
      name: "data_exporter",
      aliases: ["output", "outputs", "exporter"],
      title: "Outputs",
      description: "Files a run writes (listed in run_manifest.json by role), in writing order.",
      ...fromRegistry(OUTPUTS, (o) => {
        const files = o.files(paths);
        return [["Files", files.length === 0 ? "none" : files.map((f) => `${f.path} (${f.role})`).join(", ")]];
      }),
    },
    {
      name: "metric",
      aliases: ["metrics"],
      title: "Metrics",
      description: "Metrics a run computes (AIPerf's tags, units and definitions), in computation order.",
      entries: METRIC_REGISTRY.all.map((def) => ({
        name: def.tag,
        description: `${def.header} (${def.unit}).`,
        facts: metricFacts(def),
      })),
      notBuilt: {},
    },
    {
      name: "sim_route",
      aliases: ["sim_routes", "serve_sim"],
      title: "Simulator Routes",
      description: "APIs serve-sim answers, one per endpoint type.",
      ...fromRegistry(SIM_ROUTES, (r) => [
        ["Paths", r.paths.join(", ")],
        ...(r.servesTypes === undefined ? [] : [["Also serves", r.servesTypes.join(", ")] as const]),
        ["Body", r.bodyFormat === "form" ? "multipart/form-data" : "application/json"],
      ]),
    },
  ];
}

/** The category named `name` (or one of its aliases; `-` and `_` alike), else undefined. */
export function findCategory(catalog: readonly CatalogCategory[], name: string): CatalogCategory | undefined {
  const key = name.toLowerCase().replaceAll("-", "_");
  return catalog.find((c) => c.name === key || c.aliases.includes(key));
}

/**
 * Problems with the catalog (`plugins --validate`): duplicate or empty names and descriptions, an endpoint type
 * without a simulator route, a dataset option or strategy option flag declared twice.
 */
export function validateCatalog(catalog: readonly CatalogCategory[]): string[] {
  const problems: string[] = [];
  for (const category of catalog) {
    const seen = new Set<string>();
    for (const e of category.entries) {
      if (seen.has(e.name)) problems.push(`${category.name}: '${e.name}' is registered twice`);
      seen.add(e.name);
      if (!/^[a-z0-9_]+$/.test(e.name)) problems.push(`${category.name}: '${e.name}' is not a snake_case name`);
      if (e.description.trim().length < 5) problems.push(`${category.name}: '${e.name}' has no description`);
    }
  }
  const routes = findCategory(catalog, "sim_route")!;
  for (const endpoint of ENDPOINTS.entries()) {
    if (endpoint.capabilities.path === "") continue;
    const served = routes.entries.some((r) => r.name === endpoint.name) ||
      SIM_ROUTES.entries().some((r) => r.servesTypes?.includes(endpoint.name));
    if (!served) problems.push(`endpoint: '${endpoint.name}' has no serve-sim route`);
  }
  const flags = new Map<string, string>();
  const owned = [
    ...DATASET_LOADERS.entries().map((l) => [l.name, l.options ?? []] as const),
    ...LOAD_STRATEGIES.entries().map((s) => [s.name, s.options] as const),
  ];
  for (const [owner, options] of owned) {
    for (const option of options) {
      for (const flag of option.flags) {
        const other = flags.get(flag);
        if (other !== undefined && other !== owner) problems.push(`${flag} is declared by both ${other} and ${owner}`);
        flags.set(flag, owner);
      }
    }
  }
  return problems;
}
