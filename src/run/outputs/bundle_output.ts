/**
 * `run.bundle.tar.gz` (`--bundle`): the run packed to be replayed (`infermeter replay`) anywhere, offline — the
 * bodies as sent, sessions, think times and send offsets, versions, the server's identity, the resolved
 * configuration without its secrets, and the records and summary. Members and hashes: `dataset/run_bundle.ts`.
 */
import { baseName, joinPath } from "../../runtime/file_path.ts";
import { isSecretHeaderName, redactUrl } from "../../base/redact_secrets.ts";
import { VERSION } from "../../base/version.ts";
import {
  BUNDLE_MANIFEST,
  BUNDLE_REQUESTS,
  BUNDLE_RUN,
  BUNDLE_SCHEMA_VERSION,
  type BundleManifest,
  type BundleMemberEntry,
  type BundleMemberRole,
  type BundleRequest,
  type BundleRunInfo,
  RUN_BUNDLE_FILE,
  sha256Hex,
} from "../../dataset/run_bundle.ts";
import { readLines } from "../../dataset/read_lines.ts";
import type { PreparedConversation } from "../../engine/prepared_conversation.ts";
import { LineFileWriter } from "../../export/line_file_writer.ts";
import { writeTarGz } from "../../export/tar_gz_writer.ts";
import type { ProfileConfig } from "../../config/profile_config.ts";
import { BundleSink, type SentRequestLine } from "../sinks/bundle_sink.ts";
import { errorReason } from "../unwritten_file.ts";
import { openRecordFile } from "./record_file.ts";
import type { Output, PublishContext } from "./output.ts";

const SCRATCH_FILE = ".run.bundle.requests.partial";

export const BUNDLE_OUTPUT: Output = {
  name: "run_bundle",
  description: "run.bundle.tar.gz: the run's exact requests and schedule, to replay anywhere (infermeter replay)",
  enabled: (config) => config.bundle,
  files: (paths) => [{ role: "run_bundle", label: "Run Bundle", path: joinPath(paths.dir, RUN_BUNDLE_FILE) }],
  sink: (ctx) => {
    const path = joinPath(ctx.paths.dir, SCRATCH_FILE);
    return openRecordFile(path, ctx, (onFailure) => BundleSink.open(path, onFailure));
  },
  async finish(ctx, writer) {
    const sink = ctx.sink as BundleSink | undefined;
    if (sink === undefined || ctx.results === undefined) return; // nothing was sent
    const file = BUNDLE_OUTPUT.files(ctx.paths)[0];
    const requestsPath = joinPath(ctx.paths.dir, ".run.bundle.requests.jsonl");
    try {
      const lost = sink.unwritten?.();
      if (lost !== undefined) {
        writer.failed({ label: file.label, path: file.path, reason: `its requests could not be kept: ${lost.reason}` });
        return;
      }
      if (sink.missingBodies > 0) {
        writer.failed({
          label: file.label,
          path: file.path,
          reason: `${sink.missingBodies} records came without the body they sent; the bundle would not replay them`,
        });
        return;
      }
      let requests: RequestsFile;
      try {
        requests = await writeRequestsFile(sink, ctx.conversations, requestsPath);
      } catch (err) {
        writer.failed({ label: file.label, path: file.path, reason: errorReason(err) });
        return;
      }
      const run = runInfo(ctx, requests, sink.phaseStartAt);
      const files: { role: BundleMemberRole; name: string; path?: string; bytes?: Uint8Array }[] = [
        { role: "run_info", name: BUNDLE_RUN, bytes: new TextEncoder().encode(JSON.stringify(run, null, 2) + "\n") },
        { role: "requests_jsonl", name: BUNDLE_REQUESTS, path: requestsPath },
      ];
      for (const role of ["records_jsonl", "summary_json"] as const) {
        const written = ctx.written.find((f) => f.role === role);
        if (written !== undefined) files.push({ role, name: baseName(written.path), path: written.path });
      }
      await writer.stream(file, async (path) => {
        const members: BundleMemberEntry[] = [];
        for (const f of files) {
          // Read once to hash; copied again in chunks when archived.
          const bytes = f.bytes ?? await Deno.readFile(f.path!);
          members.push({ name: f.name, role: f.role, bytes: bytes.length, sha256: await sha256Hex(bytes) });
        }
        const manifest: BundleManifest = {
          producer: "infermeter",
          kind: "run_bundle",
          schema_version: BUNDLE_SCHEMA_VERSION,
          version: VERSION,
          created: new Date().toISOString(),
          members,
        };
        await writeTarGz(path, [
          { name: BUNDLE_MANIFEST, bytes: new TextEncoder().encode(JSON.stringify(manifest, null, 2) + "\n") },
          ...files.map((f) =>
            f.bytes !== undefined ? { name: f.name, bytes: f.bytes } : { name: f.name, file: f.path! }
          ),
        ]);
      });
    } finally {
      await Deno.remove(sink.path).catch(() => {});
      await Deno.remove(requestsPath).catch(() => {});
    }
  },
};

interface RequestsFile {
  readonly requests: number;
  readonly sessions: number;
  readonly loop: "open" | "closed";
}

/**
 * `requests.jsonl` from the sink's scratch lines: times made offsets from the schedule's origin, and each turn's
 * think time from the prepared conversations. A run whose every first turn had a due time was an open loop; its
 * origin is its first due time (the phase's start is taken a little before its schedule starts, by as much as the
 * work done at a phase start, which no replay would repeat exactly); a closed loop's is the phase's start.
 */
async function writeRequestsFile(
  sink: BundleSink,
  conversations: readonly PreparedConversation[],
  path: string,
): Promise<RequestsFile> {
  const delays = new Map(conversations.map((c) => [c.id, c.turns.map((t) => t.delayMs)]));
  const origin = sink.firstDueAt ?? sink.phaseStartAt ?? 0;
  const out = await LineFileWriter.open(path);
  const sessions = new Set<number>();
  let requests = 0;
  let open = true;
  try {
    for await (const { text } of readLines(sink.path)) {
      if (text === "") continue;
      const line = JSON.parse(text) as SentRequestLine;
      const delay = line.turn > 0 ? delays.get(line.conversation_id)?.[line.turn] : undefined;
      const request: BundleRequest = {
        request_index: line.request_index,
        session: line.session,
        worker: line.worker,
        conversation_id: line.conversation_id,
        turn: line.turn,
        delay_ms: delay ?? null,
        scheduled_offset_ms: line.scheduled_at === null ? null : line.scheduled_at - origin,
        start_offset_ms: line.start_at - origin,
        body: line.body,
      };
      if (line.turn === 0 && line.scheduled_at === null) open = false;
      sessions.add(line.session);
      requests++;
      out.writeLine(JSON.stringify(request));
    }
  } finally {
    await out.close();
  }
  return { requests, sessions: sessions.size, loop: open ? "open" : "closed" };
}

function runInfo(ctx: PublishContext, requests: RequestsFile, phaseStartAt: number | undefined): BundleRunInfo {
  const { config } = ctx;
  const info = ctx.results!.info;
  const client = info.infermeter as Record<string, unknown> | undefined;
  return {
    benchmark_id: info.benchmarkId,
    artifact_dir: baseName(ctx.paths.dir),
    tool: {
      name: "infermeter",
      version: VERSION,
      deno: Deno.version.deno,
      v8: Deno.version.v8,
      os: Deno.build.os,
      arch: Deno.build.arch,
    },
    tokenizer: { spec: config.tokenizer, name: typeof client?.tokenizer === "string" ? client.tokenizer : null },
    server: info.runInfo.server ?? null,
    cli_command: info.runInfo.cliCommand ?? "",
    phase_start_epoch_ms: phaseStartAt === undefined ? null : ctx.timeOriginMs + phaseStartAt,
    input_config: info.inputConfig,
    replay: {
      endpoint_type: config.endpointType,
      streaming: config.streaming,
      custom_endpoint: config.customEndpoint ?? null,
      model_names: config.modelNames,
      urls: config.urls.map(replayableUrl),
      request_timeout_s: config.requestTimeoutSeconds,
      session_header: config.sessionHeader ?? null,
      use_server_token_count: config.useServerTokenCount,
      headers: config.headers.filter(([name]) => !isSecret(name, config)),
      secret_headers: config.headers.filter(([name]) => isSecret(name, config)).map(([name]) => name),
      api_key: config.apiKey !== undefined,
      tokenizer: config.tokenizer,
      random_seed: info.runInfo.randomSeed,
      loop: requests.loop,
      concurrency: config.concurrency ?? null,
      requests: requests.requests,
      sessions: requests.sessions,
    },
  };
}

function isSecret(name: string, config: ProfileConfig): boolean {
  return isSecretHeaderName(name, config.redactHeaders);
}

/** A URL without its credentials (user and password dropped, secret query values redacted). */
function replayableUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    return redactUrl(u.href.replace(/\/$/, url.endsWith("/") ? "/" : ""));
  } catch {
    return redactUrl(url);
  }
}
