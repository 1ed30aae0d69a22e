/**
 * `infermeter replay BUNDLE [options]`: sends a run bundle's requests again — the same bodies, the same sessions and
 * think times, and an open loop's send offsets (× `--time-scale`) or a closed loop's session order and concurrency —
 * as an ordinary `profile` run (the bundle is its dataset; see replay_args.ts), which writes an ordinary run
 * directory for `compare ORIGINAL REPLAY`. A bundle that is truncated or altered is refused before anything is sent.
 */
import { ConfigError } from "../config/config_error.ts";
import { isHelpRequest } from "../config/read_cli_args.ts";
import { readRunBundle } from "../dataset/run_bundle.ts";
import { InputError } from "../base/input_error.ts";
import { EXIT } from "./exit_codes.ts";
import { replayProfileArgs } from "./replay_args.ts";
import { runProfile } from "./profile.ts";

export const REPLAY_HELP = `Usage: infermeter replay <run.bundle.tar.gz> [options]

Send a run bundle's requests again (written by infermeter profile --bundle): every body exactly as the original run
sent it, in the same sessions with the same think times; an open-loop run's requests at their original send offsets,
a closed-loop run's sessions in their original order at its concurrency. The bundle's integrity is checked first
(gzip checksum, and every member against the SHA-256 in its manifest): a truncated or altered bundle is refused
(exit 2). Writes an ordinary run directory (artifacts/<original>-replay unless --artifact-dir is given); compare it
with the original: infermeter compare <original-dir> <replay-dir>.

Options (any infermeter profile option that does not change what is sent or when):
  --time-scale <factor>     Multiply every send offset and think time (0.5: twice as fast). Default 1.
  -u, --url <url>           The server to replay against. Default: the original run's URL(s).
  --api-key <key>           The API key (a bundle never keeps secrets).
  -H, --header <name:value> A header to send; given again for the original run's secret headers.
  --concurrency <n>         Sessions in flight (closed loop), or the cap on them (open loop). Default: the original's.
  --artifact-dir <dir>      Where the replay's results go.
  --bundle                  Also bundle the replay (its send offsets can then be checked against the original's).
  --export-level, --ui, --console, --warmup-*, --goodput, --threshold, --server-metrics, --workers, … as for profile.
Refused: dataset, sequence-length, load-mode, duration and count options (the bundle decides what is sent and when).

Exit codes are profile's: 0 success, 1 some requests failed, 2 bad options or a refused bundle, 4 results not all
written, 130 interrupted.
`;

export async function runReplay(args: string[]): Promise<number> {
  if (isHelpRequest(args)) {
    console.log(REPLAY_HELP);
    return EXIT.OK;
  }
  const at = args.findIndex((a) => !a.startsWith("-"));
  // The bundle is the first word that is not an option (options with values come after it, or use --flag=value).
  if (at !== 0) {
    console.error("error: give the bundle first: infermeter replay <run.bundle.tar.gz> [options]");
    return EXIT.USAGE;
  }
  const path = args[0];
  try {
    const bundle = await readRunBundle(path);
    const replay = replayProfileArgs(path, bundle.run, args.slice(1));
    const r = bundle.run.replay;
    console.error(
      `Replaying ${r.requests} request${r.requests === 1 ? "" : "s"} in ${r.sessions} session` +
        `${r.sessions === 1 ? "" : "s"} of run ${bundle.run.benchmark_id} (infermeter ${bundle.manifest.version}, ` +
        `${r.loop === "open" ? "open loop: on its schedule" : `closed loop at concurrency ${r.concurrency ?? 1}`})`,
    );
    for (const notice of replay.notices) console.error(`warning: ${notice}`);
    return await runProfile([...replay.args]);
  } catch (err) {
    if (err instanceof ConfigError || err instanceof InputError) {
      console.error(`error: ${err.message}`);
      return EXIT.USAGE;
    }
    throw err;
  }
}
