/**
 * A profile run, from parsed options to written exports, in four steps: `planRun` (everything that can fail on
 * input; nothing sent), `openRun` (the resources the run holds, released on one path) and its server probes,
 * `executeRun` (records on the bus to their sinks), `publishRun` (summaries, outputs, console). Returns what
 * happened; the CLI alone turns that into an exit code.
 */
import type { ParsedProfile } from "../config/parse_profile_args.ts";
import { discoverModels } from "../engine/prepare_server.ts";
import type { ProfileOutcome } from "./run_outcome.ts";
import { resolveArtifactDir } from "../export/artifact_paths.ts";
import type { Logger } from "../ui/logger.ts";
import { VERSION } from "../base/version.ts";
import { InterruptedError } from "../base/interrupted_error.ts";
import type { CollectOptions } from "./collect_records.ts";
import type { LiveRun } from "./live_run.ts";
import type { RecordSink } from "./record_sink.ts";
import { resolveEndpoint, serverOptions } from "./resolve_endpoint.ts";
import { planRun } from "./plan_run.ts";
import { openRun, probeServers } from "./open_run.ts";
import { executeRun } from "./execute_run.ts";
import { publishRun, publishUnstarted } from "./publish_run.ts";

export type { ProfileEnd, ProfileOutcome } from "./run_outcome.ts";

export interface ProfileRunOptions {
  readonly logger: Logger;
  readonly isTty: boolean;
  /** Stops the run the way Ctrl-C does: partial results are written. */
  readonly stop?: AbortSignal;
  /** Called with the live view before anything is sent (an HTTP API, a dashboard). */
  readonly onLive?: (live: LiveRun) => void;
  /** Further record consumers. */
  readonly sinks?: readonly RecordSink[];
  /** Where the console tables go (stdout). @default console.log */
  readonly print?: (text: string) => void;
  /**
   * What is printed: the whole console text, or only its headline block (a sweep's points; the console file keeps
   * the whole text). @default "full"
   */
  readonly printed?: "full" | "headline";
  /**
   * What produces the records (collect_records.ts). With one, the servers are reached by it, not by this
   * process: no readiness wait, model discovery or reachability check here (`--model` must be given).
   */
  readonly engine?: CollectOptions["engine"];
}

/**
 * Runs a parsed profile: plan → open → probe → execute → publish. Throws InputError / DatasetError for input found bad
 * before anything is sent; whatever happens after the run is open, its resources are released on the one path.
 */
export async function runProfileRun(parsed: ParsedProfile, o: ProfileRunOptions): Promise<ProfileOutcome> {
  const { logger, stop } = o;
  logger.info(`Starting infermeter ${VERSION}`);
  logger.debug(`command: ${parsed.redactedCommand}`);
  const endpoint = await resolveEndpoint(parsed);
  // With a caller's engine (`kube run`), the servers are reached by it, not by this process.
  const local = o.engine === undefined;
  const models = local
    ? await discoverModels(endpoint.probe, serverOptions(endpoint, parsed.config.modelNames, logger, stop))
    : { ok: true as const, modelNames: parsed.config.modelNames };
  if (!models.ok) {
    if (models.cancelled) logger.warning(models.message);
    else logger.error(models.message);
    return {
      end: models.cancelled ? "interrupted_before_start" : "unreachable",
      artifactDir: resolveArtifactDir(parsed.config),
    };
  }
  const plan = await planRun(endpoint, { logger, modelNames: models.modelNames, signal: stop }).catch((err) => {
    if (err instanceof InterruptedError) return undefined;
    throw err;
  });
  if (plan === undefined) {
    logger.warning("Interrupted before the benchmark started; nothing was sent.");
    return { end: "interrupted_before_start", artifactDir: resolveArtifactDir(parsed.config) };
  }
  await using run = await openRun(plan, { logger, stop });
  const probed = local
    ? await probeServers(plan, run, { logger, stop, discovered: parsed.config.modelNames.length === 0 })
    : { ok: true as const };
  if (probed.ok && stop?.aborted) logger.warning("Interrupted before the benchmark started; nothing was sent.");
  if (!probed.ok || stop?.aborted) {
    await publishUnstarted(plan, run);
    return { end: probed.ok ? "interrupted_before_start" : probed.end, artifactDir: plan.dir };
  }
  const executed = await executeRun(plan, run, o);
  return await publishRun(plan, run, executed, o);
}
