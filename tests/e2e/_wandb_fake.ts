/**
 * The few Weights & Biases calls a run upload makes, in memory on loopback (W&B's server cannot run offline): GraphQL
 * operations by name (Viewer, UpsertBucket, CreateRunFiles, CreateArtifact, CreateArtifactManifest,
 * CreateArtifactFiles, CommitArtifact), the file stream, and PUTs to the upload addresses it hands out. It refuses a
 * wrong key (401), an unknown operation or a missing variable (400), and a file whose bytes do not match the MD5 it was
 * announced with, so the upload must be what W&B would accept in those respects. What it does not check: the exact
 * GraphQL selection sets against W&B's schema.
 */
import { createHash } from "node:crypto";

export interface FakeWandbRun {
  readonly id: string;
  readonly entity: string;
  readonly project: string;
  readonly displayName: string;
  readonly config: Record<string, { value: unknown }>;
  readonly tags: string[];
  readonly files: Map<string, Uint8Array>;
  readonly stream: Record<string, unknown>[];
}

export interface FakeArtifact {
  readonly id: string;
  readonly input: Record<string, unknown>;
  readonly files: Map<string, { md5: string; data?: Uint8Array }>;
  manifest?: Record<string, unknown>;
  committed: boolean;
}

export interface FakeWandb extends AsyncDisposable {
  readonly url: string;
  readonly runs: FakeWandbRun[];
  readonly artifacts: FakeArtifact[];
  readonly operations: string[];
  failWith?: number;
}

const REQUIRED: Record<string, readonly string[]> = {
  Viewer: [],
  UpsertBucket: ["name", "project", "entity", "config"],
  CreateRunFiles: ["entity", "project", "run", "files"],
  CreateArtifact: ["input"],
  CreateArtifactManifest: ["artifactID", "name", "digest", "entityName", "projectName", "runName", "includeUpload"],
  CreateArtifactFiles: ["input"],
  CommitArtifact: ["artifactID"],
};

export function md5b64(data: Uint8Array): string {
  return createHash("md5").update(data).digest("base64");
}

export function fakeWandb(apiKey: string, entity = "team-e"): FakeWandb {
  const runs: FakeWandbRun[] = [];
  const artifacts: FakeArtifact[] = [];
  const operations: string[] = [];
  const uploads = new Map<string, (data: Uint8Array) => string | undefined>();
  const auth = `Basic ${btoa(`api:${apiKey}`)}`;
  let base = "";
  const state: FakeWandb = {
    url: "",
    runs,
    artifacts,
    operations,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
  const graphqlError = (message: string) => Response.json({ errors: [{ message }] }, { status: 400 });
  const upload = (key: string, accept: (data: Uint8Array) => string | undefined) => {
    uploads.set(key, accept);
    return `${base}/upload/${key}`;
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const url = new URL(req.url);
    if (state.failWith !== undefined) return new Response("down", { status: state.failWith });
    if (req.method === "PUT" && url.pathname.startsWith("/upload/")) {
      const accept = uploads.get(decodeURIComponent(url.pathname.slice("/upload/".length)));
      if (accept === undefined) return new Response("no such upload", { status: 404 });
      const problem = accept(new Uint8Array(await req.arrayBuffer()));
      return problem === undefined ? new Response(null, { status: 200 }) : new Response(problem, { status: 400 });
    }
    if (req.headers.get("authorization") !== auth) return new Response("bad key", { status: 401 });
    const stream = /^\/files\/([^/]+)\/([^/]+)\/([^/]+)\/file_stream$/.exec(url.pathname);
    if (req.method === "POST" && stream !== null) {
      const run = runs.find((r) => r.id === stream[3] && r.entity === stream[1] && r.project === stream[2]);
      if (run === undefined) return new Response("no run", { status: 404 });
      run.stream.push(await req.json());
      return Response.json({ exitcode: null, limits: {} });
    }
    if (req.method !== "POST" || url.pathname !== "/graphql") return new Response("not found", { status: 404 });
    const { query, variables: v = {} } = await req.json();
    const op = /^\s*(?:query|mutation)\s+(\w+)/.exec(query)?.[1] ?? "";
    operations.push(op);
    const required = REQUIRED[op];
    if (required === undefined) return graphqlError(`unknown operation ${op}`);
    const absent = required.filter((k) => v[k] === undefined || v[k] === null);
    if (absent.length > 0) return graphqlError(`${op}: missing ${absent.join(", ")}`);
    switch (op) {
      case "Viewer":
        return Response.json({ data: { viewer: { entity } } });
      case "UpsertBucket": {
        runs.push({
          id: v.name,
          entity: v.entity,
          project: v.project,
          displayName: v.displayName,
          config: JSON.parse(v.config),
          tags: v.tags ?? [],
          files: new Map(),
          stream: [],
        });
        return Response.json({
          data: { upsertBucket: { bucket: { id: "b1", name: v.name, displayName: v.displayName }, inserted: true } },
        });
      }
      case "CreateRunFiles": {
        const run = runs.find((r) => r.id === v.run);
        if (run === undefined) return graphqlError("no run");
        const files = (v.files as string[]).map((name) => ({
          name,
          uploadUrl: upload(`run/${run.id}/${name}`, (data) => void run.files.set(name, data)),
        }));
        return Response.json({ data: { createRunFiles: { runID: "r1", uploadHeaders: [], files } } });
      }
      case "CreateArtifact": {
        const artifact: FakeArtifact = {
          id: `art${artifacts.length}`,
          input: v.input,
          files: new Map(),
          committed: false,
        };
        artifacts.push(artifact);
        return Response.json({ data: { createArtifact: { artifact: { id: artifact.id, state: "PENDING" } } } });
      }
      case "CreateArtifactManifest": {
        const artifact = artifacts.find((a) => a.id === v.artifactID);
        if (artifact === undefined) return graphqlError("no artifact");
        const file = v.includeUpload
          ? {
            uploadUrl: upload(`manifest/${artifact.id}`, (data) => {
              if (md5b64(data) !== v.digest) return "manifest digest mismatch";
              artifact.manifest = JSON.parse(new TextDecoder().decode(data));
            }),
            uploadHeaders: ["Content-Type:application/json"],
          }
          : {};
        return Response.json({ data: { createArtifactManifest: { artifactManifest: { id: "m1", file } } } });
      }
      case "CreateArtifactFiles": {
        const edges = (v.input.artifactFiles as { artifactID: string; name: string; md5: string }[]).map((f) => {
          const artifact = artifacts.find((a) => a.id === f.artifactID)!;
          artifact.files.set(f.name, { md5: f.md5 });
          const uploadUrl = upload(`art/${artifact.id}/${f.name}`, (data) => {
            if (md5b64(data) !== f.md5) return `${f.name}: MD5 mismatch`;
            artifact.files.set(f.name, { md5: f.md5, data });
          });
          return { node: { name: f.name, uploadUrl, uploadHeaders: [] } };
        });
        return Response.json({ data: { createArtifactFiles: { files: { edges } } } });
      }
      case "CommitArtifact": {
        const artifact = artifacts.find((a) => a.id === v.artifactID);
        if (artifact === undefined || artifact.manifest === undefined) return graphqlError("nothing to commit");
        artifact.committed = true;
        return Response.json({ data: { commitArtifact: { artifact: { id: artifact.id, digest: "d" } } } });
      }
    }
    return graphqlError("unreachable");
  });
  base = `http://127.0.0.1:${server.addr.port}`;
  return Object.assign(state, { url: base });
}
