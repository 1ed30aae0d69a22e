/**
 * Trajectories of AIPerf 0.13's agentic replay (`--scenario inferencex-agentx-mvp`): each concurrency lane replays one
 * agent trace from a sampled instant t* instead of from its start, so a run measures the steady state of long agent
 * sessions rather than their opening turns.
 *
 * - A trace is a root conversation and the sub-agents it starts; its span runs from its first request to its last,
 *   over every stream. t* is drawn uniformly in `[start + min·span, start + max·span]`, seeded by the run's seed,
 *   the trace's id and the lane (so a trace replayed on two lanes resumes at two instants).
 * - At t*, a stream resumes at its first turn sent at or after t*, `offset = its time − t*` later. The root's direct
 *   sub-agents are live when their spawning turn went before t* and they still have a turn at or after it; a root
 *   whose next turn joins live sub-agents waits for them (it is "gated").
 * - The warm-up sends each live stream's last turn before t* (with its whole context and a one-token answer), so the
 *   server's cache holds what it would at t*; its lead is how long before t* that turn went.
 * - Lanes take traces as the dataset sampler draws them (in order by default, wrapping); a trace with no live stream
 *   at its t* is skipped.
 *
 * Recorded send times (`atMs`) are used where every turn of a trace has one; otherwise they are rebuilt from the
 * think times (each turn `delayMs` after the previous one, a sub-agent `delayMs` after its spawning turn).
 */
import { SeededRandom } from "../base/seeded_random.ts";

/** Where a turn starts children and which later turn of the parent waits for them. */
export interface SpawnShape {
  /** Indices of the child conversations (into the whole list of streams). */
  readonly children: readonly number[];
  readonly joinAt?: number;
}

/** One turn, as the trajectory sampling sees it. */
export interface TurnShape {
  /** Recorded send time (ms, any origin shared by the trace). */
  readonly atMs?: number;
  /** Think time before the turn (ms): after the previous answer, or after the spawning turn for a child's first. */
  readonly delayMs?: number;
  readonly spawns?: readonly SpawnShape[];
  /** The turn sends nothing. */
  readonly requestFree?: boolean;
}

/** One conversation (a root or a sub-agent). */
export interface StreamShape {
  readonly id: string;
  readonly child?: boolean;
  readonly turns: readonly TurnShape[];
  readonly spawnsFirst?: readonly SpawnShape[];
}

/** A sub-agent live at t*: its conversation, the turn it resumes at, when, and the root turn that joins it. */
export interface LiveStream {
  readonly stream: number;
  readonly turn: number;
  readonly offsetMs: number;
  readonly joinAt?: number;
}

/** A turn the warm-up replays: the last one a live stream sent before t*. */
export interface WarmTurn {
  readonly stream: number;
  readonly turn: number;
  /** How long before t* it was sent (ms). */
  readonly leadMs: number;
}

export interface TrajectorySnapshot {
  readonly tStarMs: number;
  /** Where t* falls in the trace's span (0…1). */
  readonly position: number;
  /** The root's next turn; undefined when every root turn went before t* (only sub-agents are left). */
  readonly root?: { readonly turn: number; readonly offsetMs: number; readonly gated: boolean };
  readonly children: readonly LiveStream[];
  readonly warm: readonly WarmTurn[];
}

/** One replay lane: the trace it starts with and where. */
export interface Lane {
  readonly lane: number;
  /** The sampler's draw the trace came from (draws of skipped traces count). */
  readonly draw: number;
  /** The root conversation (index into the streams). */
  readonly conversation: number;
  readonly snapshot: TrajectorySnapshot;
}

export interface LaneOptions {
  /** Lanes to fill (the concurrency). */
  readonly lanes: number;
  readonly seed: number;
  readonly minRatio: number;
  readonly maxRatio: number;
  /** The root (index into `roots`) of draw `k`. @default k mod roots */
  readonly pick?: (k: number) => number;
}

/** Each turn's send time (ms) for the root `root` and every stream it starts, recursively. */
export function traceTimes(streams: readonly StreamShape[], root: number): Map<number, number[]> {
  const members = treeMembers(streams, root);
  const recorded = members.every((i) => streams[i].turns.every((t) => t.atMs !== undefined && Number.isFinite(t.atMs)));
  const times = new Map<number, number[]>();
  if (recorded) {
    for (const i of members) times.set(i, streams[i].turns.map((t) => t.atMs!));
    return times;
  }
  const place = (i: number, start: number) => {
    if (times.has(i)) return;
    const turns = streams[i].turns;
    const at: number[] = [];
    let t = start;
    for (let k = 0; k < turns.length; k++) {
      t += turns[k].delayMs ?? 0;
      at.push(t);
    }
    times.set(i, at);
    for (const spawn of streams[i].spawnsFirst ?? []) for (const c of spawn.children) place(c, start);
    turns.forEach((turn, k) => {
      for (const spawn of turn.spawns ?? []) for (const c of spawn.children) place(c, at[k]);
    });
  };
  place(root, 0);
  return times;
}

/** The root and every stream it starts, recursively (each once). */
function treeMembers(streams: readonly StreamShape[], root: number): number[] {
  const seen = new Set<number>();
  const stack = [root];
  while (stack.length > 0) {
    const i = stack.pop()!;
    if (seen.has(i)) continue;
    seen.add(i);
    for (const spawn of streams[i].spawnsFirst ?? []) stack.push(...spawn.children);
    for (const turn of streams[i].turns) for (const spawn of turn.spawns ?? []) stack.push(...spawn.children);
  }
  return [...seen];
}

/** First turn at or after `t` (undefined when none). */
function nextTurnAt(at: readonly number[], t: number): number | undefined {
  const k = at.findIndex((x) => x >= t);
  return k < 0 ? undefined : k;
}

/** The lane's t*: uniform in the ratio window of the trace's span. */
export function sampleInstant(startMs: number, endMs: number, o: LaneOptions, traceId: string, lane: number): number {
  const span = endMs - startMs;
  const lo = startMs + o.minRatio * span;
  const hi = Math.max(lo, startMs + o.maxRatio * span);
  if (hi === lo) return lo;
  const u = new SeededRandom(o.seed).derive(`trajectory:${traceId}:${lane}`).next();
  return lo + u * (hi - lo);
}

/** The state of the trace `root` at `tStarMs`; undefined when no stream can be sent from there. */
export function snapshotAt(
  streams: readonly StreamShape[],
  root: number,
  tStarMs: number,
  times: ReadonlyMap<number, readonly number[]> = traceTimes(streams, root),
): TrajectorySnapshot | undefined {
  const rootAt = times.get(root)!;
  const rootNext = nextTurnAt(rootAt, tStarMs);
  const children: LiveStream[] = [];
  const pendingJoins = new Set<number>();
  const spawnsOf = streams[root].turns.map((t, k) => (t.spawns ?? []).map((s) => ({ spawn: s, turn: k })));
  const branches = [...(streams[root].spawnsFirst ?? []).map((s) => ({ spawn: s, turn: -1 })), ...spawnsOf.flat()];
  for (const { spawn, turn } of branches) {
    // The spawning turn must have gone before t* (children started before the first turn always have).
    const spawned = turn < 0 || (rootAt[turn] < tStarMs && (rootNext === undefined || rootNext > turn));
    if (!spawned) continue;
    let live = false;
    for (const c of spawn.children) {
      const at = times.get(c);
      if (at === undefined || at.length === 0) continue;
      const next = nextTurnAt(at, tStarMs);
      if (next === undefined) continue;
      live = true;
      children.push({
        stream: c,
        turn: next,
        offsetMs: Math.max(0, at[next] - tStarMs),
        ...(spawn.joinAt === undefined ? {} : { joinAt: spawn.joinAt }),
      });
    }
    if (live && spawn.joinAt !== undefined) pendingJoins.add(spawn.joinAt);
  }
  const gated = rootNext !== undefined && pendingJoins.has(rootNext);
  const rootState = rootNext === undefined
    ? undefined
    : { turn: rootNext, offsetMs: Math.max(0, rootAt[rootNext] - tStarMs), gated };
  if (rootState === undefined && children.length === 0) return undefined;
  if (rootState?.gated === true && children.length === 0) return undefined;
  const warm: WarmTurn[] = [];
  const warmOf = (stream: number, next: number) => {
    const k = next - 1;
    const at = times.get(stream)!;
    if (k >= 0 && streams[stream].turns[k].requestFree !== true) {
      warm.push({ stream, turn: k, leadMs: Math.max(0, tStarMs - at[k]) });
    }
  };
  if (rootState !== undefined) warmOf(root, rootState.turn);
  for (const c of children) warmOf(c.stream, c.turn);
  const all = [...times.values()].flat();
  const start = Math.min(...all);
  const end = Math.max(...all);
  return {
    tStarMs,
    position: end > start ? (tStarMs - start) / (end - start) : 0,
    ...(rootState === undefined ? {} : { root: rootState }),
    children,
    warm,
  };
}

/**
 * One trajectory per lane, traces taken as `pick` draws them (in dataset order, wrapping, by default); a trace that
 * cannot start a session (no turn, no live stream at its t*) is skipped, within `lanes + 2 × roots` draws, so a pool
 * of such traces gives fewer lanes.
 */
export function buildLanes(streams: readonly StreamShape[], roots: readonly number[], o: LaneOptions): Lane[] {
  const lanes: Lane[] = [];
  if (roots.length === 0) return lanes;
  const maxAttempts = o.lanes + 2 * roots.length;
  for (let attempt = 0; lanes.length < o.lanes && attempt < maxAttempts; attempt++) {
    const conversation = roots[o.pick === undefined ? attempt % roots.length : o.pick(attempt)];
    if (streams[conversation].turns.length === 0) continue;
    const times = traceTimes(streams, conversation);
    const all = [...times.values()].flat();
    if (all.length === 0) continue;
    const tStar = sampleInstant(Math.min(...all), Math.max(...all), o, streams[conversation].id, lanes.length);
    const snapshot = snapshotAt(streams, conversation, tStar, times);
    if (snapshot !== undefined) lanes.push({ lane: lanes.length, draw: attempt, conversation, snapshot });
  }
  return lanes;
}

/**
 * AIPerf's wrap policy: more lanes than distinct traces replays some traces twice, which a bounded run refuses unless
 * `--allow-dataset-wrap` or a cache-bust target (which keeps repeated traffic distinct) allows it; a run bounded by
 * fewer sessions than traces is allowed. Returns the problem, or undefined.
 */
export function datasetWrapProblem(o: {
  readonly distinct: number;
  readonly concurrency: number;
  readonly allowWrap: boolean;
  readonly cacheBust: boolean;
  readonly sessions?: number;
  readonly requests?: number;
  readonly durationMs?: number;
}): string | undefined {
  if (o.allowWrap || o.cacheBust) return undefined;
  const onePass = o.sessions === undefined && o.requests === undefined && o.durationMs === undefined;
  if (onePass || (o.sessions !== undefined && o.sessions <= o.distinct)) return undefined;
  if (o.concurrency <= o.distinct) return undefined;
  return `--concurrency ${o.concurrency} exceeds the ${o.distinct} distinct traces of the dataset while dataset ` +
    `wrapping is off; lower --concurrency to at most ${o.distinct}, bound the sessions within the dataset ` +
    "(--conversation-num), set a --cache-bust target, or give --allow-dataset-wrap.";
}
