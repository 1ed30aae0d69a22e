/**
 * An OCI image written directly — no registry, no daemon, no image tool: one layer (a ustar archive, gzipped), the
 * image config, the manifest, and the image layout (`oci-layout`, `index.json`, `blobs/sha256/…`), optionally
 * packed into one tar that `ctr images import`, `podman load` or `skopeo copy oci-archive:` read.
 * Every entry has mtime 0 and root ownership unless given, so the same inputs give the same digests.
 */

export interface LayerEntry {
  /** Path in the image, without a leading slash (e.g. `usr/local/bin/deno`). */
  readonly path: string;
  readonly type: "file" | "dir" | "symlink";
  /** File contents. */
  readonly data?: Uint8Array;
  /** Symlink target. */
  readonly target?: string;
  /** @default 0o644 files, 0o755 directories, 0o777 links */
  readonly mode?: number;
  readonly uid?: number;
  readonly gid?: number;
}

const encoder = new TextEncoder();

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, "0") + "\0";
}

/** One ustar header block (paths longer than 100 bytes use the prefix field). */
function header(e: LayerEntry, size: number): Uint8Array {
  const h = new Uint8Array(512);
  let name = e.path + (e.type === "dir" && !e.path.endsWith("/") ? "/" : "");
  let prefix = "";
  if (encoder.encode(name).length > 100) {
    const cut = name.lastIndexOf("/", name.length - 2);
    prefix = name.slice(0, cut);
    name = name.slice(cut + 1);
    if (encoder.encode(name).length > 100 || encoder.encode(prefix).length > 155) {
      throw new Error(`path too long for ustar: ${e.path}`);
    }
  }
  const put = (text: string, at: number) => h.set(encoder.encode(text), at);
  put(name, 0);
  const mode = e.mode ?? (e.type === "dir" ? 0o755 : e.type === "symlink" ? 0o777 : 0o644);
  put(octal(mode, 8), 100);
  put(octal(e.uid ?? 0, 8), 108);
  put(octal(e.gid ?? 0, 8), 116);
  put(octal(size, 12), 124);
  put(octal(0, 12), 136);
  put("        ", 148);
  put(e.type === "dir" ? "5" : e.type === "symlink" ? "2" : "0", 156);
  if (e.type === "symlink") put(e.target ?? "", 157);
  put("ustar\0", 257);
  put("00", 263);
  put(prefix, 345);
  let sum = 0;
  for (const b of h) sum += b;
  put(sum.toString(8).padStart(6, "0") + "\0 ", 148);
  return h;
}

/** A tar archive of the entries, parents first (directories are added where the entries do not list them). */
export function tarArchive(entries: readonly LayerEntry[]): Uint8Array {
  const all = new Map<string, LayerEntry>();
  for (const e of entries) {
    const parts = e.path.split("/");
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join("/");
      if (!all.has(dir)) all.set(dir, { path: dir, type: "dir" });
    }
    all.set(e.path, e);
  }
  const sorted = [...all.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (const e of sorted) {
    const size = e.type === "file" ? e.data?.length ?? 0 : 0;
    chunks.push(header(e, size));
    total += 512;
    if (size > 0) {
      chunks.push(e.data!);
      const pad = (512 - (size % 512)) % 512;
      chunks.push(new Uint8Array(pad));
      total += size + pad;
    }
  }
  chunks.push(new Uint8Array(1024));
  total += 1024;
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

export async function sha256(bytes: Uint8Array): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
  return "sha256:" + [...d].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export async function gzipBytes(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

export interface ImageConfig {
  readonly user?: string;
  readonly env?: readonly string[];
  readonly entrypoint?: readonly string[];
  readonly cmd?: readonly string[];
  readonly workingDir?: string;
  readonly labels?: Readonly<Record<string, string>>;
}

export interface OciImage {
  /** Path → contents of the image layout. */
  readonly files: ReadonlyMap<string, Uint8Array>;
  readonly manifestDigest: string;
  readonly configDigest: string;
  readonly layerDigest: string;
  /** The uncompressed layer's digest (the config's diff_id). */
  readonly diffId: string;
}

/**
 * The image layout of a one-layer image named `name` (e.g. `docker.io/library/infermeter:1.0`): `index.json`
 * names it by `org.opencontainers.image.ref.name` (its tag) and `io.containerd.image.name` (the whole name).
 */
export async function ociImage(
  name: string,
  entries: readonly LayerEntry[],
  config: ImageConfig,
  arch = "amd64",
): Promise<OciImage> {
  const tar = tarArchive(entries);
  const layer = await gzipBytes(tar);
  const diffId = await sha256(tar);
  const layerDigest = await sha256(layer);
  const configJson = encoder.encode(JSON.stringify({
    architecture: arch,
    os: "linux",
    created: "1970-01-01T00:00:00Z",
    config: {
      ...(config.user ? { User: config.user } : {}),
      ...(config.env ? { Env: config.env } : {}),
      ...(config.entrypoint ? { Entrypoint: config.entrypoint } : {}),
      ...(config.cmd ? { Cmd: config.cmd } : {}),
      ...(config.workingDir ? { WorkingDir: config.workingDir } : {}),
      ...(config.labels ? { Labels: config.labels } : {}),
    },
    rootfs: { type: "layers", diff_ids: [diffId] },
    history: [{ created: "1970-01-01T00:00:00Z", created_by: "infermeter scripts/image/build_oci.ts" }],
  }));
  const configDigest = await sha256(configJson);
  const manifest = encoder.encode(JSON.stringify({
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.manifest.v1+json",
    config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: configDigest, size: configJson.length },
    layers: [{ mediaType: "application/vnd.oci.image.layer.v1.tar+gzip", digest: layerDigest, size: layer.length }],
  }));
  const manifestDigest = await sha256(manifest);
  const tag = name.slice(name.lastIndexOf(":") + 1);
  const index = encoder.encode(JSON.stringify({
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.index.v1+json",
    manifests: [{
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      digest: manifestDigest,
      size: manifest.length,
      platform: { architecture: arch, os: "linux" },
      annotations: { "org.opencontainers.image.ref.name": tag, "io.containerd.image.name": name },
    }],
  }));
  const blob = (d: string) => `blobs/sha256/${d.slice("sha256:".length)}`;
  const files = new Map<string, Uint8Array>([
    ["oci-layout", encoder.encode(JSON.stringify({ imageLayoutVersion: "1.0.0" }))],
    ["index.json", index],
    [blob(manifestDigest), manifest],
    [blob(configDigest), configJson],
    [blob(layerDigest), layer],
  ]);
  return { files, manifestDigest, configDigest, layerDigest, diffId };
}

/** The layout as one tar (an `oci-archive`). */
export function layoutArchive(image: OciImage): Uint8Array {
  return tarArchive([...image.files].map(([path, data]) => ({ path, type: "file", data })));
}
