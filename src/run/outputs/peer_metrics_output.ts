/**
 * `peer_metrics.json` (`--peer-metrics`): the run as other tools would report it, each with its own definitions,
 * from the per-request records just written; its table on the console and its section in report.html. The peers'
 * modules load only when a run asks for them.
 */
import type { PeerMetricsResult } from "../../report/peers/peer_metrics.ts";
import type { HtmlSection } from "../../report/report_html.ts";
import { PEER_METRICS_FILE } from "../../report/peers/peer_metrics_file.ts";
import { errorReason } from "../unwritten_file.ts";
import type { Output } from "./output.ts";

/** What `finish` leaves for the console and report sections: the result and how to show it (loaded with it). */
interface Shown {
  readonly result: PeerMetricsResult;
  readonly table: (result: PeerMetricsResult) => string;
  readonly sections: (result: PeerMetricsResult) => HtmlSection[];
}

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
    const [{ selectPeers }, { computePeerMetrics, peerConsoleTable, peerMetricsJson }, { readPeerRecords }, {
      peerMetricsSections,
    }] = await Promise.all([
      import("../../report/peers/peer_registry.ts"),
      import("../../report/peers/peer_metrics.ts"),
      import("../../report/peers/peer_records.ts"),
      import("../../report/peers/peer_metrics_section.ts"),
    ]);
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
      ctx.shared.set(
        PEER_METRICS_OUTPUT.name,
        { result, table: peerConsoleTable, sections: peerMetricsSections } satisfies Shown,
      );
    }
  },
  console(ctx) {
    const shown = ctx.shared.get(PEER_METRICS_OUTPUT.name) as Shown | undefined;
    return shown === undefined ? undefined : shown.table(shown.result);
  },
  report(ctx) {
    const shown = ctx.shared.get(PEER_METRICS_OUTPUT.name) as Shown | undefined;
    return shown === undefined ? [] : shown.sections(shown.result);
  },
};
