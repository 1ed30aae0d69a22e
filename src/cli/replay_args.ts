/**
 * `infermeter replay BUNDLE [options]` as the `profile` it runs: the bundle is the dataset (`run_bundle`: the bodies
 * as sent, the sessions, think times and, for an open loop, each request's send offset, which the trace replay
 * follows), and the original run's endpoint, models, headers, seed, counts and concurrency are given again, each
 * unless the user gives it. What would change which requests are sent or when (dataset, lengths, load mode,
 * durations) is refused: the bundle decides that; `--time-scale` speeds or slows the schedule and `--concurrency`
 * changes a closed loop's sessions in flight (or caps an open loop's).
 */
import type { OptionSpec } from "../base/option_spec.ts";
import { ConfigError } from "../config/config_error.ts";
import { PROFILE_COMMAND } from "../config/option_table.ts";
import { readCliArgs } from "../config/read_cli_args.ts";
import type { BundleRunInfo } from "../dataset/run_bundle.ts";
import { RUN_BUNDLE, TIME_SCALE_KEY } from "../dataset/dataset_formats.ts";
import { joinPath } from "../runtime/file_path.ts";

/** Groups whose options say what is sent or when: the bundle says that. */
const BUNDLE_DECIDES_GROUPS: ReadonlySet<string> = new Set([
  "Input",
  "Conversation Input",
  "Input Sequence Length (ISL)",
  "Output Sequence Length (OSL)",
  "Rankings",
  "Load Generator",
  "User-Centric Rate",
  "Request Cancellation",
]);

/** Options of those groups a replay takes all the same. */
const ALLOWED_KEYS: ReadonlySet<string> = new Set([
  TIME_SCALE_KEY,
  "headers",
  "redactHeaders",
  "randomSeed",
  "concurrency",
  "failedRequestThreshold",
  "strictDataset",
]);

/** Options outside those groups that would change the bodies or how they are read. */
const FIXED_KEYS: ReadonlySet<string> = new Set(["endpointType", "streaming", "configFile"]);

export interface ReplayArgs {
  /** The `profile` arguments. */
  readonly args: readonly string[];
  /** What the user should know before the replay starts (one sentence each). */
  readonly notices: readonly string[];
}

/**
 * The `profile` arguments that replay `bundlePath` (whose `run.json` is `run`) with the user's `userArgs`.
 * @throws {ConfigError} for an option the bundle decides, and for arguments `profile` could not read.
 */
export function replayProfileArgs(bundlePath: string, run: BundleRunInfo, userArgs: readonly string[]): ReplayArgs {
  const read = readCliArgs(userArgs, PROFILE_COMMAND);
  if (read.problems.length > 0) throw new ConfigError([...read.problems]);
  const problems: string[] = [];
  const given = new Set<string>();
  for (const { spec, flag } of read.occurrences) {
    const key = "key" in spec ? spec.key : undefined;
    if (key === undefined) continue;
    given.add(key);
    if (refused(spec, key)) {
      problems.push(
        `${flag}: a replay sends the bundle's requests on its schedule, which ${flag} would change; ` +
          `use --time-scale to speed it up or slow it down, or infermeter profile for another workload.`,
      );
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const r = run.replay;
  const args: string[] = ["--input-file", bundlePath, "--custom-dataset-type", RUN_BUNDLE];
  const add = (key: string, ...words: string[]) => {
    if (!given.has(key)) args.push(...words);
  };
  add("urls", ...r.urls.flatMap((url) => ["--url", url]));
  args.push("--endpoint-type", r.endpoint_type);
  if (r.streaming) args.push("--streaming");
  if (r.custom_endpoint !== null) add("customEndpoint", "--endpoint", r.custom_endpoint);
  add("modelNames", ...r.model_names.flatMap((m) => ["--model", m]));
  add("requestTimeoutSeconds", "--request-timeout-seconds", String(r.request_timeout_s));
  if (r.session_header !== null) add("sessionHeader", "--session-header", r.session_header);
  if (r.use_server_token_count) add("useServerTokenCount", "--use-server-token-count");
  if (r.tokenizer !== "builtin") add("tokenizer", "--tokenizer", r.tokenizer);
  if (r.random_seed !== null) add("randomSeed", "--random-seed", String(r.random_seed));
  // User headers come after these and replace a header of the same name.
  for (const [name, value] of r.headers) args.push("-H", `${name}:${value}`);
  // Every session once, each with all its turns: a trace replay sends its whole dataset once by itself; a closed
  // loop is bounded by sessions, not requests (a request count would let a session that ends early start the first
  // conversation again, and cut another's last turn).
  if (r.loop === "closed") args.push("--conversation-num", String(r.sessions));
  if (r.concurrency !== null) add("concurrency", "--concurrency", String(r.concurrency));
  add("artifactDir", "--artifact-dir", joinPath("artifacts", `${run.artifact_dir}-replay`));
  const notices: string[] = [];
  const headerNames = new Set(
    read.occurrences.filter((o) => "key" in o.spec && o.spec.key === "headers").map((o) =>
      (o.raw ?? "").split(":")[0].trim().toLowerCase()
    ),
  );
  const missing = r.secret_headers.filter((name) => !headerNames.has(name.toLowerCase()));
  if (r.api_key && !given.has("apiKey")) {
    notices.push("The original run sent an API key, which the bundle does not keep: give it again with --api-key.");
  }
  if (missing.length > 0) {
    notices.push(
      `The original run sent ${missing.join(", ")}, whose value${missing.length === 1 ? "" : "s"} the bundle ` +
        `does not keep: give ${missing.length === 1 ? "it" : "them"} again with -H.`,
    );
  }
  return { args: [...args, ...userArgs], notices };
}

function refused(spec: OptionSpec, key: string): boolean {
  if (ALLOWED_KEYS.has(key)) return false;
  return FIXED_KEYS.has(key) || BUNDLE_DECIDES_GROUPS.has(spec.group ?? "");
}
