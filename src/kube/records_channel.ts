/**
 * How a shard's records get home: at the end of its run, the shard gzips its whole line stream (shard_stream.ts)
 * and writes it into ConfigMaps of at most 700 KiB each (`binaryData`, under the API server's 1 MiB object limit),
 * named `<run>-records-<index>-<chunk>`, each labelled with the run, the index and the pod, and annotated with the
 * chunk count and the stream's SHA-256. The coordinator lists them by label once the Job is done.
 *
 * Why ConfigMaps through the API server: it is the one endpoint both the pods and the coordinator already reach
 * (the coordinator may sit outside the cluster network; no Service, port, exec, log scraping or shared volume is
 * needed), the records outlive the pod (a pod that finished need not stay up to be read), RBAC scopes it, and
 * every chunk is checked (count and digest) so a lost or torn upload is an error, never a silent hole. The cost —
 * a run's compressed records in etcd until cleanup — is bounded by the chunk size and removed with the run.
 */
import { ROLE_LABEL, RUN_LABEL } from "./kube_manifests.ts";

export const CHUNK_BYTES = 700 * 1024;
export const INDEX_LABEL = "infermeter.dev/index";
export const POD_LABEL = "infermeter.dev/pod";
export const CHUNK_ANNOTATION = "infermeter.dev/chunk";
export const CHUNKS_ANNOTATION = "infermeter.dev/chunks";
export const DIGEST_ANNOTATION = "infermeter.dev/sha256";

export async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(
    await new Response(new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer(),
  );
}

export async function gunzip(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(
    await new Response(new Blob([bytes as BlobPart]).stream().pipeThrough(new DecompressionStream("gzip")))
      .arrayBuffer(),
  );
}

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
  return [...d].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

function fromBase64(text: string): Uint8Array {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** The ConfigMaps holding one shard's stream (already gzipped), in chunk order. */
export async function recordChunkObjects(o: {
  run: string;
  namespace: string;
  index: number;
  pod: string;
  gzipped: Uint8Array;
  owner?: { name: string; uid: string };
  chunkBytes?: number;
}): Promise<Record<string, unknown>[]> {
  const size = o.chunkBytes ?? CHUNK_BYTES;
  const digest = await sha256Hex(o.gzipped);
  const count = Math.max(1, Math.ceil(o.gzipped.length / size));
  const objects: Record<string, unknown>[] = [];
  for (let c = 0; c < count; c++) {
    objects.push({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: `${o.run}-records-${o.index}-${c}`,
        namespace: o.namespace,
        labels: {
          "app.kubernetes.io/name": "infermeter",
          [RUN_LABEL]: o.run,
          [ROLE_LABEL]: "records",
          [INDEX_LABEL]: String(o.index),
          [POD_LABEL]: o.pod.slice(0, 63),
        },
        annotations: { [CHUNK_ANNOTATION]: String(c), [CHUNKS_ANNOTATION]: String(count), [DIGEST_ANNOTATION]: digest },
        ...(o.owner
          ? { ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: o.owner.name, uid: o.owner.uid }] }
          : {}),
      },
      binaryData: { "records.jsonl.gz": toBase64(o.gzipped.subarray(c * size, (c + 1) * size)) },
    });
  }
  return objects;
}

export interface ChunkObject {
  readonly metadata?: { name?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  readonly binaryData?: Record<string, string>;
}

/** Why a shard's records cannot be merged. */
export class RecordsChannelError extends Error {
  override name = "RecordsChannelError";
}

/**
 * Reassembles each index's stream from the listed chunk ConfigMaps: every chunk present once, from one pod,
 * and the digest matching. Returns the decompressed stream per index; an index with a problem throws.
 */
export async function assembleStreams(objects: readonly ChunkObject[]): Promise<Map<number, Uint8Array>> {
  const byIndex = new Map<number, ChunkObject[]>();
  for (const o of objects) {
    const index = Number(o.metadata?.labels?.[INDEX_LABEL]);
    if (!Number.isInteger(index)) continue;
    byIndex.set(index, [...(byIndex.get(index) ?? []), o]);
  }
  const out = new Map<number, Uint8Array>();
  for (const [index, chunks] of [...byIndex].sort((a, b) => a[0] - b[0])) {
    const pods = new Set(chunks.map((c) => c.metadata?.labels?.[POD_LABEL]));
    if (pods.size > 1) {
      throw new RecordsChannelError(
        `index ${index}: records from ${pods.size} pods (${[...pods].join(", ")}): duplicated`,
      );
    }
    const count = Number(chunks[0].metadata?.annotations?.[CHUNKS_ANNOTATION]);
    const digest = chunks[0].metadata?.annotations?.[DIGEST_ANNOTATION];
    const seen = new Map<number, Uint8Array>();
    for (const c of chunks) {
      const at = Number(c.metadata?.annotations?.[CHUNK_ANNOTATION]);
      if (seen.has(at)) throw new RecordsChannelError(`index ${index}: chunk ${at} twice: duplicated`);
      seen.set(at, fromBase64(c.binaryData?.["records.jsonl.gz"] ?? ""));
    }
    if (!Number.isInteger(count) || seen.size !== count) {
      throw new RecordsChannelError(`index ${index}: ${seen.size} of ${count} record chunks present: incomplete`);
    }
    const parts = [...Array(count).keys()].map((i) => seen.get(i)!);
    const whole = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      whole.set(p, at);
      at += p.length;
    }
    if ((await sha256Hex(whole)) !== digest) throw new RecordsChannelError(`index ${index}: records digest mismatch`);
    out.set(index, await gunzip(whole));
  }
  return out;
}

/** Parses a Job's `completedIndexes`/`failedIndexes` ("1,3-5,7") into indexes. */
export function parseIndexes(text: string | undefined): number[] {
  if (text === undefined || text.trim() === "") return [];
  const out: number[] = [];
  for (const part of text.split(",")) {
    const [a, b] = part.split("-").map(Number);
    for (let i = a; i <= (b ?? a); i++) out.push(i);
  }
  return out;
}

export interface MergePlan {
  /** Indexes whose records are merged. */
  readonly merge: readonly number[];
  /** Indexes that did not complete (failed, killed, or never ran). */
  readonly notCompleted: readonly number[];
  /** Problems that refuse the merge of an index (no records, records from an index that did not complete). */
  readonly problems: readonly string[];
}

/**
 * Which indexes merge: exactly the Job's completed ones, each with its records. A completed index without records,
 * or records of an index the Job does not list as completed, is a problem (the run is partial, never padded).
 */
export function planMerge(
  shards: number,
  completedIndexes: string | undefined,
  withRecords: Iterable<number>,
): MergePlan {
  const completed = new Set(parseIndexes(completedIndexes));
  const have = new Set(withRecords);
  const merge: number[] = [];
  const notCompleted: number[] = [];
  const problems: string[] = [];
  for (let i = 0; i < shards; i++) {
    if (!completed.has(i)) {
      notCompleted.push(i);
      if (have.has(i)) problems.push(`index ${i}: records present but the Job does not list it as completed; left out`);
    } else if (!have.has(i)) {
      problems.push(`index ${i}: completed but no records reached the coordinator; left out`);
    } else merge.push(i);
  }
  for (const i of completed) if (i < 0 || i >= shards) problems.push(`index ${i}: outside 0…${shards - 1}`);
  return { merge, notCompleted, problems };
}
