/** `infermeter calibrate`: reads its options and maps the report to an exit code; the method is in src/calibrate/. */
import { ConfigError } from "../config/config_error.ts";
import { parseCommandArgs } from "../config/parse_command_args.ts";
import { isHelpRequest } from "../config/read_cli_args.ts";
import { renderHelp } from "../config/render_help.ts";
import { calibrate, type CalibrateOptions } from "../calibrate/calibrate.ts";
import { startCalibrationServer } from "../calibrate/calibration_server.ts";
import { renderReport } from "../calibrate/render_report.ts";
import { CALIBRATE_COMMAND } from "./calibrate_command.ts";
import { EXIT } from "./exit_codes.ts";

/**
 * Reads the command line against `CALIBRATE_COMMAND`.
 * @throws {ConfigError} for unknown flags and invalid values, one sentence each.
 */
function parseArgs(args: string[]): CalibrateOptions {
  const { values: o, passedOn } = parseCommandArgs(CALIBRATE_COMMAND, args);
  const streams = o.streams.map((s) => {
    // The table reads the list as text; each item must be a stream count.
    const n = Number(s);
    if (s === "" || !Number.isFinite(n) || n < 1) throw new ConfigError([`--streams ${s} must be a number ≥ 1`]);
    return Math.floor(n);
  });
  return {
    streams,
    ttft: o.ttft,
    itl: o.itl,
    tokens: o.tokens,
    duration: o.duration,
    workers: o.workers,
    cpuDmaLatency: o.cpuDmaLatency,
    json: o.json,
    warmup: o.warmup,
    serverProcesses: o.serverProcesses,
    serve: o.serve,
    port: o.port,
    floorClient: o.floorClient,
    profileArgs: passedOn,
  };
}

export async function runCalibrate(args: string[]): Promise<number> {
  if (isHelpRequest(args)) {
    console.log(renderHelp(CALIBRATE_COMMAND));
    return EXIT.OK;
  }
  let opts: CalibrateOptions;
  try {
    opts = parseArgs(args);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`error: ${err.message}`);
      return EXIT.USAGE;
    }
    throw err;
  }
  if (opts.serve) return await serveOnly(opts);
  if (opts.floorClient !== undefined) {
    const { runFloorClient } = await import("../calibrate/floor_client.ts");
    await runFloorClient(opts.floorClient, opts.streams[0], opts.duration, opts.tokens);
    return EXIT.OK;
  }
  const report = await calibrate(opts, (line) => console.error(line));
  if (opts.json) console.log(JSON.stringify(report, null, 2));
  else console.log(renderReport(report));
  return report.levels.every((l) => l.errors === 0 && l.events > 0) ? EXIT.OK : EXIT.REQUESTS_FAILED;
}

async function serveOnly(opts: CalibrateOptions): Promise<number> {
  const server = startCalibrationServer({ port: opts.port, ttftMs: opts.ttft, itlMs: opts.itl });
  console.log(`calibration-server listening on ${server.url}`);
  await new Promise<void>((resolve) => {
    Deno.addSignalListener("SIGTERM", resolve);
    Deno.addSignalListener("SIGINT", resolve);
  });
  server.close();
  return EXIT.OK;
}
