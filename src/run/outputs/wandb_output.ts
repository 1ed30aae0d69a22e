/**
 * `--wandb-project`: the finished run uploaded to Weights & Biases as AIPerf 0.13 uploads it: a run (its name, the
 * run's configuration as `input_config` with the command line, tags `infermeter-<version>`, `benchmark-<id>` and
 * `--wandb-tag`s), a `summary_metrics` table of the console's metrics (Metric, avg, min, max, p99, p90, p50, std,
 * rounded to 2 places) in its history and summary, and the result files as an `aiperf-run` artifact named
 * `aiperf-<run id>`. After the local files are written; a failure is a warning, never a failed run.
 */
import { VERSION } from "../../base/version.ts";
import { DEFAULT_ARTIFACT_GLOBS, globFiles } from "../../export/artifact_glob.ts";
import { failureReason, shownUrl } from "../../export/service_call.ts";
import type { ArtifactFile } from "../../export/wandb_api.ts";
import { buildResultView, viewMetricsOf } from "../../metrics/result_view.ts";
import type { Output, PublishContext, RunResults } from "./output.ts";

/** The statistics of AIPerf's console table, in its column order. */
const TABLE_STATS = ["avg", "min", "max", "p99", "p90", "p50", "std"] as const;

export const WANDB_OUTPUT: Output = {
  name: "wandb",
  description: "Weights & Biases: the run, its metrics table and its result files as an artifact (--wandb-project)",
  enabled: (config) => config.wandbProject !== undefined,
  files: () => [],
  finish: (ctx) => uploadRun(ctx),
};

/** The `summary_metrics` table: the main console table's rows, AIPerf's labels, values rounded to 2 places. */
export function metricsTable(results: RunResults): { columns: string[]; data: (string | number | null)[][] } {
  const { summary } = results;
  const view = buildResultView(viewMetricsOf(summary), {
    requests: { ok: summary.successCount, errors: summary.errorCount },
  });
  const rows = view.rows.filter((r) => r.inConsole && r.group === "llm").sort((a, b) =>
    a.displayOrder - b.displayOrder
  );
  return {
    columns: ["Metric", ...TABLE_STATS],
    data: rows.map((r) => [
      `${r.shortHeader} (${r.unit})`,
      ...TABLE_STATS.map((s) => {
        const v = r.stats[s];
        return v === undefined || !Number.isFinite(v) ? null : Math.round(v * 100) / 100;
      }),
    ]),
  };
}

async function uploadRun(ctx: PublishContext): Promise<void> {
  const { config, logger, results } = ctx;
  if (results === undefined) return; // nothing was sent: nothing to upload (AIPerf does the same)
  // Loaded on use: the client's MD5 digests bring in Node's crypto module, which every run would otherwise load.
  const { WandbClient, wandbId } = await import("../../export/wandb_api.ts");
  const client = new WandbClient(config.wandbBaseUrl, config.wandbApiKey ?? "");
  const shown = shownUrl(client.base);
  const signal = AbortSignal.timeout(config.wandbTimeout * 1000);
  const started = Date.now();
  try {
    const project = config.wandbProject!;
    const entity = config.wandbEntity ?? await client.viewerEntity(signal);
    const runId = wandbId(8);
    const displayName = config.wandbRunName ?? `infermeter-${ctx.benchmarkId.slice(0, 8)}`;
    // W&B keeps a run's configuration as {key: {value}}.
    const configuration: Record<string, unknown> = {
      ...results.info.inputConfig,
      "aiperf.cli_command": results.info.runInfo.cliCommand,
    };
    await client.upsertRun({
      runId,
      project,
      entity,
      displayName,
      config: JSON.stringify(Object.fromEntries(Object.entries(configuration).map(([k, value]) => [k, { value }]))),
      tags: [`infermeter-${VERSION}`, `benchmark-${ctx.benchmarkId.slice(0, 8)}`, ...config.wandbTags ?? []],
    }, signal);

    // The table as a run media file, named by its content as W&B names it, and referred to by history and summary.
    const table = metricsTable(results);
    const tableBytes = new TextEncoder().encode(JSON.stringify(table));
    const sha256 = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", tableBytes)))
      .map((b) => b.toString(16).padStart(2, "0")).join("");
    const tablePath = `media/table/summary_metrics_0_${sha256.slice(0, 20)}.table.json`;
    const runtime = (Date.now() - (results.info.startTimeMs ?? started)) / 1000;
    const row = {
      summary_metrics: {
        _type: "table-file",
        path: tablePath,
        sha256,
        size: tableBytes.length,
        nrows: table.data.length,
        ncols: table.columns.length,
      },
      _step: 0,
      _runtime: runtime,
      _timestamp: Date.now() / 1000,
    };
    const summaryBytes = new TextEncoder().encode(JSON.stringify(row));
    const targets = await client.runFileTargets(entity, project, runId, [tablePath, "wandb-summary.json"], signal);
    for (const target of targets) {
      await client.put(target, target.name === tablePath ? tableBytes : summaryBytes, signal);
    }
    await client.fileStream(entity, project, runId, {
      files: {
        "wandb-history.jsonl": { offset: 0, content: [JSON.stringify(row)] },
        "wandb-summary.json": { offset: 0, content: [JSON.stringify(row)] },
      },
    }, signal);

    const names = await globFiles(ctx.paths.dir, DEFAULT_ARTIFACT_GLOBS);
    const files: ArtifactFile[] = [];
    for (const name of names) files.push({ name, data: await Deno.readFile(`${ctx.paths.dir}/${name}`) });
    if (files.length > 0) {
      await client.logArtifact({ entity, project, runId, name: `aiperf-${runId}`, type: "aiperf-run", files }, signal);
    }
    await client.fileStream(entity, project, runId, {
      complete: true,
      exitcode: 0,
      uploaded: [tablePath, "wandb-summary.json"],
    }, signal);
    logger.info(
      `Uploaded the run to Weights & Biases: ${displayName} with ${files.length} files, ` +
        client.runPage(entity, project, runId),
    );
  } catch (err) {
    logger.warning(
      `the Weights & Biases upload to ${shown} failed (${failureReason(err)}); the run's local results are complete ` +
        `in ${ctx.paths.dir}.`,
    );
  }
}
