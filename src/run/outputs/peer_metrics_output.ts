/**
 * `peer_metrics.json` (`--peer-metrics`): the run as other tools would report it, each with its own definitions,
 * from the per-request records just written; its table on the console and its section in report.html.
 */
import { selectPeers } from "../../report/peers/peer_registry.ts";
import {
  computePeerMetrics,
  peerConsoleTable,
  peerMetricsJson,
  type PeerMetricsResult,
} from "../../report/peers/peer_metrics.ts";
import { readPeerRecords } from "../../report/peers/peer_records.ts";
import { peerMetricsSections } from "../../report/peers/peer_metrics_section.ts";
import { PEER_METRICS_FILE } from "../../report/peers/write_peer_metrics.ts";
import { errorReason } from "../unwritten_file.ts";
import type { Output } from "./output.ts";

export const PEER_METRICS_OUTPUT: Output = {
  name: "peer_metrics",
  description: "peer_metrics.json: the run as vLLM, SGLang, GuideLLM, LLMPerf or genai-perf would report it",
  enabled: (config) => config.peerMetrics.length > 0 && config.exportLevel !== "summary",
  files: (
    paths,
  ) => [{ role: "peer_metrics_json", label: "Peer Metrics JSON", path: `${paths.dir}/${PEER_METRICS_FILE}` }],
  compactConsole: true,
  async finish(ctx, writer) {
    const records = ctx.written.find((f) => f.role === "records_jsonl");
    if (ctx.results === undefined || records === undefined) return;
    const file = PEER_METRICS_OUTPUT.files(ctx.paths)[0];
    let result: PeerMetricsResult;
    try {
      result = computePeerMetrics(
        await readPeerRecords(ctx.paths.dir, records.path),
        selectPeers(ctx.config.peerMetrics),
      );
    } catch (err) {
      writer.failed({ label: file.label, path: file.path, reason: `it could not be computed: ${errorReason(err)}` });
      return;
    }
    if (await writer.write(file, JSON.stringify(peerMetricsJson(result), null, 2) + "\n")) {
      ctx.shared.set(PEER_METRICS_OUTPUT.name, result);
    }
  },
  console(ctx) {
    const result = ctx.shared.get(PEER_METRICS_OUTPUT.name) as PeerMetricsResult | undefined;
    return result === undefined ? undefined : peerConsoleTable(result);
  },
  report(ctx) {
    const result = ctx.shared.get(PEER_METRICS_OUTPUT.name) as PeerMetricsResult | undefined;
    return result === undefined ? [] : peerMetricsSections(result);
  },
};
