/**
 * Command-line options of `deno task bench` (scripts/bench/run_bench.ts).
 */
import { CLIENT_NAMES, type ClientName } from "./bench_types.ts";
import { DEFAULT_SCENARIOS, QUICK_SCENARIOS, SCENARIOS } from "./bench_scenarios.ts";

export interface BenchOptions {
  readonly scenarios: readonly string[];
  readonly clients: readonly ClientName[];
  /** Measured seconds per client and scenario. */
  readonly durationSec: number;
  /** Warm-up requests = this × concurrency (ours and AIPerf; wrk has no warm-up). */
  readonly warmupPerUser: number;
  /** Where the JSON results go. */
  readonly outPath: string;
  /** Keep the per-run artifact directories (otherwise a temporary directory removed at the end). */
  readonly keep: boolean;
  /** Pin server and clients to separate cores when possible. */
  readonly pin: boolean;
  /** May install missing tools (apt-get wrk, pip aiperf into .bench/). */
  readonly install: boolean;
  /** Run `infermeter calibrate --json` when that command exists. */
  readonly calibrate: boolean;
  /** Seconds per calibrate level; undefined: calibrate's own default. */
  readonly calibrateDurationSec?: number;
  /** Token counting of long answers and the bundle's start-up, judged with the other targets. */
  readonly extras: boolean;
  /** An AIPerf virtual environment to use as it is (e.g. one holding AIPerf 0.13) instead of .bench/aiperf-venv. */
  readonly aiperfVenv?: string;
  /** Minutes of the long soak judged against a 1-minute one (memory flat in run length); undefined: not run. */
  readonly soakMinutes?: number;
  readonly help: boolean;
}

export const USAGE = `Usage: deno task bench [options]   (deno run -A scripts/bench/run_bench.ts)

Runs infermeter's full product path ('infermeter profile', real exports) and the references — wrk and
AIPerf — side by side against one 'serve-sim --fast' instance, and prints requests/s, SSE events/s,
client CPU per event, peak RSS and each figure's ratio against ours. Server and clients are pinned to
separate cores when the machine has two or more. Then it runs 'infermeter calibrate' (the client-added
timing error at 16 and 256 streams) and judges every throughput and accuracy target in one verdict.
Results go to .bench/results.json.

Options:
  --quick                 ${QUICK_SCENARIOS.join(", ")} for 2 s each
  --duration <s>          measured seconds per client and scenario (default 5; --quick: 2)
  --scenarios <ids|all|none>
                          comma-separated, from: ${SCENARIOS.map((s) => s.id).join(", ")}
                          (default: ${DEFAULT_SCENARIOS.join(", ")})
  --clients <names>       comma-separated, from: ${CLIENT_NAMES.join(", ")} (default: all)
  --warmup <n>            warm-up requests per virtual user, ours and AIPerf (default 4)
  --out <path>            results file (default .bench/results.json)
  --keep                  keep every run's artifacts (printed; default: removed)
  --no-pin                do not pin processes to cores
  --no-install            do not apt-get install wrk or pip install aiperf when missing
  --no-calibrate          skip 'infermeter calibrate'
  --no-extras             skip token counting of long answers and the bundle's start-up (skipped with --quick)
  --aiperf-venv <dir>     use the AIPerf installed in this virtual environment (e.g. AIPerf 0.13's) as it is
  --soak <minutes>        also soak 1 minute and <minutes> at 256 streams (scripts/bench/soak.ts) and judge memory
                          flat in run length: peak RSS ratio, ≤ 400 MB, RSS growth per request (the target: 30)
  --accuracy              only the timing accuracy at many streams (scripts/bench/accuracy_bench.ts):
                          calibrate --streams 256,1000,2000 --itl 13 --workers auto on >= 16 cores, scaled
                          levels (and said so) on smaller hosts; [--streams a,b,c] [--duration s]
  --calibrate-duration <s>
                          seconds per calibrate level (default: calibrate's own, 8; --quick: 3)
  -h, --help              this help
`;

export function parseBenchOptions(args: readonly string[], repoRoot: string): BenchOptions {
  let quick = false;
  let duration: number | undefined;
  let scenarios: string[] | undefined;
  let clients: ClientName[] = [...CLIENT_NAMES];
  let warmup = 4;
  let outPath = `${repoRoot}/.bench/results.json`;
  let keep = false;
  let pin = true;
  let install = true;
  let calibrate = true;
  let calibrateDuration: number | undefined;
  let extras = true;
  let aiperfVenv: string | undefined;
  let soakMinutes: number | undefined;
  let help = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = (): string => {
      const v = args[++i];
      if (v === undefined) throw new TypeError(`${arg} needs a value; see --help.`);
      return v;
    };
    switch (arg) {
      case "--quick":
        quick = true;
        break;
      case "--duration":
        duration = positive(arg, value());
        break;
      case "--scenarios":
        scenarios = value().split(",").map((s) => s.trim()).filter((s) => s !== "");
        break;
      case "--clients":
        clients = value().split(",").map((s) => s.trim()).filter((s) => s !== "").map((c) => {
          if (!(CLIENT_NAMES as readonly string[]).includes(c)) {
            throw new TypeError(`--clients ${c}: use some of ${CLIENT_NAMES.join(", ")}.`);
          }
          return c as ClientName;
        });
        break;
      case "--warmup":
        warmup = Math.round(positive(arg, value(), true));
        break;
      case "--out":
        outPath = value();
        break;
      case "--keep":
        keep = true;
        break;
      case "--no-pin":
        pin = false;
        break;
      case "--no-install":
        install = false;
        break;
      case "--no-calibrate":
        calibrate = false;
        break;
      case "--no-extras":
        extras = false;
        break;
      case "--aiperf-venv":
        aiperfVenv = value();
        break;
      case "--soak":
        soakMinutes = positive(arg, value());
        break;
      case "--calibrate-duration":
        calibrateDuration = positive(arg, value());
        break;
      case "-h":
      case "--help":
        help = true;
        break;
      default:
        throw new TypeError(`unknown option '${arg}'; see --help.`);
    }
  }
  return {
    scenarios: scenarios ?? (quick ? QUICK_SCENARIOS : DEFAULT_SCENARIOS),
    clients,
    durationSec: duration ?? (quick ? 2 : 5),
    warmupPerUser: warmup,
    outPath,
    keep,
    pin,
    install,
    calibrate,
    calibrateDurationSec: calibrateDuration ?? (quick ? 3 : undefined),
    extras: extras && !quick,
    aiperfVenv,
    soakMinutes,
    help,
  };
}

function positive(flag: string, text: string, zeroOk = false): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0 || (!zeroOk && n === 0)) {
    throw new RangeError(`${flag} ${text}: needs a ${zeroOk ? "non-negative" : "positive"} number.`);
  }
  return n;
}
