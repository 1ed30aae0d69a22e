/**
 * Loads a `-f/--config` YAML file into raw option assignments, validated later by the same table code as flags.
 *
 * Two layouts are accepted, and may be mixed at the top level:
 * - flat: any long flag name without its dashes, in snake_case, kebab-case or camelCase
 *   (`model: x`, `endpoint_type: chat`, `syntheticInputTokensMean: 100`, `streaming: true`, `concurrency: 4`);
 * - AIPerf's structured layout (schema 2.0): `schema_version`, `random_seed` and a `benchmark:` body with
 *   `model`/`models`, `endpoint {url(s), type, path, streaming, api_key, timeout, headers, extra, …}`,
 *   `dataset`/`datasets {type, entries, path, format, sampling, random_seed, prompts {isl, osl}}`, `phases`
 *   (a mapping, or a list of warmup/profiling phases with `type`, `concurrency`, `rate`, `requests`, `duration`,
 *   `grace_period`, `smoothness`), `artifacts {dir, prefix}`, `tokenizer {name}`,
 *   `runtime {ui, workers, cpu_dma_latency}` and `slos {metric_tag: value}`. Keys are accepted in snake_case or
 *   camelCase, like AIPerf.
 *
 * `${VAR}` (required) and `${VAR:default}` are replaced from the environment in every string value; a value that
 * is exactly one `${…}` is typed (true/false and numbers). Unknown keys are errors naming the file, the key path
 * and the closest known key.
 */
import * as yaml from "js-yaml";
import { didYouMeanHint } from "../base/did_you_mean.ts";
import type { OptionAssignment } from "./layer_option_values.ts";
import type { OptionSpec } from "../base/option_spec.ts";
import { OPTION_TABLE } from "./option_table.ts";

/** Options for {@link loadYamlConfig}. */
export interface LoadYamlConfigOptions {
  /** The file path as given, used in every problem. */
  readonly path: string;
  /** Environment for `${VAR}` substitution. @default {} */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** Result of {@link loadYamlConfig}. */
export interface YamlConfig {
  readonly assignments: readonly OptionAssignment[];
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
  /** The text is not valid YAML: `problems` holds the loader's first error only (`yaml_syntax_errors.ts` finds all). */
  readonly syntaxError?: boolean;
}

type Mapping = Record<string, unknown>;

const ENVELOPE_KEYS: readonly string[] = ["schema_version", "random_seed", "benchmark"];
const UNSUPPORTED_ENVELOPE_KEYS: readonly string[] = ["variables", "sweep", "multi_run", "plot"];
const UNSUPPORTED_BODY_KEYS: readonly string[] = [
  "endpoint_profiles",
  "gpu_telemetry",
  "server_metrics",
  "network_latency",
  "otel",
  "mlflow",
  "wandb",
  "logging",
  "metrics",
  "accuracy",
  "failure_policy",
];
/** Body keys that the loader rewrites before walking (`model` → `models`, …), offered in "did you mean" hints. */
const BODY_SHORTHANDS: readonly string[] = ["model", "datasets", "warmup", "profiling"];
/** Warmup fields that AIPerf inherits from profiling by default; we always inherit, so they only warn. */
const WARMUP_INHERITED_FIELDS: readonly string[] = ["type", "concurrency", "rate", "smoothness"];

/** `syntheticInputTokensMean` / `synthetic-input-tokens-mean` → `synthetic_input_tokens_mean`. */
export function toSnakeCase(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/-/g, "_").toLowerCase();
}

/** Flat YAML key → option, for every long flag of every option. */
const FLAT_KEYS: ReadonlyMap<string, OptionSpec> = new Map(
  OPTION_TABLE.flatMap((spec) => spec.flags.map((flag) => [toSnakeCase(flag.slice(2)), spec] as const)),
);

/** Structured path → option. */
const STRUCTURED_PATHS: ReadonlyMap<string, OptionSpec> = new Map(
  OPTION_TABLE.flatMap((spec) => (spec.yaml ?? []).map((path) => [path, spec] as const)),
);

/** Phase fields the profiling phase understands (after normalization): the table's paths below it. */
const PROFILING_FIELDS: readonly string[] = [...STRUCTURED_PATHS.keys()]
  .filter((path) => path.startsWith("benchmark.phases.profiling."))
  .map((path) => path.slice("benchmark.phases.profiling.".length));

/** Every mapping path that may contain known keys, with the keys known directly below it. */
const KNOWN_CHILDREN: ReadonlyMap<string, ReadonlySet<string>> = (() => {
  const children = new Map<string, Set<string>>();
  for (const path of STRUCTURED_PATHS.keys()) {
    const parts = path.split(".");
    for (let i = 1; i < parts.length; i++) {
      const parent = parts.slice(0, i).join(".");
      if (!children.has(parent)) children.set(parent, new Set());
      children.get(parent)?.add(parts[i]);
    }
  }
  return children;
})();

/** Values that are free-form mappings (header names, body fields, metric tags): their keys are kept verbatim. */
function isFreeForm(spec: OptionSpec | undefined): boolean {
  return spec !== undefined && (spec.type === "keyValue" || spec.type === "headers" || spec.type === "goodput");
}

function isMapping(value: unknown): value is Mapping {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * Parses `text` (the content of `options.path`) into assignments and problems. Never throws. (`parseProfileArgs`
 * imports this module dynamically, so that js-yaml is loaded only when a config file is given.)
 */
export function loadYamlConfig(text: string, options: LoadYamlConfigOptions): YamlConfig {
  const file = options.path;
  const problems: string[] = [];
  const warnings: string[] = [];
  const assignments: OptionAssignment[] = [];
  if (text.trim() === "") {
    warnings.push(`${file} is empty; no options were read from it.`);
    return { assignments, problems, warnings };
  }
  let document: unknown;
  try {
    document = yaml.load(text, { filename: file });
  } catch (error) {
    const mark = (error as yaml.YAMLException).mark;
    const where = mark === undefined ? file : `${file}:${mark.line + 1}:${mark.column + 1}`;
    const reason = (error as yaml.YAMLException).reason ?? (error as Error).message;
    problems.push(`${where}: invalid YAML (${reason}); fix the syntax at that position.`);
    return { assignments, problems, warnings, syntaxError: true };
  }
  if (document === null || document === undefined) {
    warnings.push(`${file} has no content; no options were read from it.`);
    return { assignments, problems, warnings };
  }
  if (!isMapping(document)) {
    problems.push(`${file}: the top level is not a mapping; write 'key: value' lines such as 'model: my-model'.`);
    return { assignments, problems, warnings };
  }

  // Aliases share one node, so a few lines can stand for billions of values (or a cycle): count them as every
  // later walk would see them, stopping at the limit, before anything walks the document.
  if (valuesUpTo(document, MAX_VALUES) > MAX_VALUES) {
    problems.push(
      `${file}: the document stands for more than ${MAX_VALUES.toLocaleString("en-US")} values (anchors and ` +
        "aliases repeat their values, and may refer to themselves); a profile config holds a few dozen, so write " +
        "the values out.",
    );
    return { assignments, problems, warnings };
  }
  const substituted = substituteEnv(document, "", options.env ?? {}, file, problems) as Mapping;
  const root = snakeKeys(substituted, "", file, problems) as Mapping;
  const assign = (spec: OptionSpec, raw: unknown, path: string): void => {
    // `key: ~` (or an unset ${VAR}, already reported) leaves the option at its lower-layer value, like AIPerf's None.
    if (raw === null || raw === undefined) return;
    assignments.push({ spec, raw, origin: `${file}: ${path}`, source: "yaml" });
  };

  for (const [key, value] of Object.entries(root)) {
    if (key === "schema_version") {
      if (String(value) !== "2.0" && String(value) !== "2") {
        problems.push(`${file}: schema_version ${shownValue(value)} is not supported; use "2.0" (AIPerf's layout).`);
      }
      continue;
    }
    if (key === "benchmark") {
      if (!isMapping(value)) {
        problems.push(`${file}: 'benchmark' must be a mapping of sections (endpoint, dataset, phases, …).`);
        continue;
      }
      readBenchmarkBody(value, { file, problems, warnings, assign });
      continue;
    }
    if (key === "random_seed") {
      const spec = STRUCTURED_PATHS.get("random_seed");
      if (spec !== undefined) assign(spec, value, key);
      continue;
    }
    if (UNSUPPORTED_ENVELOPE_KEYS.includes(key)) {
      problems.push(`${file}: '${key}' is not supported yet by infermeter; remove it and run one configuration.`);
      continue;
    }
    const spec = FLAT_KEYS.get(key);
    if (spec === undefined) {
      const hint = didYouMeanHint(key, [...FLAT_KEYS.keys(), ...ENVELOPE_KEYS]);
      problems.push(
        `${file}: unknown key '${key}';${hint === "" ? "" : hint} Use a flag name without dashes (e.g. ` +
          `'concurrency: 4') or AIPerf's 'benchmark:' layout.`,
      );
      continue;
    }
    if (spec.cliOnly) {
      problems.push(`${file}: '${key}' can only be given on the command line; remove it from the file.`);
      continue;
    }
    assign(spec, value, key);
  }
  return { assignments, problems, warnings };
}

interface BodyContext {
  readonly file: string;
  readonly problems: string[];
  readonly warnings: string[];
  assign(spec: OptionSpec, raw: unknown, path: string): void;
}

/** Normalizes AIPerf's shorthands in the `benchmark:` body, then maps every leaf to its option. */
function readBenchmarkBody(body: Mapping, ctx: BodyContext): void {
  const normalized: Mapping = {};
  for (const [key, value] of Object.entries(body)) {
    if (UNSUPPORTED_BODY_KEYS.includes(key)) {
      ctx.problems.push(`${ctx.file}: 'benchmark.${key}' is not supported yet by infermeter; remove it.`);
      continue;
    }
    if (key === "model" || key === "models") {
      if (key === "models" && "model" in body) {
        ctx.problems.push(`${ctx.file}: both 'benchmark.model' and 'benchmark.models' are given; keep one.`);
        continue;
      }
      const models = normalizeModels(value, `benchmark.${key}`, ctx);
      if (models !== undefined) normalized.models = models;
      continue;
    }
    if (key === "dataset" || key === "datasets") {
      const dataset = normalizeDataset(key, value, ctx);
      if (dataset !== undefined) normalized.dataset = dataset;
      continue;
    }
    if (key === "phases" || key === "warmup" || key === "profiling") {
      const phases = normalizePhases(key, value, ctx);
      if (phases !== undefined) {
        normalized.phases = { ...(isMapping(normalized.phases) ? normalized.phases : {}), ...phases };
      }
      continue;
    }
    if (key === "endpoint" && isMapping(value)) {
      normalized.endpoint = normalizeEndpoint(value);
      continue;
    }
    if (key === "tokenizer" && typeof value === "string") {
      normalized.tokenizer = { name: value };
      continue;
    }
    normalized[key] = value;
  }
  walk(normalized, "benchmark", ctx);
}

/** Maps each key below `path` to its option, recursing into known sections; unknown keys are problems. */
function walk(node: Mapping, path: string, ctx: BodyContext): void {
  for (const [key, value] of Object.entries(node)) {
    const here = `${path}.${key}`;
    const spec = STRUCTURED_PATHS.get(here);
    if (spec !== undefined) {
      ctx.assign(spec, value, here);
      continue;
    }
    if (KNOWN_CHILDREN.has(here)) {
      if (isMapping(value)) walk(value, here, ctx);
      else if (value !== null) {
        ctx.problems.push(`${ctx.file}: '${here}' must be a mapping of keys, not a single value.`);
      }
      continue;
    }
    const known = new Set([...(KNOWN_CHILDREN.get(path) ?? []), ...(path === "benchmark" ? BODY_SHORTHANDS : [])]);
    const hint = didYouMeanHint(key, known);
    const listing = known.size === 0 ? "" : ` Known keys here: ${[...known].sort().join(", ")}.`;
    ctx.problems.push(
      `${ctx.file}: unknown key '${here}';${hint === "" ? " remove it or fix the name." : hint}${listing}`,
    );
  }
}

/** `model: x`, `models: [x, y]`, `models: {items: [x, {name: y}], strategy: random}` → `{items, strategy?}`. */
function normalizeModels(value: unknown, path: string, ctx: BodyContext): Mapping | undefined {
  const toItems = (items: unknown): unknown => {
    if (!Array.isArray(items)) return items;
    return items.map((item) => {
      if (!isMapping(item)) return item;
      if ("weight" in item) {
        ctx.problems.push(
          `${ctx.file}: '${path}' gives model weights; weighted model selection is not supported yet, remove 'weight'.`,
        );
      }
      return item.name;
    });
  };
  if (isMapping(value)) {
    const { items, strategy, ...rest } = value;
    for (const key of Object.keys(rest)) {
      ctx.problems.push(
        `${ctx.file}: unknown key '${path}.${key}';${
          didYouMeanHint(key, ["items", "strategy"])
        } Known keys here: items, strategy.`,
      );
    }
    const out: Mapping = {};
    if (items !== undefined) out.items = toItems(items);
    if (strategy !== undefined) out.strategy = strategy;
    return out;
  }
  return { items: toItems(value) };
}

/** `endpoint.url` (singular) joins `endpoint.urls`. */
function normalizeEndpoint(endpoint: Mapping): Mapping {
  const { url, ...rest } = endpoint;
  if (url === undefined) return endpoint;
  const urls = rest.urls === undefined ? [] : Array.isArray(rest.urls) ? rest.urls : [rest.urls];
  return { ...rest, urls: [...(Array.isArray(url) ? url : [url]), ...urls] };
}

/** `dataset:` / `datasets: [one]` → one dataset mapping with `isl`/`osl` shorthands moved under `prompts`. */
function normalizeDataset(key: string, value: unknown, ctx: BodyContext): Mapping | undefined {
  let dataset: unknown = value;
  if (key === "datasets") {
    if (!Array.isArray(value) || value.length !== 1) {
      ctx.problems.push(
        `${ctx.file}: 'benchmark.datasets' must be a list with exactly one dataset; several datasets are not supported.`,
      );
      return undefined;
    }
    dataset = value[0];
  }
  if (!isMapping(dataset)) {
    ctx.problems.push(`${ctx.file}: 'benchmark.${key}' must be a mapping (type, entries, prompts, path, …).`);
    return undefined;
  }
  const { name: _name, type, isl, osl, records, ...rest } = dataset;
  const out: Mapping = { ...rest };
  if (type !== undefined) {
    if (type === "public") {
      ctx.problems.push(`${ctx.file}: 'benchmark.dataset.type: public' is not supported yet; use synthetic or file.`);
    } else if (type !== "synthetic" && type !== "file") {
      ctx.problems.push(
        `${ctx.file}: 'benchmark.dataset.type' ${shownValue(type)} is not valid; use synthetic or file.`,
      );
    } else if (type === "file" && rest.path === undefined && records === undefined) {
      ctx.problems.push(`${ctx.file}: 'benchmark.dataset.type: file' needs 'path: FILE.jsonl'; add it.`);
    } else if (type === "synthetic" && rest.path !== undefined) {
      ctx.problems.push(
        `${ctx.file}: 'benchmark.dataset' is synthetic but gives 'path'; use 'type: file' or remove 'path'.`,
      );
    }
  }
  if (records !== undefined) {
    ctx.problems.push(
      `${ctx.file}: inline 'benchmark.dataset.records' are not supported yet; put them in a JSONL file and set 'path'.`,
    );
  }
  const prompts: Mapping = isMapping(rest.prompts) ? { ...rest.prompts } : {};
  if (rest.prompts !== undefined && !isMapping(rest.prompts)) {
    ctx.problems.push(`${ctx.file}: 'benchmark.dataset.prompts' must be a mapping such as {isl: 512, osl: 128}.`);
  }
  if (isl !== undefined) prompts.isl = isl;
  if (osl !== undefined) prompts.osl = osl;
  for (const length of ["isl", "osl"]) {
    const given = prompts[length];
    if (given !== undefined && !isMapping(given)) prompts[length] = { mean: given };
  }
  if (Object.keys(prompts).length > 0 || rest.prompts !== undefined) out.prompts = prompts;
  return out;
}

/**
 * `phases:` as a mapping (one profiling phase) or a list of phases, or the `warmup:`/`profiling:` shorthands, into
 * `{profiling: {...}, warmup: {...}}` with AIPerf's phase `type` mapped to our arrival pattern.
 */
function normalizePhases(key: string, value: unknown, ctx: BodyContext): Mapping | undefined {
  const phases: Array<{ phase: Mapping; path: string; kind: "warmup" | "profiling" }> = [];
  const kindOf = (phase: Mapping, fallback: "warmup" | "profiling"): "warmup" | "profiling" | undefined => {
    const kind = phase.kind ??
      (phase.name === "warmup" ? "warmup" : phase.name === "profiling" ? "profiling" : fallback);
    return kind === "warmup" || kind === "profiling" ? kind : undefined;
  };
  if (key === "warmup" || key === "profiling") {
    if (!isMapping(value)) {
      ctx.problems.push(`${ctx.file}: 'benchmark.${key}' must be a mapping of phase fields.`);
      return undefined;
    }
    phases.push({ phase: value, path: `benchmark.${key}`, kind: key });
  } else if (isMapping(value)) {
    phases.push({ phase: value, path: "benchmark.phases", kind: kindOf(value, "profiling") ?? "profiling" });
  } else if (Array.isArray(value)) {
    value.forEach((phase, index) => {
      const path = `benchmark.phases.${index}`;
      if (!isMapping(phase)) {
        ctx.problems.push(`${ctx.file}: '${path}' must be a mapping of phase fields.`);
        return;
      }
      const kind = kindOf(phase, "profiling");
      if (kind === undefined) {
        ctx.problems.push(
          `${ctx.file}: '${path}.kind' ${shownValue(phase.kind)} is not valid; use warmup or profiling.`,
        );
        return;
      }
      phases.push({ phase, path, kind });
    });
  } else {
    ctx.problems.push(`${ctx.file}: 'benchmark.phases' must be a mapping (one phase) or a list of phases.`);
    return undefined;
  }

  const out: Mapping = {};
  const inherited: Array<{ readonly field: string; readonly value: unknown; readonly path: string }> = [];
  for (const { phase, path, kind } of phases) {
    if (out[kind] !== undefined) {
      ctx.problems.push(
        `${ctx.file}: '${path}' is a second ${kind} phase; multi-phase runs are not supported yet, keep one.`,
      );
      continue;
    }
    const { name: _name, kind: _kind, exclude_from_results: exclude, ...fields } = phase;
    if (kind === "profiling" && exclude === true) {
      ctx.problems.push(`${ctx.file}: '${path}.exclude_from_results' would drop the only profiling phase; remove it.`);
    }
    const normalized: Mapping = {};
    for (const [field, fieldValue] of Object.entries(fields)) {
      if (kind === "warmup" && field !== "requests") {
        if (WARMUP_INHERITED_FIELDS.includes(field)) {
          inherited.push({ field, value: fieldValue, path: `${path}.${field}` });
        } else {
          ctx.problems.push(`${ctx.file}: '${path}.${field}' is not supported yet for warmup; only 'requests' is.`);
        }
        continue;
      }
      if (kind === "profiling" && !PROFILING_FIELDS.includes(field)) {
        const hint = didYouMeanHint(field, PROFILING_FIELDS);
        ctx.problems.push(
          `${ctx.file}: '${path}.${field}' is not a supported phase field;${hint === "" ? "" : hint} ` +
            `Known fields: ${PROFILING_FIELDS.join(", ")}.`,
        );
        continue;
      }
      normalized[field] = field === "duration" || field === "grace_period" ? parseDuration(fieldValue) : fieldValue;
    }
    if (kind === "profiling" && normalized.type !== undefined) {
      const type = String(normalized.type);
      if (type === "concurrency") normalized.type = "concurrency_burst";
      else if (type === "fixed_schedule" || type === "user_centric") {
        ctx.problems.push(
          `${ctx.file}: '${path}.type: ${type}' is not supported yet; use concurrency, constant, poisson or gamma.`,
        );
        delete normalized.type;
      }
    }
    out[kind] = normalized;
  }
  // The warmup always runs with the profiling load settings; say so only where the file asked for different ones.
  const profiling = isMapping(out.profiling) ? out.profiling : {};
  for (const { field, value: warmupValue, path } of inherited) {
    const profilingValue = field === "type" && warmupValue === "concurrency" && profiling.type === "concurrency_burst"
      ? "concurrency"
      : profiling[field];
    if (profilingValue !== warmupValue) {
      ctx.warnings.push(`${ctx.file}: '${path}' is ignored; the warmup uses the profiling phase's load settings.`);
    }
  }
  return out;
}

/** AIPerf duration strings (`90`, `30s`, `5m`, `2h`, `500ms`) → seconds; anything else is returned unchanged. */
function parseDuration(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(value);
  if (match === null) return value;
  const factor = { ms: 0.001, s: 1, m: 60, h: 3600 }[(match[2] ?? "s").toLowerCase() as "ms" | "s" | "m" | "h"];
  return Number(match[1]) * factor;
}

/**
 * Converts mapping keys to snake_case (AIPerf accepts camelCase too), except inside free-form mappings (headers,
 * extra body fields, SLOs). Two spellings of the same key in one mapping are a problem.
 */
function snakeKeys(node: unknown, path: string, file: string, problems: string[]): unknown {
  if (Array.isArray(node)) return node.map((item, index) => snakeKeys(item, `${path}.${index}`, file, problems));
  if (!isMapping(node)) return node;
  const out: Mapping = {};
  const spelledAs = new Map<string, string>();
  for (const [key, value] of Object.entries(node)) {
    const snake = toSnakeCase(key);
    const here = path === "" ? snake : `${path}.${snake}`;
    const previous = spelledAs.get(snake);
    if (previous !== undefined) {
      problems.push(
        `${file}: '${path === "" ? key : `${path}.${key}`}' repeats '${previous}' in another spelling; keep one.`,
      );
      continue;
    }
    spelledAs.set(snake, key);
    const freeForm = isFreeForm(STRUCTURED_PATHS.get(here)) || (path === "" && isFreeForm(FLAT_KEYS.get(snake)));
    out[snake] = freeForm ? value : snakeKeys(value, here, file, problems);
  }
  return out;
}

const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([^}]*))?\}/g;
const WHOLE_ENV_REFERENCE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([^}]*))?\}$/;

/** Replaces `${VAR}` / `${VAR:default}` in every string value; an unset `${VAR}` without default is a problem. */
function substituteEnv(
  node: unknown,
  path: string,
  env: Readonly<Record<string, string | undefined>>,
  file: string,
  problems: string[],
): unknown {
  if (Array.isArray(node)) {
    return node.map((item, index) => substituteEnv(item, `${path}[${index}]`, env, file, problems));
  }
  if (isMapping(node)) {
    const out: Mapping = {};
    for (const [key, value] of Object.entries(node)) {
      out[key] = substituteEnv(value, path === "" ? key : `${path}.${key}`, env, file, problems);
    }
    return out;
  }
  if (typeof node !== "string" || !node.includes("${")) return node;
  let missing = false;
  const replaced = node.replace(ENV_REFERENCE, (_match, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined) return value;
    if (fallback !== undefined) return fallback;
    missing = true;
    problems.push(
      `${file}: '${path}' needs environment variable ${name}, which is not set; set it or write \${${name}:default}.`,
    );
    return "";
  });
  if (missing) return undefined;
  return WHOLE_ENV_REFERENCE.test(node) ? typed(replaced) : replaced;
}

/** `true`/`false` → boolean, numeric text → number, anything else unchanged (AIPerf's env coercion). */
function typed(text: string): unknown {
  const trimmed = text.trim();
  if (/^(true|false)$/i.test(trimmed)) return trimmed.toLowerCase() === "true";
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(trimmed)) return Number(trimmed);
  return text;
}

/** More values than any profile config holds (AIPerf's full layout is about two hundred). */
const MAX_VALUES = 100_000;

/** The values `value` holds, counting each alias as a copy; stops counting past `limit` (so cycles end too). */
function valuesUpTo(value: unknown, limit: number): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && count <= limit) {
    const v = stack.pop();
    count++;
    if (Array.isArray(v)) {
      for (const item of v) stack.push(item);
    } else if (v !== null && typeof v === "object" && !(v instanceof Date) && !ArrayBuffer.isView(v)) {
      for (const item of Object.values(v)) stack.push(item);
    }
  }
  return count;
}

/** A value as a message shows it: a scalar quoted as written, a list or mapping as JSON (cut short). */
function shownValue(value: unknown): string {
  if (value === null || typeof value !== "object") return `'${String(value)}'`;
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 60 ? `${json.slice(0, 60)}…` : json;
}
