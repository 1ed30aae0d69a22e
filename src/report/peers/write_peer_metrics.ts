/**
 * Peers' metrics for a run directory: reads its `profile_export.jsonl`, applies the selected peers' definitions and
 * writes `peer_metrics.json` beside it. Used by `infermeter peers DIR` and by a profile run with `--peer-metrics`
 * once its records are written.
 */
import type { PeerDefinition } from "./peer_definition.ts";
import { computePeerMetrics, peerConsoleTable, peerMetricsJson, type PeerMetricsResult } from "./peer_metrics.ts";
import { readPeerRecords } from "./peer_records.ts";
import { ReportError } from "../report_error.ts";

import { PEER_METRICS_FILE } from "./peer_metrics_file.ts";

export { PEER_METRICS_FILE };

export interface WritePeerMetricsOptions {
  /** Where to write the JSON. @default `<dir>/peer_metrics.json` */
  readonly outputPath?: string;
}

export interface WrittenPeerMetrics {
  /** The JSON file written. */
  readonly path: string;
  /** "This run as each tool would report it", for stdout. */
  readonly consoleTable: string;
  /** The computed result (for report.html: `peerMetricsSections(result)`). */
  readonly result: PeerMetricsResult;
}

/**
 * Computes and writes the peers' metrics of the run in `dir`.
 * @throws {ReportError} when the records cannot be read or the file cannot be written (the message names the path).
 */
export async function writePeerMetrics(
  dir: string,
  peers: readonly PeerDefinition[],
  options: WritePeerMetricsOptions = {},
): Promise<WrittenPeerMetrics> {
  const set = await readPeerRecords(dir);
  const result = computePeerMetrics(set, peers);
  const path = options.outputPath ?? `${dir.replace(/\/+$/, "")}/${PEER_METRICS_FILE}`;
  try {
    await Deno.writeTextFile(path, JSON.stringify(peerMetricsJson(result), null, 2) + "\n");
  } catch (e) {
    throw new ReportError(`${path}: cannot write it (${e instanceof Error ? e.message : String(e)}).`);
  }
  return { path, consoleTable: peerConsoleTable(result), result };
}
