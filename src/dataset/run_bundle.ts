/**
 * The run bundle (`profile --bundle` → `run.bundle.tar.gz`): everything needed to send a run's requests again, on
 * another machine and offline, and to check that nothing in it changed. A gzip-compressed ustar archive of flat
 * members, the manifest first:
 *
 * - `bundle.json`: `{"producer":"infermeter","kind":"run_bundle","schema_version":1,"version","created",
 *   "members":[{"name","role","bytes","sha256"}]}` — every other member with its size and SHA-256; a member that is
 *   missing, unlisted, of another size or hash refuses the bundle.
 * - `run.json`: the tool (version, Deno, V8, OS), the tokenizer, the server's identity, the resolved configuration
 *   with its secrets removed, and what a replay needs (`replay`: endpoint, models, loop, concurrency, counts).
 * - `requests.jsonl`: one line per profiling request sent, in the order they completed: its exact body (the bytes sent, as a
 *   string), its session and turn, the think time before it, and its scheduled send offset (open loop: from the first
 *   request's due time, so the replay starts at once as `--fixed-schedule-auto-offset` does).
 * - the run's records and summary as written (`profile_export.jsonl`, `profile_export_aiperf.json`), when written.
 *
 * Exact bodies rather than seeds and a recipe: a body rebuilt from seeds needs the same dataset files, tokenizer and
 * build of infermeter on the replaying machine, and a later turn's body carries the original server's replies,
 * which no seed reproduces. The bytes as sent replay anywhere, and the manifest's hashes prove they are the same.
 */
import { readTarArchive, TarFormatError, type TarMember } from "../base/tar_archive.ts";
import { DatasetError } from "./dataset_error.ts";

export const RUN_BUNDLE_FILE = "run.bundle.tar.gz";
export const BUNDLE_SCHEMA_VERSION = 1;
export const BUNDLE_MANIFEST = "bundle.json";
export const BUNDLE_RUN = "run.json";
export const BUNDLE_REQUESTS = "requests.jsonl";

/** What a member holds (records and summary keep their run-manifest roles). */
export type BundleMemberRole = "run_info" | "requests_jsonl" | "records_jsonl" | "summary_json";

export interface BundleMemberEntry {
  readonly name: string;
  readonly role: BundleMemberRole;
  readonly bytes: number;
  /** Lower-case hex SHA-256 of the member's bytes. */
  readonly sha256: string;
}

export interface BundleManifest {
  readonly producer: "infermeter";
  readonly kind: "run_bundle";
  readonly schema_version: number;
  /** infermeter's version that wrote it. */
  readonly version: string;
  /** ISO 8601 time it was written. */
  readonly created: string;
  readonly members: readonly BundleMemberEntry[];
}

/** One line of `requests.jsonl` (in the order requests completed): a request as it was sent. */
export interface BundleRequest {
  readonly request_index: number;
  /** The session (virtual user) that sent it: its turns are one conversation of the replay. */
  readonly session: number;
  /** The shard that sent it (`worker_0`): its sessions started in the order of their numbers. */
  readonly worker: string;
  readonly conversation_id: string;
  readonly turn: number;
  /** Think time before this turn, after the previous turn's answer (ms); null on a first turn or without one. */
  readonly delay_ms: number | null;
  /**
   * When it was due, in ms after the schedule's origin (open loop: the first request's due time); null when sent as
   * soon as possible.
   */
  readonly scheduled_offset_ms: number | null;
  /** When it was sent, in ms after the schedule's origin (closed loop: the profiling phase's start). */
  readonly start_offset_ms: number;
  /**
   * The request body exactly as sent (UTF-8 text); for an API that takes form data, the JSON the form encodes (its
   * encoding has one constant boundary, so the same JSON is the same bytes again).
   */
  readonly body: string;
}

/** How the original run sent its requests: on a schedule (open loop), or with N sessions in flight (closed loop). */
export type BundleLoop = "open" | "closed";

/** What `infermeter replay` needs from the original run (`run.json`'s `replay`). */
export interface BundleReplayInfo {
  readonly endpoint_type: string;
  readonly streaming: boolean;
  readonly custom_endpoint: string | null;
  readonly model_names: readonly string[];
  /** Userinfo and secret query values removed. */
  readonly urls: readonly string[];
  readonly request_timeout_s: number;
  readonly session_header: string | null;
  readonly use_server_token_count: boolean;
  /** Headers given with -H whose values are not secret, as sent. */
  readonly headers: readonly (readonly [string, string])[];
  /** Names of headers whose values were secret (not kept: a replay needs them given again). */
  readonly secret_headers: readonly string[];
  /** An API key was given (not kept). */
  readonly api_key: boolean;
  /** `--tokenizer` as given ("builtin" when not). */
  readonly tokenizer: string;
  readonly random_seed: number | null;
  readonly loop: BundleLoop;
  /** Sessions in flight (closed loop), or the cap on them (open loop, when there was one). */
  readonly concurrency: number | null;
  readonly requests: number;
  readonly sessions: number;
}

/** `run.json`. */
export interface BundleRunInfo {
  readonly benchmark_id: string;
  /** The original run directory's name (a replay's default directory is named after it). */
  readonly artifact_dir: string;
  readonly tool: Readonly<Record<string, string>>;
  /** The tokenizer that counted tokens: as given, and its name. */
  readonly tokenizer: { readonly spec: string; readonly name: string | null };
  /** What the server said about itself at the start (`/version`, `/v1/models`, headers), when it said anything. */
  readonly server: unknown;
  readonly cli_command: string;
  /** Epoch ms when the profiling phase started. */
  readonly phase_start_epoch_ms: number | null;
  /** The resolved configuration, secrets removed (as in the JSON export's `input_config`). */
  readonly input_config: unknown;
  readonly replay: BundleReplayInfo;
}

export interface RunBundle {
  readonly path: string;
  readonly manifest: BundleManifest;
  readonly run: BundleRunInfo;
  /** In issue order. */
  readonly requests: readonly BundleRequest[];
  /** A member's bytes (already verified), when the bundle has it. */
  member(role: BundleMemberRole): Uint8Array | undefined;
}

/** Lower-case hex SHA-256 of `bytes`. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads and verifies a bundle: gzip's own checksum and length, the tar headers' checksums, then every member
 * against the manifest (present once, listed, same size and SHA-256), then the shape of `run.json` and of every line
 * of `requests.jsonl`.
 * @throws {DatasetError} naming the bundle and what is wrong with it (exit 2): a truncated or altered bundle is refused.
 */
export async function readRunBundle(path: string): Promise<RunBundle> {
  const fail = (reason: string, cause?: unknown): never => {
    throw new DatasetError(path, undefined, reason, cause === undefined ? undefined : { cause });
  };
  let compressed: Uint8Array;
  try {
    compressed = await Deno.readFile(path);
  } catch (err) {
    return fail(`cannot be read (${(err as Error).message})`, err);
  }
  let bytes: Uint8Array;
  try {
    const stream = new Blob([compressed as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
      new DecompressionStream("gzip"),
    );
    bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  } catch (err) {
    return fail(
      `is not a complete run bundle: its gzip stream is truncated or damaged (${(err as Error).message}); copy ` +
        "the bundle again",
      err,
    );
  }
  let members: TarMember[];
  try {
    members = readTarArchive(bytes);
  } catch (err) {
    if (!(err instanceof TarFormatError)) throw err;
    return fail(`is not a complete run bundle: ${err.message}`, err);
  }
  if (members[0]?.name !== BUNDLE_MANIFEST) {
    return fail(`is not a run bundle: its first member is ${members[0]?.name ?? "missing"}, not ${BUNDLE_MANIFEST}`);
  }
  const manifest = checkManifest(parseJson(members[0], fail), fail);
  const byName = new Map(members.slice(1).map((m) => [m.name, m.bytes]));
  const byRole = new Map<BundleMemberRole, Uint8Array>();
  for (const entry of manifest.members) {
    const data = byName.get(entry.name);
    if (data === undefined) fail(`is missing member ${entry.name}, which its manifest lists (damaged or altered)`);
    byName.delete(entry.name);
    if (data!.length !== entry.bytes) {
      fail(`member ${entry.name} holds ${data!.length} bytes, its manifest says ${entry.bytes} (altered)`);
    }
    if (await sha256Hex(data!) !== entry.sha256) {
      fail(`member ${entry.name} does not match its SHA-256 in the manifest (altered)`);
    }
    byRole.set(entry.role, data!);
  }
  const extra = [...byName.keys()];
  if (extra.length > 0) fail(`holds member ${extra[0]}, which its manifest does not list (altered)`);
  const runBytes = byRole.get("run_info");
  const requestBytes = byRole.get("requests_jsonl");
  if (runBytes === undefined || requestBytes === undefined) {
    return fail(`has no ${runBytes === undefined ? BUNDLE_RUN : BUNDLE_REQUESTS} member; it cannot be replayed`);
  }
  const run = checkRunInfo(parseJson({ name: BUNDLE_RUN, bytes: runBytes }, fail), fail);
  const requests = parseRequests(requestBytes, fail);
  if (requests.length === 0) fail(`holds no requests: the original run sent none`);
  return { path, manifest, run, requests, member: (role) => byRole.get(role) };
}

type Fail = (reason: string, cause?: unknown) => never;

function parseJson(member: TarMember, fail: Fail): unknown {
  try {
    return JSON.parse(decoder.decode(member.bytes));
  } catch (err) {
    return fail(`member ${member.name} is not JSON (${(err as Error).message})`, err);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function checkManifest(value: unknown, fail: Fail): BundleManifest {
  if (!isRecord(value) || value.producer !== "infermeter" || value.kind !== "run_bundle") {
    return fail(`is not a run bundle: ${BUNDLE_MANIFEST} does not say producer infermeter, kind run_bundle`);
  }
  if (typeof value.schema_version !== "number" || value.schema_version > BUNDLE_SCHEMA_VERSION) {
    return fail(
      `was written by a newer infermeter (${String(value.version)}, bundle schema ${String(value.schema_version)}); ` +
        `this one reads schema ${BUNDLE_SCHEMA_VERSION}: replay it with that version or newer`,
    );
  }
  if (!Array.isArray(value.members)) return fail(`${BUNDLE_MANIFEST} has no members list`);
  for (const m of value.members) {
    if (
      !isRecord(m) || typeof m.name !== "string" || typeof m.role !== "string" || typeof m.bytes !== "number" ||
      typeof m.sha256 !== "string"
    ) {
      return fail(`${BUNDLE_MANIFEST} lists a member without name, role, bytes and sha256`);
    }
  }
  return value as unknown as BundleManifest;
}

function checkRunInfo(value: unknown, fail: Fail): BundleRunInfo {
  const replay = isRecord(value) ? value.replay : undefined;
  if (
    !isRecord(value) || !isRecord(replay) || typeof replay.endpoint_type !== "string" ||
    !Array.isArray(replay.model_names) || !Array.isArray(replay.urls) || !Array.isArray(replay.headers) ||
    (replay.loop !== "open" && replay.loop !== "closed") || typeof replay.requests !== "number"
  ) {
    return fail(`${BUNDLE_RUN} lacks what a replay needs (its "replay" block)`);
  }
  return value as unknown as BundleRunInfo;
}

function parseRequests(bytes: Uint8Array, fail: Fail): BundleRequest[] {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch (err) {
    return fail(`${BUNDLE_REQUESTS} is not UTF-8 text`, err);
  }
  const requests: BundleRequest[] = [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const where = `${BUNDLE_REQUESTS}:${i + 1}`;
    let line: unknown;
    try {
      line = JSON.parse(lines[i]);
    } catch (err) {
      return fail(`${where} is not JSON (${(err as Error).message})`, err);
    }
    const problem = requestProblem(line);
    if (problem !== undefined) fail(`${where}: ${problem}`);
    requests.push(line as BundleRequest);
  }
  return requests;
}

const finite = (v: unknown): boolean => typeof v === "number" && Number.isFinite(v);
const nonNegative = (v: unknown): boolean => finite(v) && (v as number) >= 0;
const orNull = (check: (v: unknown) => boolean) => (v: unknown): boolean => v === null || check(v);
const index = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;

const REQUEST_FIELDS: Readonly<Record<keyof BundleRequest, (v: unknown) => boolean>> = {
  request_index: index,
  session: index,
  worker: (v) => typeof v === "string",
  conversation_id: (v) => typeof v === "string",
  turn: index,
  delay_ms: orNull(nonNegative),
  scheduled_offset_ms: orNull(finite),
  start_offset_ms: finite,
  body: (v) => typeof v === "string",
};

function requestProblem(line: unknown): string | undefined {
  if (!isRecord(line)) return "expected a JSON object";
  for (const [field, ok] of Object.entries(REQUEST_FIELDS)) {
    if (!ok(line[field])) return `"${field}" is missing or not what it should be (${JSON.stringify(line[field])})`;
  }
  return undefined;
}
