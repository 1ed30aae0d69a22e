/**
 * `infermeter profile`: parses the arguments, owns the process's signals, runs the profile (src/run/) and turns
 * its outcome into an exit code — the only place that does (see exit_codes.ts).
 */
import { ConfigError } from "../config/config_error.ts";
import { isHelpRequest, parseProfileArgs, profileHelp } from "../config/parse_profile_args.ts";
import { Logger, STDERR_SINK } from "../ui/logger.ts";
import { runProfileRun } from "../run/profile_run.ts";
import { InputError } from "../base/input_error.ts";
import type { MultiRunEnd, ParsedPoint } from "../run/sweep.ts";
import { isSweep, planSweep, type SweepPlan, withOptionValues } from "../run/sweep_plan.ts";
import { expandSearchRecipe, type SearchSpec } from "../config/search_recipes.ts";
import type { OptionKey } from "../config/option_table.ts";
import { PROBE_OPTION_KEYS } from "../config/search_space.ts";
import type { ProbeValues, SearchEnd } from "../run/search/run_search.ts";
import { EXIT, type ExitCode } from "./exit_codes.ts";
import { PROFILE_EXIT } from "./profile_exit.ts";

export interface RunProfileOptions {
  /** Stops the run like Ctrl-C does (used by `demo`, which owns the process's signal handling). */
  readonly signal?: AbortSignal;
}

/** Sweeps and repeated runs: a failed point fails the command, after the others ran. */
const MULTI_EXIT_OF: Readonly<Record<MultiRunEnd, ExitCode>> = {
  completed: EXIT.OK,
  partial: EXIT.REQUESTS_FAILED,
  all_failed: EXIT.REQUESTS_FAILED,
  cancelled: EXIT.INTERRUPTED,
};

/** A search answers even when its highest probes fail: only no probe at all, or an unreachable server, fails it. */
const SEARCH_EXIT_OF: Readonly<Record<SearchEnd, ExitCode>> = {
  completed: EXIT.OK,
  all_failed: EXIT.REQUESTS_FAILED,
  unreachable: EXIT.UNREACHABLE,
  cancelled: EXIT.INTERRUPTED,
};

export async function runProfile(args: string[], options: RunProfileOptions = {}): Promise<number> {
  if (isHelpRequest(args)) {
    console.log(profileHelp({ argv: args }));
    return EXIT.OK;
  }
  const isTty = Deno.stderr.isTerminal();
  let plan: SweepPlan;
  let points: ParsedPoint[];
  let search: SearchSpec | undefined;
  const io = { env: Deno.env.toObject(), readTextFile: Deno.readTextFileSync, isTty };
  try {
    // List values (--concurrency 1,4,16) make a sweep; every point is parsed before anything is sent.
    plan = planSweep(args);
    points = [];
    for (const point of plan.points) {
      const parsed = await parseProfileArgs([...point.args], io);
      points.push({ label: point.label, values: point.values, parsed });
    }
    search = expandSearchRecipe(points[0].parsed.config, searchConcurrencies(plan, points[0].parsed.config));
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`error: ${err.message}`);
      return EXIT.USAGE;
    }
    throw err;
  }
  const parsed = points[0].parsed;
  const logger = new Logger(parsed.config.logLevel, STDERR_SINK);
  for (const w of parsed.warnings) logger.warning(w);
  const signals = options.signal === undefined ? interruptSignal() : undefined;
  try {
    const run = { logger, isTty, stop: options.signal ?? signals?.signal };
    if (search !== undefined) {
      const spec = search;
      const parseProbe = (v: ProbeValues) => parseProfileArgs(withOptionValues(args, probeOptions(spec, v)), io);
      // Searches load their modules (the sweep's and its report's) only when asked for.
      const { runSearch } = await import("../run/search/run_search.ts");
      return SEARCH_EXIT_OF[(await runSearch({ spec, parsed, parseProbe }, run)).end];
    }
    if (isSweep(plan) || parsed.config.numProfileRuns > 1) {
      // Sweeps and repeated runs load their modules (and the sweep report's) only when asked for.
      const { runMultiProfile } = await import("../run/sweep.ts");
      return MULTI_EXIT_OF[(await runMultiProfile(plan, points, run)).end];
    }
    const outcome = await runProfileRun(parsed, run);
    return PROFILE_EXIT[outcome.end];
  } catch (err) {
    if (err instanceof InputError) {
      logger.error(err.message);
      return EXIT.USAGE;
    }
    logger.error(`internal error: ${(err as Error).message}`);
    if (err instanceof Error && err.stack) logger.debug(err.stack);
    return EXIT.INTERNAL;
  } finally {
    signals?.dispose();
  }
}

/**
 * The concurrency list a recipe may take (pareto-sweep's `--concurrency 1,4,16`); any other list beside a recipe is a
 * usage error, since the recipe chooses the load itself.
 */
function searchConcurrencies(
  plan: SweepPlan,
  config: { readonly searchRecipe?: string; readonly searchSpace: readonly string[] },
): readonly number[] | undefined {
  if (plan.type === "scenarios" && config.searchRecipe !== undefined) {
    throw new ConfigError([
      `--variant declares the sweep's points and --search-recipe ${config.searchRecipe} chooses them itself; ` +
      "drop one of them.",
    ]);
  }
  if (config.searchSpace.length > 0 && isSweep(plan)) {
    throw new ConfigError([
      "--search-space chooses the values it probes; it is mutually exclusive with list values (--concurrency " +
      "10,20,30) and --variant: give one value or drop it.",
    ]);
  }
  if (config.searchRecipe === undefined || plan.parameters.length === 0) return undefined;
  const list = plan.parameters[0];
  if (config.searchRecipe === "pareto-sweep" && plan.parameters.length === 1 && list.name === "concurrency") {
    return list.values;
  }
  throw new ConfigError([
    `--search-recipe ${config.searchRecipe} chooses the load itself; ${
      plan.parameters.map((p) => `${p.flag} ${p.values.join(",")}`).join(" and ")
    } would make a sweep of its own: give one value or drop it` +
    (config.searchRecipe === "pareto-sweep" ? " (pareto-sweep takes a --concurrency list only)." : "."),
  ]);
}

/** The options one probe sets: its values (load, shape, searched dimensions), and the goodput recipe's SLOs. */
function probeOptions(spec: SearchSpec, v: ProbeValues): { key: OptionKey; value: string }[] {
  const set: { key: OptionKey; value: string }[] = [];
  for (const [name, value] of Object.entries(v)) {
    const key = PROBE_OPTION_KEYS[name] as OptionKey | undefined;
    if (key === undefined) throw new InputError(`a search probe sets '${name}', which no profile option takes`);
    set.push({ key, value: String(value) });
  }
  if (spec.slos !== undefined) {
    set.push({ key: "goodput", value: spec.slos.map((s) => `${s.tag}:${s.value}`).join(" ") });
  }
  return set;
}

/**
 * Ctrl-C once (or SIGTERM: kill, container stop, CI timeout): stop issuing, cancel in-flight requests, export
 * what we have. Twice: leave now. Windows has no SIGTERM listener.
 */
function interruptSignal(): { signal: AbortSignal; dispose: () => void } {
  const stop = new AbortController();
  const names: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  const onSignal = () => {
    if (stop.signal.aborted) Deno.exit(EXIT.INTERRUPTED);
    stop.abort();
  };
  for (const name of names) Deno.addSignalListener(name, onSignal);
  return { signal: stop.signal, dispose: () => names.forEach((name) => Deno.removeSignalListener(name, onSignal)) };
}
