/** Builds run bundles for tests, the way the bundle output writes them (manifest first, SHA-256 of each member). */
import { writeTarGz } from "../../src/export/tar_gz_writer.ts";
import {
  BUNDLE_SCHEMA_VERSION,
  type BundleReplayInfo,
  type BundleRequest,
  type BundleRunInfo,
  sha256Hex,
} from "../../src/dataset/run_bundle.ts";

export function request(over: Partial<BundleRequest> & Pick<BundleRequest, "session">): BundleRequest {
  return {
    request_index: over.session,
    worker: "worker_0",
    conversation_id: `c${over.session}`,
    turn: 0,
    delay_ms: null,
    scheduled_offset_ms: null,
    start_offset_ms: 0,
    body: `{"model":"m","messages":[{"role":"user","content":"s${over.session} t${over.turn ?? 0}"}]}`,
    ...over,
  };
}

export function runInfo(replay: Partial<BundleReplayInfo> = {}): BundleRunInfo {
  return {
    benchmark_id: "b-1",
    artifact_dir: "m-chat-concurrency2",
    tool: { name: "infermeter", version: "0.1.0" },
    tokenizer: { spec: "builtin", name: "builtin" },
    server: null,
    cli_command: "infermeter profile …",
    phase_start_epoch_ms: 1,
    input_config: {},
    replay: {
      endpoint_type: "chat",
      streaming: true,
      custom_endpoint: null,
      model_names: ["m"],
      urls: ["http://127.0.0.1:9"],
      request_timeout_s: 600,
      session_header: null,
      use_server_token_count: false,
      headers: [],
      secret_headers: [],
      api_key: false,
      tokenizer: "builtin",
      random_seed: 7,
      loop: "closed",
      concurrency: 2,
      requests: 1,
      sessions: 1,
      ...replay,
    },
  };
}

export interface BundleParts {
  readonly run: BundleRunInfo;
  readonly requests: readonly BundleRequest[];
  /** Changes a member's bytes after its hash was taken. */
  readonly tamper?: (name: string, bytes: Uint8Array) => Uint8Array;
  /** Members written but not listed. */
  readonly unlisted?: readonly string[];
  readonly schemaVersion?: number;
}

export async function writeBundle(path: string, parts: BundleParts): Promise<void> {
  const enc = new TextEncoder();
  const members = [
    { name: "run.json", role: "run_info", bytes: enc.encode(JSON.stringify(parts.run)) },
    {
      name: "requests.jsonl",
      role: "requests_jsonl",
      bytes: enc.encode(parts.requests.map((r) => JSON.stringify(r) + "\n").join("")),
    },
  ];
  const listed = await Promise.all(members.map(async (m) => ({
    name: m.name,
    role: m.role,
    bytes: m.bytes.length,
    sha256: await sha256Hex(m.bytes),
  })));
  const manifest = {
    producer: "infermeter",
    kind: "run_bundle",
    schema_version: parts.schemaVersion ?? BUNDLE_SCHEMA_VERSION,
    version: "0.1.0",
    created: new Date(0).toISOString(),
    members: listed,
  };
  await writeTarGz(path, [
    { name: "bundle.json", bytes: enc.encode(JSON.stringify(manifest)) },
    ...members.map((m) => ({ name: m.name, bytes: parts.tamper?.(m.name, m.bytes) ?? m.bytes })),
    ...(parts.unlisted ?? []).map((name) => ({ name, bytes: enc.encode("{}") })),
  ]);
}
