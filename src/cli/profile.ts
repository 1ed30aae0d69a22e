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
import { planSweep, type SweepPlan } from "../run/sweep_plan.ts";
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

export async function runProfile(args: string[], options: RunProfileOptions = {}): Promise<number> {
  if (isHelpRequest(args)) {
    console.log(profileHelp({ argv: args }));
    return EXIT.OK;
  }
  const isTty = Deno.stderr.isTerminal();
  let plan: SweepPlan;
  let points: ParsedPoint[];
  try {
    // List values (--concurrency 1,4,16) make a sweep; every point is parsed before anything is sent.
    plan = planSweep(args);
    points = [];
    for (const point of plan.points) {
      const parsed = await parseProfileArgs([...point.args], {
        env: Deno.env.toObject(),
        readTextFile: Deno.readTextFileSync,
        isTty,
      });
      points.push({ label: point.label, values: point.values, parsed });
    }
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
    if (plan.parameters.length > 0 || parsed.config.numProfileRuns > 1) {
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
