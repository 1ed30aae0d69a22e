/**
 * `server_timing_split.json`: where the time went, per the server's own per-request timings (llama.cpp `timings`,
 * TGI and OpenAI headers, SGLang `meta_info`) beside the client's measurements; only when some request carried one.
 * Its module loads when the run's results are written.
 */
import type { ServerTimingSplit } from "../../report/server_timing_split.ts";
import type { HtmlSection } from "../../report/report_html.ts";
import { errorReason } from "../unwritten_file.ts";
import type { Output } from "./output.ts";

/** What `finish` leaves for the console and report sections: the split and how to show it (loaded with it). */
interface Shown {
  readonly split: ServerTimingSplit;
  readonly table: (split: ServerTimingSplit) => string;
  readonly sections: (split: ServerTimingSplit) => HtmlSection[];
}

export const SERVER_TIMING_OUTPUT: Output = {
  name: "server_timing_split",
  description: "server_timing_split.json: TTFT and decode split by the server's own per-request timings",
  enabled: (config) => config.exportLevel !== "summary",
  files: () => [],
  compactConsole: true,
  async finish(ctx, writer) {
    const records = ctx.written.find((f) => f.role === "records_jsonl");
    if (ctx.results === undefined || records === undefined) return;
    const {
      readServerTimingSplit,
      SERVER_TIMING_SPLIT_FILE,
      serverTimingSplitJson,
      serverTimingSplitSections,
      serverTimingSplitTable,
    } = await import("../../report/server_timing_split.ts");
    const file = {
      role: "server_timing_json" as const,
      label: "Server Timing JSON",
      path: `${ctx.paths.dir}/${SERVER_TIMING_SPLIT_FILE}`,
    };
    let split: ServerTimingSplit | undefined;
    try {
      split = await readServerTimingSplit(records.path);
    } catch (err) {
      writer.failed({ label: file.label, path: file.path, reason: `it could not be computed: ${errorReason(err)}` });
      return;
    }
    if (split === undefined) return;
    if (await writer.write(file, JSON.stringify(serverTimingSplitJson(split), null, 2) + "\n")) {
      ctx.shared.set(
        SERVER_TIMING_OUTPUT.name,
        { split, table: serverTimingSplitTable, sections: serverTimingSplitSections } satisfies Shown,
      );
    }
  },
  console(ctx) {
    const shown = ctx.shared.get(SERVER_TIMING_OUTPUT.name) as Shown | undefined;
    return shown === undefined ? undefined : shown.table(shown.split);
  },
  report(ctx) {
    const shown = ctx.shared.get(SERVER_TIMING_OUTPUT.name) as Shown | undefined;
    return shown === undefined ? [] : shown.sections(shown.split);
  },
};
