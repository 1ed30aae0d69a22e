/**
 * `infermeter shard --index K --of N [shard options] …profile options…`: runs shard K of N of the profile the
 * options describe and streams its records as JSON lines (src/engine/shard_lines.ts) to stdout or `--records-out`.
 * `profile` starts these itself when its shards must be processes (`--workers-mode processes`, or more connections
 * than one process's open-file limit holds); a coordinator on several machines (e.g. Kubernetes pods) runs one per
 * machine with the same options, the same `--random-seed` and `--model`, and a shared `--start-at`.
 * Exit codes: 0 ran (records written), 2 bad options, 70 the shard failed (its `failed` line says why).
 */
import { ConfigError } from "../config/config_error.ts";
import { parseProfileArgs } from "../config/parse_profile_args.ts";
import { Logger, STDERR_SINK } from "../ui/logger.ts";
import { runShardProcess, type ShardStartAt } from "../run/run_shard_process.ts";
import { EXIT } from "./exit_codes.ts";

export const SHARD_HELP = `Usage: infermeter shard --index <K> --of <N> [shard options] <profile options>

Runs shard K (0-based) of N of the profile the options describe, and writes its records and phase messages as
JSON lines (one object per line, 't' naming it: hello, pinned, ready, started, phase, r, activity,
done | failed).
Every shard given the same profile options, --random-seed and --model builds the same dataset and takes its own
share of the schedule, so the records of all N merge exactly into the run 'profile' would have measured.

Shard options:
  --index <K>              This shard's index, 0 … N-1.
  --of <N>                 Number of shards in the run.
  --records-out <path>     Write the lines to this file instead of stdout.
  --start-at <when>        stdin: wait for {"t":"start","epochMs":…} on stdin (default); an epoch time in ms: start
                           then (every shard of the run given the same); now: at once.
  --clock-origin-ms <ms>   Epoch ms that record times count from (the coordinator's clock); default this process's.
  --core <cpu>             Pin this shard's thread to that CPU (Linux).

Needs --model and --random-seed among the profile options.`;

const SHARD_FLAGS = new Set(["--index", "--of", "--records-out", "--start-at", "--clock-origin-ms", "--core"]);

export async function runShard(args: string[]): Promise<number> {
  if (args.includes("-h") || args.includes("--help")) {
    console.log(SHARD_HELP);
    return EXIT.OK;
  }
  const own = new Map<string, string>();
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i].split(/=(.*)/s, 2);
    if (!SHARD_FLAGS.has(flag)) {
      rest.push(args[i]);
      continue;
    }
    const value = inline ?? args[++i];
    if (value === undefined) return usage(`${flag} needs a value`);
    own.set(flag, value);
  }
  const index = Number(own.get("--index"));
  const of = Number(own.get("--of"));
  if (!Number.isInteger(of) || of < 1) return usage("--of <N> must be a whole number of at least 1");
  if (!Number.isInteger(index) || index < 0 || index >= of) return usage(`--index <K> must be 0 … ${of - 1}`);
  const startText = own.get("--start-at") ?? "stdin";
  let startAt: ShardStartAt;
  if (startText === "stdin") startAt = { kind: "control" };
  else if (startText === "now") startAt = { kind: "now" };
  else if (/^\d+(\.\d+)?$/.test(startText)) startAt = { kind: "epoch", epochMs: Number(startText) };
  else return usage(`--start-at '${startText}': give stdin, now, or an epoch time in milliseconds`);
  const origin = own.has("--clock-origin-ms") ? Number(own.get("--clock-origin-ms")) : undefined;
  if (origin !== undefined && !Number.isFinite(origin)) return usage("--clock-origin-ms must be a number");
  const core = own.has("--core") ? Number(own.get("--core")) : undefined;
  if (core !== undefined && !(Number.isInteger(core) && core >= 0)) return usage("--core must be a CPU number");

  let parsed;
  try {
    parsed = await parseProfileArgs(rest, {
      env: Deno.env.toObject(),
      readTextFile: Deno.readTextFileSync,
      isTty: false,
    });
  } catch (err) {
    if (err instanceof ConfigError) return usage(err.message);
    throw err;
  }
  const logger = new Logger(parsed.config.logLevel, STDERR_SINK);
  const stop = new AbortController();
  const names: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  let stoppedBy = "a signal";
  const listeners = names.map((name) => {
    const listener = () => {
      if (stop.signal.aborted) return;
      stoppedBy = name;
      // Ctrl-C reaches the coordinator too (one process group), which says so itself.
      if (name !== "SIGINT") {
        logger.warning(`shard ${index} of ${of}: ${name} received; stopping and sending what it measured.`);
      }
      stop.abort();
    };
    Deno.addSignalListener(name, listener);
    return [name, listener] as const;
  });
  try {
    const end = await runShardProcess(parsed, {
      index,
      of,
      startAt,
      recordsOut: own.get("--records-out"),
      clockOriginMs: origin,
      core,
      logger,
      stop: stop.signal,
      stopReason: () => stoppedBy,
    });
    return end === "done" ? EXIT.OK : EXIT.INTERNAL;
  } finally {
    for (const [name, listener] of listeners) Deno.removeSignalListener(name, listener);
  }
}

function usage(message: string): number {
  console.error(`error: ${message}\nRun 'infermeter shard --help' for the options.`);
  return EXIT.USAGE;
}
