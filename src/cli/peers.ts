/**
 * `infermeter peers <run-dir>`: the run as other tools would report it, from its per-request records. Reads files
 * only; writes peer_metrics.json.
 */
import { RegistryLookupError } from "../base/registry.ts";
import { ConfigError } from "../config/config_error.ts";
import { parseCommandArgs } from "../config/parse_command_args.ts";
import { isHelpRequest } from "../config/read_cli_args.ts";
import { renderHelp } from "../config/render_help.ts";
import { EXIT } from "./exit_codes.ts";
import { PEERS_COMMAND } from "./peers_command.ts";
import { ReportError } from "../report/report_error.ts";
import { selectPeers } from "../report/peers/peer_registry.ts";
import { peerMetricsJson } from "../report/peers/peer_metrics.ts";
import { writePeerMetrics } from "../report/peers/write_peer_metrics.ts";
import { writeServerTimingSplit } from "../report/server_timing_split.ts";

export async function runPeers(args: string[]): Promise<number> {
  if (isHelpRequest(args)) {
    console.log(renderHelp(PEERS_COMMAND));
    return EXIT.OK;
  }
  try {
    const parsed = parseCommandArgs(PEERS_COMMAND, args);
    if (parsed.operands.length !== 1) {
      throw new ConfigError(["give one run directory: infermeter peers <run-dir> [--peer-metrics vllm,guidellm]"]);
    }
    const peers = selectPeers(parsed.values.peerMetrics);
    const written = await writePeerMetrics(parsed.operands[0], peers, { outputPath: parsed.values.output });
    if (parsed.values.json) console.log(JSON.stringify(peerMetricsJson(written.result), null, 2));
    else console.log(written.consoleTable);
    console.error(`wrote ${written.path}`);
    // The server's own view of the same requests, when it reported one.
    const split = await writeServerTimingSplit(parsed.operands[0]);
    if (split !== undefined) {
      if (!parsed.values.json) console.log(`\n${split.consoleTable}`);
      console.error(`wrote ${split.path}`);
    }
    return EXIT.OK;
  } catch (e) {
    if (e instanceof ConfigError || e instanceof ReportError || e instanceof RegistryLookupError) {
      console.error(`error: ${e.message}`);
      return EXIT.USAGE;
    }
    throw e;
  }
}
