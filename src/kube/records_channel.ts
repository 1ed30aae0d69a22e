/**
 * The Kubernetes transport of the shard protocol (engine/shard_event.ts): a shard pod's events go home as gzip
 * chunks of JSON lines (engine/shard_lines.ts) in ConfigMaps, uploaded during the run — every `intervalMs`, or
 * sooner when a chunk fills — and once more when the shard ends (also on SIGTERM, within the pod's grace period),
 * so a lost pod loses at most its last interval. Chunk k of index i is ConfigMap `<run>-records-<i>-<k>`, labelled
 * with the run, the index and the pod, annotated with its sequence number, its SHA-256 and, on the final one,
 * `last`. Control comes the other way through the run's start ConfigMap: each shard adds a `ready` annotation, the
 * coordinator writes the start time there, and later a `cancel` annotation, which every shard watches.
 *
 * Why ConfigMaps through the API server: it is the one endpoint both the pods and the coordinator already reach
 * (the coordinator may sit outside the cluster network; no Service, port, exec, log scraping or shared volume is
 * needed), the records outlive the pod, RBAC scopes it, and every chunk is checked (order, digest, one pod per
 * index) so a lost or torn upload is an error, never a silent hole. The cost — a run's compressed records in etcd
 * until cleanup — is bounded by the chunk size and removed with the run.
 */
import type { ShardChannel, ShardControl, ShardEvent, ShardLink } from "../engine/shard_event.ts";
import { encodeEventLines, readEventLines, ShardStreamError } from "../engine/shard_lines.ts";
import type { Logger } from "../ui/logger.ts";
import { KubeApiError, type KubeObject, kubePaths, type WatchEvent } from "./kube_client.ts";
import {
  CANCEL_ANNOTATION,
  names,
  READY_ANNOTATION_PREFIX,
  ROLE_LABEL,
  RUN_LABEL,
  START_ANNOTATION,
} from "./kube_manifests.ts";

/** Most compressed bytes per chunk: under the API server's 1 MiB object limit with base64 and metadata. */
export const CHUNK_BYTES = 700 * 1024;
/** Most uncompressed bytes gathered before a chunk is cut between intervals. */
const CUT_BYTES = 4 * 1024 * 1024;
/** Records per chunk at most, between intervals. */
const CUT_RECORDS = 20_000;
/** Default upload interval (ms): what a lost pod may lose at most. */
export const UPLOAD_INTERVAL_MS = 5000;

export const INDEX_LABEL = "infermeter.dev/index";
export const POD_LABEL = "infermeter.dev/pod";
export const CHUNK_ANNOTATION = "infermeter.dev/chunk";
export const LAST_ANNOTATION = "infermeter.dev/last";
export const DIGEST_ANNOTATION = "infermeter.dev/sha256";
const DATA_KEY = "records.jsonl.gz";

/** The part of the API client the transport uses (KubeClient; an in-memory one in tests). */
export interface RecordsApi {
  get<T = KubeObject>(path: string, signal?: AbortSignal): Promise<T>;
  create<T = KubeObject>(collectionPath: string, object: unknown): Promise<T>;
  mergePatch<T = KubeObject>(path: string, patch: unknown): Promise<T>;
  waitFor<T extends KubeObject>(
    collectionPath: string,
    name: string,
    test: (object: T) => boolean,
    signal?: AbortSignal,
  ): Promise<T>;
  watch(
    collectionPath: string,
    o?: { resourceVersion?: string; query?: string; signal?: AbortSignal; timeoutSeconds?: number },
  ): AsyncGenerator<WatchEvent>;
}

export async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(
    await new Response(new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer(),
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

/** One chunk's ConfigMap. */
export async function chunkObject(o: {
  run: string;
  namespace: string;
  index: number;
  pod: string;
  seq: number;
  last: boolean;
  gzipped: Uint8Array;
  owner?: { name: string; uid: string };
}): Promise<Record<string, unknown>> {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: `${names(o.run).recordsPrefix}${o.index}-${o.seq}`,
      namespace: o.namespace,
      labels: {
        "app.kubernetes.io/name": "infermeter",
        "app.kubernetes.io/instance": o.run,
        "app.kubernetes.io/component": "records",
        "app.kubernetes.io/managed-by": "infermeter",
        [RUN_LABEL]: o.run,
        [ROLE_LABEL]: "records",
        [INDEX_LABEL]: String(o.index),
        [POD_LABEL]: o.pod.slice(0, 63),
      },
      annotations: {
        [CHUNK_ANNOTATION]: String(o.seq),
        [DIGEST_ANNOTATION]: await sha256Hex(o.gzipped),
        ...(o.last ? { [LAST_ANNOTATION]: "true" } : {}),
      },
      ...(o.owner
        ? { ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: o.owner.name, uid: o.owner.uid }] }
        : {}),
    },
    binaryData: { [DATA_KEY]: toBase64(o.gzipped) },
  };
}

export interface KubeChannelOptions {
  readonly api: RecordsApi;
  readonly run: string;
  readonly namespace: string;
  readonly index: number;
  readonly pod: string;
  /** The start ConfigMap's uid: chunks are owned by it, so they go when the run's objects go. */
  readonly ownerUid?: string;
  /** @default UPLOAD_INTERVAL_MS */
  readonly intervalMs?: number;
  readonly logger?: Logger;
  /** Pauses between upload attempts (ms); the chunk is given up after the last. */
  readonly retryDelaysMs?: readonly number[];
}

const RETRY_DELAYS_MS = [250, 500, 1000, 2000, 4000, 8000];

/**
 * The shard pod's end: events are gathered as lines and uploaded in order, one chunk at a time; `activity` is
 * not sent (it would arrive an interval late). `ready` is also reported on the start ConfigMap at once, and from
 * then on that ConfigMap is watched for the start and for a cancel.
 */
export function kubeShardChannel(o: KubeChannelOptions): ShardChannel {
  const n = names(o.run);
  const cms = kubePaths.configMaps(o.namespace);
  const startPath = `${cms}/${n.start}`;
  const stop = new AbortController();
  let lines: string[] = [];
  let bytes = 0;
  let records = 0;
  let seq = 0;
  let chain: Promise<void> = Promise.resolve();
  let broken = false;
  let offset = 0;
  let onControl: ((c: ShardControl) => void) | undefined;
  const early: ShardControl[] = [];
  const control = (c: ShardControl) => onControl ? onControl(c) : early.push(c);

  const upload = async (text: string, last: boolean): Promise<void> => {
    if (broken) return;
    const raw = new TextEncoder().encode(text);
    const gz = await gzip(raw);
    if (gz.length > CHUNK_BYTES && text.length > 0) {
      // Too big once compressed (hardly compressible records): halve at a line boundary and send both in order.
      const cut = text.lastIndexOf("\n", Math.floor(text.length / 2));
      if (cut > 0 && cut < text.length - 1) {
        await upload(text.slice(0, cut + 1), false);
        return await upload(text.slice(cut + 1), last);
      }
    }
    const object = await chunkObject({
      run: o.run,
      namespace: o.namespace,
      index: o.index,
      pod: o.pod,
      seq,
      last,
      gzipped: gz,
      owner: o.ownerUid ? { name: n.start, uid: o.ownerUid } : undefined,
    });
    const delays = o.retryDelaysMs ?? RETRY_DELAYS_MS;
    for (let attempt = 0;; attempt++) {
      try {
        await o.api.create(cms, object);
        break;
      } catch (err) {
        // A create whose answer was lost may have landed: the same name is this very chunk.
        if (err instanceof KubeApiError && err.status === 409) break;
        const permanent = err instanceof KubeApiError && err.status !== 429 && err.status < 500;
        if (permanent || attempt >= delays.length) {
          broken = true;
          o.logger?.error(
            `shard ${o.index}: records chunk ${seq} could not be uploaded (${(err as Error).message}); ` +
              "the records after it are lost",
          );
          return;
        }
        await new Promise((r) => setTimeout(r, delays[attempt]));
      }
    }
    seq++;
  };
  const cut = (last: boolean) => {
    if (lines.length === 0 && !last) return;
    const text = lines.join("");
    lines = [];
    bytes = 0;
    records = 0;
    chain = chain.then(() => upload(text, last));
  };
  const timer = setInterval(() => cut(false), o.intervalMs ?? UPLOAD_INTERVAL_MS);

  const watchControl = async () => {
    type Cm = KubeObject & { metadata?: { annotations?: Record<string, string> } };
    const at = (cm: Cm, key: string) => cm.metadata?.annotations?.[key];
    try {
      const cm = await o.api.waitFor<Cm>(
        cms,
        n.start,
        (c) => at(c, START_ANNOTATION) !== undefined || at(c, CANCEL_ANNOTATION) !== undefined,
        stop.signal,
      );
      if (at(cm, CANCEL_ANNOTATION) !== undefined) return control({ type: "cancel" });
      // The start is on the coordinator's clock: on this one it is `offset` earlier.
      control({ type: "start", epochMs: Number(at(cm, START_ANNOTATION)) - offset });
      await o.api.waitFor<Cm>(cms, n.start, (c) => at(c, CANCEL_ANNOTATION) !== undefined, stop.signal);
      control({ type: "cancel" });
    } catch (err) {
      if (stop.signal.aborted) return;
      // The run's objects are gone (the coordinator cleaned up) or unreachable: nothing will start or await us.
      o.logger?.warning(`shard ${o.index}: lost the start ConfigMap (${(err as Error).message}); stopping`);
      control({ type: "cancel" });
    }
  };

  return {
    send(e: ShardEvent) {
      if (e.type === "activity") return;
      const text = encodeEventLines(e);
      lines.push(text);
      bytes += text.length;
      if (e.type === "records") records += e.records.length;
      if (e.type === "ready") {
        // First the clock against the coordinator's, then ready: the start comes only once every shard measured.
        (async () => {
          const clock = await measureClock({ ...o, stop: stop.signal });
          if (clock !== undefined) {
            offset = clock.offsetMs;
            const text = encodeEventLines({ type: "clock", ...clock });
            lines.push(text);
            bytes += text.length;
            o.logger?.info(
              `shard ${o.index}: clock offset to the coordinator ${clock.offsetMs.toFixed(1)} ms ` +
                `(± ${clock.uncertaintyMs.toFixed(1)} ms)`,
            );
          }
          await o.api.mergePatch(startPath, {
            metadata: {
              annotations: {
                [`${READY_ANNOTATION_PREFIX}${o.index}`]: o.pod,
                [`${CLOCK_PING_PREFIX}${o.index}`]: null,
                [`${CLOCK_PONG_PREFIX}${o.index}`]: null,
              },
            },
          });
        })().then(() => watchControl(), (err: Error) => {
          o.logger?.error(`shard ${o.index}: could not report ready (${err.message})`);
          control({ type: "cancel" });
        });
      }
      if (bytes >= CUT_BYTES || records >= CUT_RECORDS) cut(false);
    },
    onControl(handler) {
      onControl = handler;
      for (const c of early.splice(0)) handler(c);
    },
    async close() {
      clearInterval(timer);
      stop.abort();
      cut(true);
      await chain;
    },
  };
}

/** Clock pings (shard: `<seq>`) and pongs (coordinator: `<seq>:<its epoch ms on receipt>`) on the start ConfigMap. */
export const CLOCK_PING_PREFIX = "infermeter.dev/clock-ping-";
export const CLOCK_PONG_PREFIX = "infermeter.dev/clock-pong-";
const CLOCK_SAMPLES = 5;
const CLOCK_TIMEOUT_MS = 5000;

/** This process's wall clock as precisely as it reads (epoch ms). */
const epochNow = () => performance.timeOrigin + performance.now();

/**
 * The coordinator's clock minus this shard's, measured NTP-style through the start ConfigMap: the shard writes a
 * ping at t1, the coordinator answers with its own time tc as soon as its watch shows the ping, the shard sees the
 * answer at t4. The true offset lies in [tc − t4, tc − t1]: the midpoint of the sample with the shortest round
 * trip is taken, ± half that round trip. Undefined when no coordinator answers (e.g. one that predates this).
 */
export async function measureClock(o: {
  readonly api: RecordsApi;
  readonly run: string;
  readonly namespace: string;
  readonly index: number;
  readonly stop: AbortSignal;
  readonly logger?: Logger;
  readonly now?: () => number;
}): Promise<{ offsetMs: number; uncertaintyMs: number } | undefined> {
  const now = o.now ?? epochNow;
  const cms = kubePaths.configMaps(o.namespace);
  const start = names(o.run).start;
  const ping = `${CLOCK_PING_PREFIX}${o.index}`;
  const pong = `${CLOCK_PONG_PREFIX}${o.index}`;
  let best: { offsetMs: number; uncertaintyMs: number } | undefined;
  for (let seq = 1; seq <= CLOCK_SAMPLES; seq++) {
    const t1 = now();
    let answer: string | undefined;
    try {
      await o.api.mergePatch(`${cms}/${start}`, { metadata: { annotations: { [ping]: String(seq) } } });
      const cm = await o.api.waitFor<KubeObject>(
        cms,
        start,
        (c) => c.metadata?.annotations?.[pong]?.startsWith(`${seq}:`) === true,
        AbortSignal.any([o.stop, AbortSignal.timeout(CLOCK_TIMEOUT_MS)]),
      );
      answer = cm.metadata?.annotations?.[pong];
    } catch (err) {
      if (o.stop.aborted) return best;
      o.logger?.warning(
        `shard ${o.index}: the clock offset to the coordinator could not be measured ` +
          `(${(err as Error).message}); this shard's times are taken as they are`,
      );
      return best;
    }
    const t4 = now();
    const tc = Number(answer!.slice(answer!.indexOf(":") + 1));
    const sample = { offsetMs: tc - (t1 + t4) / 2, uncertaintyMs: (t4 - t1) / 2 };
    if (Number.isFinite(sample.offsetMs) && (best === undefined || sample.uncertaintyMs < best.uncertaintyMs)) {
      best = sample;
    }
  }
  return best;
}

/**
 * The coordinator's side of measureClock: answers every ping on the start ConfigMap not answered yet with this
 * process's time, in one patch. Call it with each version of the start ConfigMap as soon as it is seen.
 */
export async function answerClockPings(
  api: Pick<RecordsApi, "mergePatch">,
  startPath: string,
  startCm: KubeObject,
  now: () => number = epochNow,
): Promise<number> {
  const annotations = startCm.metadata?.annotations ?? {};
  const answers: Record<string, string> = {};
  for (const [key, seq] of Object.entries(annotations)) {
    if (!key.startsWith(CLOCK_PING_PREFIX)) continue;
    const pong = `${CLOCK_PONG_PREFIX}${key.slice(CLOCK_PING_PREFIX.length)}`;
    if (annotations[pong]?.startsWith(`${seq}:`)) continue;
    answers[pong] = `${seq}:${now()}`;
  }
  const count = Object.keys(answers).length;
  if (count > 0) await api.mergePatch(startPath, { metadata: { annotations: answers } });
  return count;
}

interface ChunkObject extends KubeObject {
  metadata?: KubeObject["metadata"] & { labels?: Record<string, string>; annotations?: Record<string, string> };
  binaryData?: Record<string, string>;
}

interface IndexState {
  handler?: (e: ShardEvent) => void;
  pod?: string;
  next: number;
  pending: Map<number, ChunkObject>;
  chain: Promise<void>;
  ended: boolean;
  end: (reason: string | undefined) => void;
  readonly endedWith: Promise<string | undefined>;
}

/**
 * The coordinator's end of every index of a run: one watch on the run's record chunks, each chunk checked and
 * decoded in order per index, and the events handed to that index's link. A stream ends at its `last` chunk, or
 * when `settle` says the index's pod is gone (then whatever was uploaded is kept, and the link says why it ended).
 */
export class KubeRecordLinks {
  readonly links: readonly ShardLink[];
  /** Chunks refused (another pod's for an index, a bad digest): each also ends or skips what it concerns. */
  readonly problems: string[] = [];
  readonly #api: RecordsApi;
  readonly #run: string;
  readonly #namespace: string;
  readonly #states: IndexState[];
  readonly #seen = new Set<string>();
  readonly #stop = new AbortController();
  readonly #logger?: Logger;
  #watching?: Promise<void>;
  #cancelled = false;

  constructor(api: RecordsApi, o: { run: string; namespace: string; shards: number; logger?: Logger }) {
    this.#api = api;
    this.#run = o.run;
    this.#namespace = o.namespace;
    this.#logger = o.logger;
    this.#states = Array.from({ length: o.shards }, () => {
      let end!: (reason: string | undefined) => void;
      const endedWith = new Promise<string | undefined>((r) => end = r);
      return { next: 0, pending: new Map(), chain: Promise.resolve(), ended: false, end, endedWith };
    });
    this.links = this.#states.map((s) => ({
      onEvent: (h: (e: ShardEvent) => void) => {
        s.handler = h;
        this.#watching ??= this.#watch();
      },
      control: (c: ShardControl) => {
        if (c.type === "cancel") void this.cancel();
      },
      ended: s.endedWith,
      abort: () => this.#finish(s, "was abandoned"),
    }));
  }

  /** Tells every shard to stop (the start ConfigMap's cancel annotation); they upload what they measured. */
  async cancel(): Promise<void> {
    if (this.#cancelled) return;
    this.#cancelled = true;
    const path = `${kubePaths.configMaps(this.#namespace)}/${names(this.#run).start}`;
    try {
      await this.#api.mergePatch(path, {
        metadata: { annotations: { [CANCEL_ANNOTATION]: new Date().toISOString() } },
      });
    } catch (err) {
      this.#logger?.error(`could not tell the shards to stop (${(err as Error).message})`);
    }
  }

  /**
   * The index's pod has ended (the Job lists it as completed or failed): reads its chunks once more, and ends its
   * stream if no `last` chunk came, saying `why`.
   */
  async settle(index: number, why: string): Promise<void> {
    const s = this.#states[index];
    if (s === undefined || s.ended) return;
    await this.#list(`${INDEX_LABEL}=${index}`);
    await s.chain;
    if (!s.ended) {
      const at = s.next === 0 ? "no records chunk came" : `its records end at chunk ${s.next - 1}`;
      this.#finish(s, `${why} (${at})`);
    }
  }

  /** Stops watching; streams not ended end now. */
  close(): void {
    this.#stop.abort();
    for (const s of this.#states) this.#finish(s, "was not collected");
  }

  #selector(extra?: string): string {
    const sel = `${RUN_LABEL}=${this.#run},${ROLE_LABEL}=records${extra ? `,${extra}` : ""}`;
    return `labelSelector=${encodeURIComponent(sel)}`;
  }

  async #list(extra?: string): Promise<string | undefined> {
    const list = await this.#api.get<{ items: ChunkObject[]; metadata?: { resourceVersion?: string } }>(
      `${kubePaths.configMaps(this.#namespace)}?${this.#selector(extra)}`,
    );
    for (const item of list.items) this.#take(item);
    return list.metadata?.resourceVersion;
  }

  async #watch(): Promise<void> {
    const signal = this.#stop.signal;
    while (!signal.aborted && this.#states.some((s) => !s.ended)) {
      try {
        const rv = await this.#list();
        for await (
          const event of this.#api.watch(kubePaths.configMaps(this.#namespace), {
            resourceVersion: rv,
            query: this.#selector(),
            signal,
            timeoutSeconds: 60,
          })
        ) {
          if (event.type === "ERROR") break; // expired: list again
          if (event.type === "ADDED" || event.type === "MODIFIED") this.#take(event.object as ChunkObject);
          if (this.#states.every((s) => s.ended)) return;
        }
      } catch (err) {
        if (signal.aborted) return;
        this.#logger?.warning(`watching the records: ${(err as Error).message}; retrying`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  #take(c: ChunkObject): void {
    const name = c.metadata?.name ?? "";
    if (this.#seen.has(name)) return;
    this.#seen.add(name);
    const index = Number(c.metadata?.labels?.[INDEX_LABEL]);
    const s = this.#states[index];
    if (!Number.isInteger(index) || s === undefined) {
      this.problems.push(`records chunk ${name}: index outside 0…${this.#states.length - 1}; ignored`);
      return;
    }
    const pod = c.metadata?.labels?.[POD_LABEL];
    s.pod ??= pod;
    if (pod !== s.pod) {
      // A second pod for one index (a retried index would replay its load): only the first one's records count.
      this.problems.push(`index ${index}: records from pod ${pod} as well as ${s.pod}: duplicated; ignored`);
      return;
    }
    const seq = Number(c.metadata?.annotations?.[CHUNK_ANNOTATION]);
    if (!Number.isInteger(seq) || seq < s.next) return;
    s.pending.set(seq, c);
    this.#drain(index, s);
  }

  #drain(index: number, s: IndexState): void {
    s.chain = s.chain.then(async () => {
      while (!s.ended && s.handler !== undefined && s.pending.has(s.next)) {
        const c = s.pending.get(s.next)!;
        s.pending.delete(s.next);
        const why = await this.#deliver(index, s, c);
        s.next++;
        if (why !== null) this.#finish(s, why);
      }
    });
  }

  /** Checks and hands on one chunk's events: null to go on, undefined at the clean end, or why it broke. */
  async #deliver(index: number, s: IndexState, c: ChunkObject): Promise<string | undefined | null> {
    const seq = s.next;
    const gz = fromBase64(c.binaryData?.[DATA_KEY] ?? "");
    if ((await sha256Hex(gz)) !== c.metadata?.annotations?.[DIGEST_ANNOTATION]) {
      this.problems.push(`index ${index}: records chunk ${seq} digest mismatch`);
      return `uploaded a corrupt records chunk (${seq})`;
    }
    try {
      const stream = new Blob([gz as BlobPart]).stream().pipeThrough(new DecompressionStream("gzip"));
      for await (const e of readEventLines(stream)) s.handler!(e);
    } catch (err) {
      if (!(err instanceof ShardStreamError) && !(err instanceof TypeError)) throw err;
      this.problems.push(`index ${index}: records chunk ${seq}: ${err.message}`);
      return `uploaded a malformed records chunk (${seq})`;
    }
    return c.metadata?.annotations?.[LAST_ANNOTATION] === "true" ? undefined : null;
  }

  #finish(s: IndexState, reason: string | undefined): void {
    if (s.ended) return;
    s.ended = true;
    s.end(reason);
  }
}
