/**
 * AIPerf 0.13's scenario locks (`--scenario`): a named scenario fixes the invariants of a benchmark so its results
 * can be compared across submissions. Each lock either fills a value the user left unset, or, when the user set it
 * otherwise, is a violation: an input error listing every conflict, or with `--unsafe-override` a warning each (the
 * run is then no valid submission). A scenario on a synthetic dataset cannot be overridden: its traces are the
 * workload. AIPerf 0.13 has one scenario, `inferencex-agentx-mvp`; another name is refused with AIPerf's message.
 *
 * The scenario's timing mode (agentic replay) is selected by `--scenario` itself (timing/agentic_replay_strategy.ts);
 * a rate or schedule option beside it asks for a second mode, refused like any two modes.
 */
import { Registry, type RegistryEntry } from "../base/registry.ts";

export interface ScenarioSpec extends RegistryEntry {
  readonly requireStreaming: boolean;
  readonly requireIgnoreEos: boolean;
  readonly forbidIgnoreTraceDelays: boolean;
  readonly forbidInputTruncation: boolean;
  /** Dataset types or public datasets that carry the scenario's traces. */
  readonly loaders: readonly string[];
  /** Public dataset `weka_hf` is accepted with this repository only; a local file cannot prove its corpus. */
  readonly pinnedWekaRepo?: string;
  readonly minDurationS: number;
  readonly defaultDurationS?: number;
  readonly defaultStartMinRatio?: number;
  readonly defaultStartMaxRatio?: number;
  readonly systemIdleGapCapS?: number;
  readonly forbidTraceIdleGapCap: boolean;
  readonly forbidInterTurnDelayCap: boolean;
  readonly requireCacheBust?: string;
}

const WEKA_PUBLIC = ["", "_256k"].flatMap((size) =>
  [
    "with_subagents",
    "with_subagents_060226",
    "with_subagents_060526",
    "with_subagents_060826",
    "061326",
    "061526",
    "062126",
  ]
    .map((date) => `semianalysis_cc_traces_weka_${date}${size}`)
);

export const SCENARIOS = new Registry<ScenarioSpec>("scenario", [
  {
    name: "inferencex-agentx-mvp",
    description: "InferenceX AgentX: Weka agent traces in agentic replay, streamed, ignore_eos, cache-busted.",
    requireStreaming: true,
    requireIgnoreEos: true,
    forbidIgnoreTraceDelays: true,
    forbidInputTruncation: true,
    loaders: [...WEKA_PUBLIC, "weka_trace", "weka_hf"],
    pinnedWekaRepo: "semianalysisai/cc-traces-weka-062126",
    minDurationS: 900,
    defaultDurationS: 1800,
    defaultStartMinRatio: 0,
    defaultStartMaxRatio: 1,
    systemIdleGapCapS: 10,
    forbidTraceIdleGapCap: true,
    forbidInterTurnDelayCap: true,
    requireCacheBust: "first_turn_prefix",
  },
]);

/** What the lock reads of the options. */
export interface ScenarioInput {
  value(key: string): unknown;
  /** Given in YAML, the environment or a flag. */
  given(key: string): boolean;
  named(key: string): string;
}

export interface ScenarioOutcome {
  /** Values the lock fills in (option key → value). */
  readonly fills: Readonly<Record<string, unknown>>;
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
}

interface Violation {
  readonly flag: string;
  readonly got: unknown;
  readonly required: unknown;
  readonly why: string;
  /** --unsafe-override cannot turn it into a warning. */
  readonly hard?: boolean;
}

const text = (v: unknown) => typeof v === "string" ? `'${v}'` : String(v);

/** Applies `--scenario`'s locks; no scenario: nothing. */
export function applyScenario(input: ScenarioInput): ScenarioOutcome {
  const name = input.value("scenario");
  if (typeof name !== "string") return { fills: {}, problems: [], warnings: [] };
  if (!SCENARIOS.has(name)) {
    return {
      fills: {},
      problems: [`Unknown scenario '${name}'. Valid scenarios: ${[...SCENARIOS.names()].sort().join(", ")}`],
      warnings: [],
    };
  }
  const spec = SCENARIOS.get(name);
  const fills: Record<string, unknown> = {};
  const violations: Violation[] = [];
  const s = `scenario '${spec.name}'`;

  if (spec.requireStreaming && input.value("streaming") !== true) {
    if (input.given("streaming")) {
      violations.push({
        flag: "--streaming",
        got: false,
        required: true,
        why: `${s} requires --streaming; the per-token latency metrics (TTFT, ITL) need streaming responses`,
      });
    } else fills.streaming = true;
  }

  if (spec.requireIgnoreEos) {
    const extra = (input.value("extraInputs") ?? {}) as Readonly<Record<string, unknown>>;
    const ignoreEos = extra.ignore_eos;
    if (ignoreEos === undefined || ignoreEos === null) fills.extraInputs = { ...extra, ignore_eos: true };
    else if (falsy(ignoreEos)) {
      violations.push({
        flag: "extra_inputs.ignore_eos",
        got: ignoreEos,
        required: true,
        why: `${s} requires ignore_eos=true`,
      });
    }
  }

  if (spec.forbidIgnoreTraceDelays && input.value("ignoreTraceDelays") === true) {
    violations.push({
      flag: "--ignore-trace-delays",
      got: true,
      required: false,
      why: `${s} replays recorded trace timing; --ignore-trace-delays would send every turn back-to-back`,
    });
  }

  if (spec.forbidInputTruncation && input.value("synthesisMaxIsl") !== undefined) {
    violations.push({
      flag: "--synthesis-max-isl",
      got: input.value("synthesisMaxIsl"),
      required: undefined,
      why: `${s} forbids client-side input truncation; --synthesis-max-isl drops the traces above the cap`,
    });
  }

  violations.push(...loaderViolations(spec, input));

  if (spec.requireCacheBust !== undefined) {
    const target = (input.value("cacheBust") as string | undefined) ?? "none";
    if (target !== spec.requireCacheBust) {
      if (input.given("cacheBust")) {
        violations.push({
          flag: "--cache-bust",
          got: target,
          required: spec.requireCacheBust,
          why: `${s} requires cache_bust.target=${spec.requireCacheBust}; got ${target}`,
        });
      } else fills.cacheBust = spec.requireCacheBust;
    }
  }

  let duration = input.value("benchmarkDuration") as number | undefined;
  if (duration === undefined && spec.defaultDurationS !== undefined) {
    duration = spec.defaultDurationS;
    fills.benchmarkDuration = duration;
  }
  if ((duration ?? 0) < spec.minDurationS) {
    violations.push({
      flag: "--benchmark-duration",
      got: duration ?? 0,
      required: `>=${spec.minDurationS}`,
      why: `${s} requires duration >= ${spec.minDurationS}s to reach steady state and trigger KV offloading`,
    });
  }

  if (spec.defaultStartMinRatio !== undefined && !input.given("trajectoryStartMinRatio")) {
    fills.trajectoryStartMinRatio = spec.defaultStartMinRatio;
  }
  if (spec.defaultStartMaxRatio !== undefined && !input.given("trajectoryStartMaxRatio")) {
    fills.trajectoryStartMaxRatio = spec.defaultStartMaxRatio;
  }

  if (spec.forbidInterTurnDelayCap && input.value("interTurnDelayCapSeconds") !== undefined) {
    violations.push({
      flag: "--inter-turn-delay-cap-seconds",
      got: input.value("interTurnDelayCapSeconds"),
      required: undefined,
      why: `${s} preserves original inter-turn timing and forbids a per-turn delay cap`,
    });
  }
  if (spec.forbidTraceIdleGapCap && input.value("traceIdleGapCapSeconds") !== undefined) {
    violations.push({
      flag: "--trace-idle-gap-cap-seconds",
      got: input.value("traceIdleGapCapSeconds"),
      required: undefined,
      why: `${s} preserves original per-trace request timing and forbids timeline compression`,
    });
  }

  if (spec.systemIdleGapCapS !== undefined) {
    const cap = input.value("systemIdleGapCapSeconds");
    if (input.given("systemIdleGapCapSeconds") && cap !== spec.systemIdleGapCapS) {
      violations.push({
        flag: "--system-idle-gap-cap-seconds",
        got: cap,
        required: spec.systemIdleGapCapS,
        why: `${s} limits only globally idle replay time to ${spec.systemIdleGapCapS} seconds`,
      });
    } else fills.systemIdleGapCapSeconds = spec.systemIdleGapCapS;
  }

  const lines = violations.map((v) => `${v.flag}: got ${text(v.got)}, required ${text(v.required)} (${v.why})`);
  if (violations.some((v) => v.hard === true)) {
    return {
      fills,
      problems: [
        `Scenario invariants violated (${plural(violations.length)}):\n  - ${lines.join("\n  - ")}\nThese violations ` +
        "cannot be bypassed with --unsafe-override. Provide --public-dataset (e.g. semianalysis_cc_traces_weka_062126) " +
        "or --hf-weka-dataset semianalysisai/cc-traces-weka-062126.",
      ],
      warnings: [],
    };
  }
  if (violations.length > 0 && input.value("unsafeOverride") !== true) {
    return {
      fills,
      problems: [
        `Scenario invariants violated (${plural(violations.length)}):\n  - ${lines.join("\n  - ")}\nPass ` +
        "--unsafe-override to convert to warnings (the run is then not a valid submission).",
      ],
      warnings: [],
    };
  }
  return { fills, problems: [], warnings: lines.map((line) => `Scenario violation (override active): ${line}`) };
}

function plural(n: number): string {
  return `${n} conflict${n === 1 ? "" : "s"}`;
}

function falsy(value: unknown): boolean {
  if (typeof value === "boolean") return !value;
  if (typeof value === "string") return ["false", "0", "no"].includes(value.trim().toLowerCase());
  if (typeof value === "number") return value === 0;
  return false;
}

/** The dataset must be the scenario's traces: a pinned public dataset (a local file cannot prove its corpus). */
function loaderViolations(spec: ScenarioSpec, input: ScenarioInput): Violation[] {
  const s = `scenario '${spec.name}'`;
  const display = spec.loaders.length === 1 ? spec.loaders[0] : `any of [${[...spec.loaders].sort().join(", ")}]`;
  const publicDataset = input.value("publicDataset") as string | undefined;
  const hfWeka = input.value("hfWekaDataset") as string | undefined;
  const file = input.value("inputFile") as string | undefined;
  const type = input.value("customDatasetType") as string | undefined;
  const detected = hfWeka !== undefined
    ? "weka_hf"
    : publicDataset ?? (file !== undefined ? type ?? "weka_trace" : undefined);
  if (detected === undefined) {
    return [{
      flag: "--input-file (loader)",
      got: "synthetic",
      required: display,
      why: `${s} requires loader=${display}; got synthetic (the default when --public-dataset / --input-file is ` +
        "omitted). --unsafe-override cannot bypass a missing weka loader",
      hard: true,
    }];
  }
  const found: Violation[] = [];
  if (!spec.loaders.includes(detected)) {
    found.push({
      flag: "--input-file (loader)",
      got: detected,
      required: display,
      why: `${s} requires loader=${display}`,
    });
  }
  if (spec.pinnedWekaRepo !== undefined && detected === "weka_trace") {
    found.push({
      flag: "--custom-dataset-type / --input-file",
      got: "weka_trace (local, unpinned)",
      required: `pinned --public-dataset alias or --hf-weka-dataset ${spec.pinnedWekaRepo}`,
      why: `${s} cannot verify corpus identity for a local weka_trace file; use a with-subagents --public-dataset ` +
        `alias or --hf-weka-dataset ${spec.pinnedWekaRepo}, or pass --unsafe-override for offline smoke tests`,
    });
  }
  if (spec.pinnedWekaRepo !== undefined && detected === "weka_hf" && hfWeka !== spec.pinnedWekaRepo) {
    found.push({
      flag: "--hf-weka-dataset",
      got: hfWeka,
      required: spec.pinnedWekaRepo,
      why: `${s} only allows --public-dataset weka_hf with hf_weka_dataset=${spec.pinnedWekaRepo}`,
    });
  }
  return found;
}
