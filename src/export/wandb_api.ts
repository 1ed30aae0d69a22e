/**
 * The calls a Weights & Biases run upload makes (the ones W&B's own client makes for AIPerf, seen on the wire):
 * GraphQL at `<base>/graphql` to find the key's entity, create the run (`upsertBucket`), get upload addresses for run
 * files and for an artifact's files and manifest, and commit the artifact; the file stream
 * (`<base>/files/<entity>/<project>/<run>/file_stream`) for the history row, the summary and the run's end; plain PUTs
 * to the addresses W&B hands out. Authentication is W&B's: basic `api:<WANDB_API_KEY>`.
 */
import { createHash } from "node:crypto";
import { serviceCall, ServiceError, serviceJson } from "./service_call.ts";

export interface WandbUploadTarget {
  readonly name: string;
  readonly uploadUrl: string | null;
  readonly headers: Readonly<Record<string, string>>;
}

/** A file of an artifact: its name in the artifact, W&B's digest (base64 MD5) and size. */
export interface ArtifactFile {
  readonly name: string;
  readonly data: Uint8Array<ArrayBuffer>;
}

const VIEWER = "query Viewer { viewer { entity } }";

const UPSERT_RUN = `mutation UpsertBucket($name: String, $project: String, $entity: String, $displayName: String,
  $config: JSONString, $tags: [String!], $program: String, $host: String) {
  upsertBucket(input: {name: $name, modelName: $project, entityName: $entity, displayName: $displayName,
    config: $config, tags: $tags, jobProgram: $program, host: $host}) {
    bucket { id name displayName project { name entity { name } } }
    inserted
  }
}`;

const CREATE_RUN_FILES =
  `mutation CreateRunFiles($entity: String!, $project: String!, $run: String!, $files: [String!]!) {
  createRunFiles(input: {entityName: $entity, projectName: $project, runName: $run, files: $files}) {
    runID
    uploadHeaders
    files { name uploadUrl }
  }
}`;

const CREATE_ARTIFACT = `mutation CreateArtifact($input: CreateArtifactInput!) {
  createArtifact(input: $input) { artifact { id state } }
}`;

const CREATE_MANIFEST = `mutation CreateArtifactManifest($artifactID: ID!, $name: String!, $digest: String!,
  $entityName: String!, $projectName: String!, $runName: String!, $includeUpload: Boolean!) {
  createArtifactManifest(input: {artifactID: $artifactID, name: $name, digest: $digest, entityName: $entityName,
    projectName: $projectName, runName: $runName, type: FULL}) {
    artifactManifest {
      id
      file { uploadUrl @include(if: $includeUpload) uploadHeaders @include(if: $includeUpload) }
    }
  }
}`;

const CREATE_ARTIFACT_FILES = `mutation CreateArtifactFiles($input: CreateArtifactFilesInput!) {
  createArtifactFiles(input: $input) { files { edges { node { name uploadUrl uploadHeaders } } } }
}`;

const COMMIT_ARTIFACT = `mutation CommitArtifact($artifactID: ID!) {
  commitArtifact(input: {artifactID: $artifactID}) { artifact { id digest } }
}`;

/** W&B's file digest: base64 of the MD5 of the bytes. */
export function md5Base64(data: Uint8Array): string {
  return createHash("md5").update(data).digest("base64");
}

/** An artifact manifest's digest, W&B's `MANIFEST_MD5`: hex MD5 over a header and `name:digest` lines by name. */
export function manifestDigest(entries: ReadonlyArray<{ name: string; digest: string }>): string {
  const hash = createHash("md5").update("wandb-artifact-manifest-v1\n");
  for (const e of [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    hash.update(`${e.name}:${e.digest}\n`);
  }
  return hash.digest("hex");
}

/** A short random id in W&B's alphabet (run ids, client ids). */
export function wandbId(length: number): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return [...bytes].map((b) => alphabet[b % alphabet.length]).join("");
}

export class WandbClient {
  readonly #base: string;
  readonly #auth: string;

  constructor(baseUrl: string, apiKey: string) {
    this.#base = baseUrl.replace(/\/+$/, "");
    const bytes = new TextEncoder().encode(`api:${apiKey}`);
    this.#auth = `Basic ${btoa(String.fromCharCode(...bytes))}`;
  }

  get base(): string {
    return this.#base;
  }

  /** Where people look at a run: wandb.ai for W&B's cloud, the server itself when self-hosted. */
  runPage(entity: string, project: string, runId: string): string {
    const app = this.#base === "https://api.wandb.ai" ? "https://wandb.ai" : this.#base;
    return `${app}/${entity}/${project}/runs/${runId}`;
  }

  async graphql(
    query: string,
    variables: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const answer = await serviceJson(`${this.#base}/graphql`, {
      method: "POST",
      headers: { authorization: this.#auth, "content-type": "application/json" },
      body: JSON.stringify({ query, variables }),
      signal,
    });
    const errors = answer.errors as { message?: string }[] | undefined;
    if (errors !== undefined && errors.length > 0) {
      throw new ServiceError(`GraphQL: ${errors.map((e) => e.message ?? "error").join("; ")}`);
    }
    const data = answer.data as Record<string, unknown> | undefined;
    if (data === undefined || data === null) throw new ServiceError("GraphQL answered without data");
    return data;
  }

  /** The API key's default entity. */
  async viewerEntity(signal: AbortSignal): Promise<string> {
    const data = await this.graphql(VIEWER, {}, signal);
    const entity = (data.viewer as { entity?: string } | null)?.entity;
    if (entity === undefined || entity === null) {
      throw new ServiceError("the API key has no default entity; give --wandb-entity");
    }
    return entity;
  }

  async upsertRun(
    o: { runId: string; project: string; entity: string; displayName: string; config: string; tags: readonly string[] },
    signal: AbortSignal,
  ): Promise<void> {
    await this.graphql(UPSERT_RUN, {
      name: o.runId,
      project: o.project,
      entity: o.entity,
      displayName: o.displayName,
      config: o.config,
      tags: o.tags,
      program: "infermeter",
      host: Deno.hostname(),
    }, signal);
  }

  /** Upload addresses of run files (media, the summary). */
  async runFileTargets(
    entity: string,
    project: string,
    runId: string,
    files: readonly string[],
    signal: AbortSignal,
  ): Promise<WandbUploadTarget[]> {
    const data = await this.graphql(CREATE_RUN_FILES, { entity, project, run: runId, files }, signal);
    const out = data.createRunFiles as { uploadHeaders?: string[]; files?: { name: string; uploadUrl: string }[] };
    const headers = parseHeaders(out.uploadHeaders);
    return (out.files ?? []).map((f) => ({ name: f.name, uploadUrl: f.uploadUrl, headers }));
  }

  async put(target: WandbUploadTarget, data: Uint8Array<ArrayBuffer>, signal: AbortSignal): Promise<void> {
    if (target.uploadUrl === null) return; // already stored
    const res = await serviceCall(target.uploadUrl, { method: "PUT", headers: target.headers, body: data, signal });
    await res.body?.cancel();
  }

  /** Sends to the run's file stream: history rows, the summary, and at last `complete`. */
  async fileStream(
    entity: string,
    project: string,
    runId: string,
    payload: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<void> {
    const path = [entity, project, runId].map(encodeURIComponent).join("/");
    await serviceJson(`${this.#base}/files/${path}/file_stream`, {
      method: "POST",
      headers: { authorization: this.#auth, "content-type": "application/json" },
      body: JSON.stringify(payload),
      signal,
    });
  }

  /**
   * Logs `files` as a new version of artifact `name` of `type`, output of the run: created, its files and manifest
   * uploaded, then committed. A version W&B already holds (same digest) is not uploaded again.
   */
  async logArtifact(
    o: { entity: string; project: string; runId: string; name: string; type: string; files: readonly ArtifactFile[] },
    signal: AbortSignal,
  ): Promise<void> {
    const entries = o.files.map((f) => ({ name: f.name, digest: md5Base64(f.data), size: f.data.length }));
    const created = await this.graphql(CREATE_ARTIFACT, {
      input: {
        entityName: o.entity,
        projectName: o.project,
        runName: o.runId,
        artifactTypeName: o.type,
        artifactCollectionName: o.name,
        digest: manifestDigest(entries),
        digestAlgorithm: "MANIFEST_MD5",
        clientID: wandbId(128),
        sequenceClientID: wandbId(128),
        aliases: [{ alias: "latest", artifactCollectionName: o.name }],
        enableDigestDeduplication: true,
      },
    }, signal);
    const artifact = (created.createArtifact as { artifact: { id: string; state: string } }).artifact;
    if (artifact.state === "COMMITTED") return;
    const manifestVars = {
      artifactID: artifact.id,
      name: "wandb_manifest.json",
      entityName: o.entity,
      projectName: o.project,
      runName: o.runId,
    };
    const first = await this.graphql(CREATE_MANIFEST, { ...manifestVars, digest: "", includeUpload: false }, signal);
    const manifestId = (first.createArtifactManifest as { artifactManifest: { id: string } }).artifactManifest.id;
    const filesData = await this.graphql(CREATE_ARTIFACT_FILES, {
      input: {
        storageLayout: "V2",
        artifactFiles: entries.map((e) => ({
          artifactID: artifact.id,
          artifactManifestID: manifestId,
          name: e.name,
          md5: e.digest,
        })),
      },
    }, signal);
    const edges = (filesData.createArtifactFiles as { files: { edges: { node: Record<string, unknown> }[] } }).files
      .edges;
    for (const [i, edge] of edges.entries()) {
      const node = edge.node as { name?: string; uploadUrl: string | null; uploadHeaders?: string[] };
      const file = o.files.find((f) => f.name === node.name) ?? o.files[i];
      await this.put(
        { name: file.name, uploadUrl: node.uploadUrl, headers: parseHeaders(node.uploadHeaders) },
        file.data,
        signal,
      );
    }
    const manifest = new TextEncoder().encode(JSON.stringify({
      version: 1,
      storagePolicy: "wandb-storage-policy-v1",
      storagePolicyConfig: { storageLayout: "V2" },
      contents: Object.fromEntries(
        entries.map((e) => [e.name, { digest: e.digest, size: e.size, birthArtifactID: artifact.id }]),
      ),
    }));
    const second = await this.graphql(
      CREATE_MANIFEST,
      { ...manifestVars, digest: md5Base64(manifest), includeUpload: true },
      signal,
    );
    const upload = (second.createArtifactManifest as {
      artifactManifest: { file: { uploadUrl?: string; uploadHeaders?: string[] } };
    }).artifactManifest.file;
    if (upload.uploadUrl === undefined) throw new ServiceError("W&B gave no address for the artifact manifest");
    await this.put(
      { name: "wandb_manifest.json", uploadUrl: upload.uploadUrl, headers: parseHeaders(upload.uploadHeaders) },
      manifest,
      signal,
    );
    await this.graphql(COMMIT_ARTIFACT, { artifactID: artifact.id }, signal);
  }
}

/** W&B's upload headers, `Name:Value` strings. */
function parseHeaders(list: readonly string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of list ?? []) {
    const i = h.indexOf(":");
    if (i > 0) out[h.slice(0, i).trim()] = h.slice(i + 1).trim();
  }
  return out;
}
