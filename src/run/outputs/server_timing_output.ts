/**
 * `server_timing_split.json`: where the time went, per the server's own per-request timings (llama.cpp `timings`,
 * TGI and OpenAI headers, SGLang `meta_info`) beside the client's measurements; only when some request carried one.
 */
import {
  readServerTimingSplit,
  SERVER_TIMING_SPLIT_FILE,
  type ServerTimingSplit,
  serverTimingSplitJson,
  serverTimingSplitSections,
  serverTimingSplitTable,
} from "../../report/server_timing_split.ts";
import { errorReason } from "../unwritten_file.ts";
import type { Output } from "./output.ts";

export const SERVER_TIMING_OUTPUT: Output = {
  name: "server_timing_split",
  description: "server_timing_split.json: TTFT and decode split by the server's own per-request timings",
  enabled: (config) => config.exportLevel !== "summary",
  files: () => [],
  compactConsole: true,
  async finish(ctx, writer) {
    const records = ctx.written.find((f) => f.role === "records_jsonl");
    if (ctx.results === undefined || records === undefined) return;
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
      ctx.shared.set(SERVER_TIMING_OUTPUT.name, split);
    }
  },
  console(ctx) {
    const split = ctx.shared.get(SERVER_TIMING_OUTPUT.name) as ServerTimingSplit | undefined;
    return split === undefined ? undefined : serverTimingSplitTable(split);
  },
  report(ctx) {
    const split = ctx.shared.get(SERVER_TIMING_OUTPUT.name) as ServerTimingSplit | undefined;
    return split === undefined ? [] : serverTimingSplitSections(split);
  },
};
