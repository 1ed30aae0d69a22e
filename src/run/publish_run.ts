/**
 * Step 4 of a profile run: the summary over the profiling window, the client's own facts, the telemetry summaries,
 * then every output in order through one guard (a full disk loses that file only, exit 4), the console text printed,
 * and how the run ended. Also after Ctrl-C or a failure gate: partial results are always written.
 */
import { VERSION } from "../base/version.ts";
import type { RunSummary } from "../metrics/run_summary.ts";
import { REPLAY_SCHED_DEGRADED_THRESHOLD_MS } from "../metrics/metric_defs.ts";
import { type SummaryJsonInfo, summaryJsonObject } from "../export/json_export.ts";
import { type Logger, sinceStart } from "../ui/logger.ts";
import { finishTelemetry, type TelemetryResult } from "./telemetry_session.ts";
import { type ClientFacts, clientFacts } from "./client_facts.ts";
import { describeLostShards } from "../engine/coordinate_shards.ts";
import { buildResultView, clientVerdicts, streamingVerdict, viewMetricsOf } from "../metrics/result_view.ts";
import { evaluateThresholds, thresholdsJson, thresholdVerdict } from "../report/run_thresholds.ts";
import { type ConsoleMode, notWrittenLine, renderConsole } from "./run_console.ts";
import type { UnwrittenFile } from "./unwritten_file.ts";
import type { ExecutedRun } from "./execute_run.ts";
import type { OpenRun } from "./open_run.ts";
import type { RunPlan } from "./plan_run.ts";
import type { OutputFile, PublishContext } from "./outputs/output.ts";
import { GuardedWriter } from "./outputs/output_writer.ts";
import type { ProfileEnd, ProfileOutcome } from "./run_outcome.ts";

export interface PublishOptions {
  readonly stop?: AbortSignal;
  /** Where the console text goes. @default console.log */
  readonly print?: (text: string) => void;
  /** The whole console text, or only its headline block. @default "full" */
  readonly printed?: "full" | "headline";
}

export async function publishRun(
  plan: RunPlan,
  run: OpenRun,
  executed: ExecutedRun,
  o: PublishOptions,
): Promise<ProfileOutcome> {
  const { logger } = run;
  logger.debug(`publishing ${sinceStart()}, ${rssNote()}`);
  // Throughputs divide by the profiling phase's window (phase start → last response), as AIPerf 0.13 does.
  const window = executed.startEpochMs !== undefined && executed.endEpochMs !== undefined
    ? { start: executed.startEpochMs, end: executed.endEpochMs }
    : undefined;
  const summary = executed.metrics.profiling.summarize({
    observationSec: window === undefined ? undefined : (window.end - window.start) / 1000,
    windowEpochMs: window,
  });
  logger.debug(`summarized ${sinceStart()}, ${rssNote()}`);
  warnIfReplayDegraded(summary, logger);
  const client = clientFacts(plan, run, executed, summary, logger);
  logger.debug(`client facts ${sinceStart()}, ${rssNote()}`);
  const width = plan.config.consoleWidth ??
    (Deno.stdout.isTerminal() ? Math.max(80, Deno.consoleSize().columns) : 140);
  const windowEndMs = executed.endEpochMs ?? Date.now();
  const telemetry: TelemetryResult | undefined = run.telemetry === undefined
    ? undefined
    : await finishTelemetry(run.telemetry, {
      window: { startMs: executed.startEpochMs ?? windowEndMs, endMs: windowEndMs },
      benchmarkId: executed.benchmarkId,
      infermeterVersion: VERSION,
      inputConfig: plan.inputConfig,
      outputTokens: summary.metrics.find((m) => m.tag === "total_osl")?.value,
      maxWidth: width,
      sliceDurationMs: plan.config.sliceDuration === undefined ? undefined : plan.config.sliceDuration * 1000,
    });
  const { view, thresholds } = judgedView(plan, summary, client);
  const info: SummaryJsonInfo = {
    infermeterVersion: VERSION,
    benchmarkId: executed.benchmarkId,
    startTimeMs: executed.startEpochMs,
    endTimeMs: executed.endEpochMs,
    wasCancelled: executed.cancelled,
    inputConfig: plan.inputConfig,
    runInfo: { randomSeed: plan.workload.seed, cliCommand: plan.cliCommand, server: run.identity },
    warmup: executed.metrics.warmup?.summarize(),
    infermeter: client.json,
    telemetryData: telemetry?.telemetryData,
    incompleteReason: executed.cancelled
      ? "cancelled"
      : executed.thresholdExceeded
      ? "failed_request_threshold"
      : executed.serverGone
      ? "server_gone"
      : executed.warmupFailed
      ? "warmup_failed"
      : executed.thresholdAborted
      ? "threshold_abort"
      : (executed.outcome?.lostShards?.length ?? 0) > 0
      ? "shards_lost"
      : undefined,
    ...(thresholds.length === 0 ? {} : { thresholds: thresholdsJson(thresholds) }),
  };
  const results = { summary, info, telemetry };
  const renderMode = (
    written: readonly OutputFile[],
    unwritten: readonly UnwrittenFile[],
    base: PublishContext,
    mode: ConsoleMode,
  ) =>
    renderConsole({
      view,
      summary,
      metricsTitle: plan.endpoint.adapter.capabilities.metricsTitle,
      what: runDescription(plan),
      cliCommand: plan.cliCommand,
      cancelled: executed.cancelled,
      exports: footerOrder(written),
      client: client.overhead,
      sections: plan.outputs.flatMap((out) => {
        const text = out.console?.(base, width);
        return text === undefined ? [] : [{ text, compact: out.compactConsole === true }];
      }),
      width,
      unwritten,
    }, mode);
  // The console file keeps every table (AIPerf's alone with --console aiperf); the terminal shows --console's choice.
  const fileMode: ConsoleMode = plan.config.console === "aiperf" ? "aiperf" : "full";
  let printed: (() => string) | undefined;
  const render = (written: readonly OutputFile[], unwritten: readonly UnwrittenFile[], base: PublishContext) => {
    printed = () => renderMode(written, unwritten, base, plan.config.console);
    return renderMode(written, unwritten, base, fileMode);
  };
  const written = await writeOutputs(plan, run, executed.outputSinks, results, render);
  const { unwritten } = written;
  const consoleText = written.consoleText!;
  const shownText = plan.config.console === fileMode ? consoleText : printed!();
  const consoleUnwritten = unwritten.find((u) => u.label === "Console Export");
  const shown = o.printed === "headline"
    ? `${shownText.slice(0, shownText.indexOf("\n\n"))}\n  Results: ${plan.dir}/`
    : shownText;
  (o.print ?? console.log)(consoleUnwritten === undefined ? shown : `${shown}\n${notWrittenLine(consoleUnwritten)}`);
  const end = runEnd(executed, summary, unwritten, thresholds.filter((t) => !t.ok).length, logger);
  logger.info(`Results saved to: ${plan.dir}/`);
  // A first load of a tokenizer.json on this machine was a quick start; build and cache its full tables now, with
  // the results written and nothing being measured, so that later runs read them.
  if (plan.loadedTokenizer?.persist !== undefined && !o.stop?.aborted) {
    const persistStart = performance.now();
    await plan.loadedTokenizer.persist();
    logger.debug(`tokenizer tables cached (${(performance.now() - persistStart).toFixed(0)} ms)`);
  }
  run.api?.finish(summaryJsonObject(summary, info), executed.cancelled);
  return { end, consoleText, artifactDir: plan.dir, summary, unwritten };
}

/**
 * Every output in order through one guard. The outputs that show the console text get it rendered once, just
 * before the first of them, with the files written so far and the ones still to come listed in its footer.
 */
export async function writeOutputs(
  plan: RunPlan,
  run: OpenRun,
  sinks: ExecutedRun["outputSinks"],
  results: PublishContext["results"],
  render?: (written: readonly OutputFile[], unwritten: readonly UnwrittenFile[], ctx: PublishContext) => string,
): Promise<{ consoleText?: string; unwritten: readonly UnwrittenFile[] }> {
  const writer = new GuardedWriter(run.logger);
  const shared = new Map<string, unknown>();
  let consoleText: string | undefined;
  const context = (sink?: PublishContext["sink"]): PublishContext => ({
    config: plan.config,
    paths: plan.paths,
    results,
    conversations: plan.workload.conversations,
    sink,
    consoleText,
    written: writer.written,
    unwritten: writer.unwritten,
    log: { path: run.logPath, failure: run.logFile.failure },
    timeOriginMs: performance.timeOrigin,
    shared,
    outputs: plan.outputs,
    benchmarkId: plan.benchmarkId,
    logger: run.logger,
  });
  for (let i = 0; i < plan.outputs.length; i++) {
    const output = plan.outputs[i];
    if (render !== undefined && output.showsConsole && consoleText === undefined) {
      const ahead = plan.outputs.slice(i).flatMap((later) => later.files(plan.paths));
      consoleText = render([...writer.written, ...ahead], writer.unwritten, context());
    }
    await output.finish(context(sinks.get(output)), writer);
    run.logger.debug(`output ${output.name} written ${sinceStart()}, ${rssNote()}`);
  }
  if (render !== undefined) consoleText ??= render(writer.written, writer.unwritten, context());
  return { consoleText, unwritten: writer.unwritten };
}

/** The process's resident memory now, for the log's account of where a run's end spends it. */
function rssNote(): string {
  return `rss ${(Deno.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`;
}

/** The run's result view, with its verdicts: the thresholds first, then the client's own. */
function judgedView(plan: RunPlan, summary: RunSummary, client: ClientFacts) {
  const metrics = viewMetricsOf(summary);
  const requests = { ok: summary.successCount, errors: summary.errorCount };
  const plain = buildResultView(metrics, { requests });
  const thresholds = evaluateThresholds(plan.endpoint.thresholds, plain);
  const streaming = streamingVerdict(plain);
  const view = buildResultView(metrics, {
    requests,
    verdicts: [
      ...thresholds.map(thresholdVerdict),
      ...(streaming === undefined ? [] : [streaming]),
      ...clientVerdicts({
        ...(client.load.targetRate === null
          ? {}
          : { scheduleHeld: client.load.warning === undefined, scheduleWarning: client.load.warning }),
        latenessP99Ms: summary.scheduleLatenessMs?.p99,
        cpuPercentOfCore: client.overhead?.percentOfCore,
        cpuOverThresholdPercent: client.overhead?.overThresholdPercent,
      }),
    ],
  });
  return { view, thresholds };
}

/** `chat streaming · m · concurrency 4`: what ran, for the headline. */
function runDescription(plan: RunPlan): string {
  const { config } = plan;
  const load = [
    config.concurrency === undefined ? undefined : `concurrency ${config.concurrency}`,
    config.requestRate === undefined ? undefined : `${config.requestRate} req/s`,
  ].filter((x) => x !== undefined);
  return [
    `${config.endpointType}${plan.endpoint.streaming ? " streaming" : ""}`,
    config.modelNames.join(","),
    ...load,
  ].join(" · ");
}

/** The footer lists files in AIPerf's order (CSV, JSON, records, server metrics), then infermeter's own. */
const FOOTER_ORDER: readonly OutputFile["role"][] = [
  "summary_csv",
  "summary_json",
  "records_jsonl",
  "raw_jsonl",
  "server_metrics_csv",
  "server_metrics_json",
  "timeslices_csv",
  "timeslices_json",
  "inputs_json",
  "report_html",
  "console_txt",
  "log",
];

function footerOrder(files: readonly OutputFile[]): OutputFile[] {
  const rank = (f: OutputFile) => {
    const i = FOOTER_ORDER.indexOf(f.role);
    return i < 0 ? FOOTER_ORDER.length : i;
  };
  return files.filter((f) => f.role !== "other").sort((a, b) => rank(a) - rank(b));
}

/** How the run ended; missing results outrank a failed run (its numbers are what is missing), not a cancelled one. */
function runEnd(
  executed: ExecutedRun,
  summary: RunSummary,
  unwritten: readonly UnwrittenFile[],
  thresholdsFailed: number,
  logger: Logger,
): ProfileEnd {
  let end: ProfileEnd = "completed";
  const lost = executed.outcome?.lostShards ?? [];
  if (executed.thresholdAborted !== undefined) {
    logger.error(executed.thresholdAborted);
    end = "thresholds_failed";
  } else if (executed.cancelled) {
    logger.warning("Benchmark cancelled early; partial results were written.");
    end = "cancelled";
  } else if (executed.thresholdExceeded) {
    logger.error(executed.thresholdExceeded);
    end = "threshold_exceeded";
  } else if (executed.serverGone) {
    logger.error(executed.serverGone);
    end = "server_gone";
  } else if (executed.warmupFailed) {
    logger.error(executed.warmupFailed);
    end = "warmup_failed";
  } else if (summary.successCount === 0) {
    logger.error(`all ${summary.errorCount} requests failed; see the error summary above.`);
    end = "all_failed";
  } else if (lost.length > 0) {
    logger.error(describeLostShards(lost, executed.outcome?.shardCount ?? lost.length));
    end = "shards_lost";
  } else if (thresholdsFailed > 0) {
    logger.error(`${thresholdsFailed} threshold${thresholdsFailed === 1 ? "" : "s"} failed (marked ✗ above).`);
    end = "thresholds_failed";
  }
  if (unwritten.length > 0 && end !== "cancelled") {
    logger.error(
      `${unwritten.length} result file${unwritten.length === 1 ? "" : "s"} could not be written (listed above); ` +
        "free space or fix the directory and run again.",
    );
    end = "results_unwritten";
  }
  if (end === "completed") logger.info("Benchmark completed successfully");
  return end;
}

/** AIPerf warns once when a replay could not keep to its schedule (anchored p99 lag over the threshold). */
function warnIfReplayDegraded(summary: RunSummary, logger: Logger): void {
  const value = (tag: string) => summary.metrics.find((r) => r.tag === tag)?.value;
  if (value("replay_sched_degraded") !== 1) return;
  const lag = (q: number) => value(`replay_sched_lag_p${q}`)?.toFixed(1);
  logger.warning(
    `the trace replay fell behind its schedule: send lag p50 ${lag(50)} ms, p90 ${lag(90)} ms, p99 ${lag(99)} ms ` +
      `(over ${REPLAY_SCHED_DEGRADED_THRESHOLD_MS} ms), so latencies and concurrency no longer reflect the ` +
      "recorded arrivals; use more --workers or a bigger client machine.",
  );
}

/**
 * A run that sent nothing (unreachable, interrupted before the start) still leaves what it planned to send
 * (`inputs.json`), its log and a manifest; the log says why it stopped.
 */
export async function publishUnstarted(plan: RunPlan, run: OpenRun): Promise<void> {
  await writeOutputs(plan, run, new Map(), undefined);
}
