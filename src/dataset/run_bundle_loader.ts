/**
 * A run bundle read as a dataset (`--custom-dataset-type run_bundle`, what `infermeter replay` runs): each session of
 * the original run is one conversation whose turns are the bodies it sent, byte for byte (`rawPayload`: no endpoint
 * formatting, no history added — a later turn already carries the original conversation and replies). Think times
 * are kept; in a bundle of an open-loop run every turn also carries its scheduled send offset as its timestamp, so
 * the trace replay (fixed schedule) sends each request at its original offset. `--time-scale` multiplies offsets
 * and think times (0.5: the same requests twice as fast).
 */
import type { Conversation, Dataset, Turn } from "./conversation.ts";
import type { DatasetLoader, LoaderContext } from "./dataset_loader.ts";
import { type BundleRequest, readRunBundle, type RunBundle } from "./run_bundle.ts";
import { RUN_BUNDLE, RUN_BUNDLE_FORMAT, TIME_SCALE_KEY } from "./dataset_formats.ts";

/** The sessions of a bundle as conversations, in the order they started; offsets and think times × `timeScale`. */
export function bundleConversations(bundle: RunBundle, timeScale = 1): Conversation[] {
  const sessions = new Map<number, BundleRequest[]>();
  for (const r of bundle.requests) {
    const turns = sessions.get(r.session);
    if (turns === undefined) sessions.set(r.session, [r]);
    else turns.push(r);
  }
  const open = bundle.run.replay.loop === "open";
  const startOf = (r: BundleRequest) => open ? r.scheduled_offset_ms ?? r.start_offset_ms : r.start_offset_ms;
  const all = [...sessions.values()].map((turns) =>
    turns.sort((a, b) => a.turn - b.turn || a.request_index - b.request_index)
  );
  const ordered = open
    ? all.sort((a, b) => startOf(a[0]) - startOf(b[0]) || a[0].request_index - b[0].request_index)
    : issueOrder(all);
  const ids = new Map<string, number>();
  return ordered.map((requests): Conversation => {
    const original = requests[0].conversation_id;
    const seen = ids.get(original) ?? 0;
    ids.set(original, seen + 1);
    const turns = requests.map((r, k): Turn => {
      const delay = k > 0 && r.delay_ms !== null ? { delayMs: r.delay_ms * timeScale } : {};
      const stamp = open ? { timestampMs: Math.max(0, startOf(r)) * timeScale } : {};
      return { texts: [], rawPayload: r.body, ...delay, ...stamp };
    });
    // A conversation the original run sent in several sessions is several conversations here, with distinct ids.
    return {
      id: seen === 0 ? original : `${original}#${seen + 1}`,
      turns,
      contextMode: "message_array_with_responses",
    };
  });
}

/**
 * A closed loop's sessions in the order they were started: each shard numbered its sessions as it started them
 * (send times of sessions started together can come out in either order), and shards' sessions interleave by
 * their first send.
 */
function issueOrder(sessions: BundleRequest[][]): BundleRequest[][] {
  const byWorker = new Map<string, BundleRequest[][]>();
  for (const s of sessions) byWorker.set(s[0].worker, [...(byWorker.get(s[0].worker) ?? []), s]);
  const queues = [...byWorker.values()].map((q) => q.sort((a, b) => a[0].session - b[0].session));
  const heads = queues.map(() => 0);
  const out: BundleRequest[][] = [];
  for (;;) {
    let next = -1;
    queues.forEach((q, i) => {
      if (
        heads[i] < q.length &&
        (next < 0 || q[heads[i]][0].start_offset_ms < queues[next][heads[next]][0].start_offset_ms)
      ) {
        next = i;
      }
    });
    if (next < 0) return out;
    out.push(queues[next][heads[next]++]);
  }
}

export async function loadRunBundle(path: string, ctx?: LoaderContext): Promise<Dataset> {
  const bundle = await readRunBundle(path);
  const scale = ctx?.options?.[TIME_SCALE_KEY];
  const conversations = bundleConversations(bundle, typeof scale === "number" ? scale : 1);
  return { conversations, defaultSampling: "sequential", source: "file", format: RUN_BUNDLE };
}

export const runBundleLoader = {
  ...RUN_BUNDLE_FORMAT,
  canLoad: () => false,
  /** A gzip file's first line is not JSON: recognised by its name. */
  canLoadText: (_first: string, path: string) => path.endsWith(".bundle.tar.gz"),
  describe(dataset: Dataset) {
    const turns = dataset.conversations.reduce((n, c) => n + c.turns.length, 0);
    const stamped = dataset.conversations[0]?.turns[0]?.timestampMs !== undefined;
    return `${turns} request${turns === 1 ? "" : "s"} in ${dataset.conversations.length} session` +
      `${dataset.conversations.length === 1 ? "" : "s"}, ${stamped ? "on their original schedule" : "closed loop"}`;
  },
  load: loadRunBundle,
} as const satisfies DatasetLoader;
