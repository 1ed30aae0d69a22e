/**
 * Agentic replay (AIPerf 0.13's agentic_replay timing mode, selected by `--scenario inferencex-agentx-mvp`): each of
 * `--concurrency` lanes replays an agent trace (a root conversation and its sub-agents) from a sampled instant t*
 * (timing/trajectory.ts), after a warm-up that primes the server's cache with each live stream's last request before
 * t* (its whole context, a one-token answer), behind a barrier that waits for every answer unless
 * `--agentic-warmup-grace-period` bounds it.
 *
 * - Phase starts: by default each request keeps its recorded offset from t* — the warm-up requests are aligned so that
 *   every lane's t* falls at the warm-up's end (the one furthest before its t* goes first, at `max lead − lead`), and
 *   each lane starts its measured replay at its first stream's offset after t*. `--burst-phase-starts` sends the
 *   warm-up at once and starts every lane at once (its streams keep their offsets from the lane's first).
 * - A lane holds one session slot until its whole tree (root and sub-agents) has ended; the slot is then reused by
 *   the dataset sampler's next trace (in order by default, wrapping), from its first turn.
 * - Later turns follow their recorded think times; `--system-idle-gap-cap-seconds` bounds the time the whole replay
 *   stays idle (timing/request_timers.ts).
 */
import { SessionCap } from "./session_cap.ts";
import type { Clock } from "./clock.ts";
import {
  defineLoadStrategy,
  type LoadStrategy,
  type RequestSleeper,
  type SessionResume,
  type StrategyContext,
  type StrategyPlanInput,
  type Tick,
  type WarmTurnTick,
} from "./load_strategy.ts";
import { definedFields, plural, secondsText } from "./describe_load.ts";
import type { OptionSpec } from "../base/option_spec.ts";
import { InputError } from "../base/input_error.ts";
import { buildLanes, datasetWrapProblem, type Lane } from "./trajectory.ts";
import { createSampler, type DatasetSampler } from "../dataset/dataset_sampler.ts";
import type { SamplingStrategy } from "../dataset/conversation.ts";
import { SeededRandom } from "../base/seeded_random.ts";

/** Where a lane starts measuring: its first conversation, resumed at the lane's start point. */
export interface LaneStart {
  /** Offset from the phase start (ms). */
  readonly atMs: number;
  /** The root's index among the dataset's roots. */
  readonly conversationIndex: number;
  readonly resume: SessionResume;
}

/** One warm-up request. */
export interface WarmStart {
  readonly atMs: number;
  readonly warm: WarmTurnTick;
}

export interface AgenticReplayOptions {
  readonly stage: "warmup" | "profiling";
  /** Profiling phase: where each lane starts, in time order. */
  readonly starts: readonly LaneStart[];
  /** Warm-up: the priming requests, in time order. */
  readonly warm: readonly WarmStart[];
  /** Lanes (session slots) of the measured phase. */
  readonly lanes: number;
  /** Roots of the dataset: the k-th freed lane takes the sampler's draw `recycleFrom + k·recycleStride`. */
  readonly roots: number;
  /** The dataset sampler the lanes draw traces from (the engine's: same strategy, same seed). */
  readonly sampling: SamplingStrategy;
  readonly seed: number;
  readonly recycleFrom: number;
  readonly recycleStride: number;
  readonly burst: boolean;
  readonly minRatio: number;
  readonly maxRatio: number;
  readonly idleGapCapMs?: number;
}

class AgenticReplayStrategy extends SessionCap implements LoadStrategy {
  readonly pacesContinuations = false;
  readonly #o: AgenticReplayOptions;
  readonly #clock: Clock;
  readonly #timers: RequestSleeper | undefined;
  readonly #start: number;
  readonly #sampler: DatasetSampler | undefined;
  #next = 0;
  #recycled = 0;

  constructor(o: AgenticReplayOptions, ctx: StrategyContext) {
    super(o.stage === "profiling" ? Math.max(1, o.lanes) : undefined);
    this.#o = o;
    this.#sampler = o.roots > 0 ? lanesSampler(o.sampling, o.roots, o.seed) : undefined;
    this.#clock = ctx.clock;
    this.#timers = ctx.timers;
    this.#start = ctx.startedAt;
  }

  async nextTick(stop: AbortSignal, deadline: number): Promise<Tick | undefined> {
    if (stop.aborted) return undefined;
    const o = this.#o;
    const first = o.stage === "warmup" ? o.warm[this.#next] : o.starts[this.#next];
    if (first !== undefined) {
      this.#next++;
      // The lanes' starts are one absolute schedule: idle time skipped so far moves them too.
      const due = this.#start + first.atMs - (this.#timers?.skippedMs ?? 0);
      if (due >= deadline) return undefined;
      let scheduledAt = due;
      if (this.#timers !== undefined) scheduledAt = await this.#timers.sleepUntil(due, stop);
      else await this.#clock.sleepUntil(due, stop);
      if (stop.aborted) return undefined;
      return "warm" in first
        ? { scheduledAt, warm: first.warm }
        : { scheduledAt, conversationIndex: first.conversationIndex, resume: first.resume };
    }
    if (o.stage === "warmup" || this.#sampler === undefined) return undefined;
    // A freed lane starts the sampler's next trace from its beginning, at once.
    return { conversationIndex: this.#sampler.indexAt(o.recycleFrom + this.#recycled++ * o.recycleStride) };
  }
}

/** The sampler the engine builds from the run's seed (engine/run_shard.ts), so lanes and sessions agree. */
function lanesSampler(sampling: SamplingStrategy, roots: number, seed: number): DatasetSampler {
  return createSampler(sampling, roots, new SeededRandom(seed).derive("dataset-sampling"));
}

/** The options AIPerf reads in this mode are declared with their help groups (config/options/agentic_replay_options.ts). */
const AGENTIC_REPLAY_READS = [
  "trajectoryStartMinRatio",
  "trajectoryStartMaxRatio",
  "burstPhaseStarts",
  "systemIdleGapCapSeconds",
  "agenticWarmupGracePeriod",
  "agenticCacheWarmupDuration",
  "allowDatasetWrap",
  "unsafeOverride",
];

interface PlanValues {
  readonly trajectoryStartMinRatio?: number;
  readonly trajectoryStartMaxRatio?: number;
  readonly burstPhaseStarts?: boolean;
  readonly systemIdleGapCapSeconds?: number;
  readonly agenticWarmupGracePeriod?: number;
  readonly warmupGracePeriod?: number;
  readonly allowDatasetWrap?: boolean;
  readonly randomSeed?: number;
  readonly datasetSamplingStrategy?: SamplingStrategy;
  readonly cacheBust?: string;
  readonly requestCount?: number;
  readonly conversationNum?: number;
  readonly benchmarkDuration?: number;
}

/** Both stages' options from one sampling of the lanes (the same for the warm-up and the measured phase). */
export function planAgenticReplay(
  input: StrategyPlanInput,
): { profiling: AgenticReplayOptions; warmup: AgenticReplayOptions; notices: string[] } {
  const v = input.values as PlanValues;
  const streams = input.dataset.streams?.();
  if (streams === undefined || streams.length === 0) {
    throw new InputError("agentic replay needs a dataset of agent traces (weka_trace); this one has no conversation.");
  }
  const roots = streams.flatMap((s, i) => s.child === true ? [] : [i]);
  const concurrency = input.concurrency ?? 1;
  const wrap = datasetWrapProblem({
    distinct: roots.length,
    concurrency,
    allowWrap: v.allowDatasetWrap === true,
    cacheBust: v.cacheBust !== undefined && v.cacheBust !== "none",
    sessions: v.conversationNum,
    requests: v.requestCount,
    durationMs: v.benchmarkDuration === undefined ? undefined : v.benchmarkDuration * 1000,
  });
  if (wrap !== undefined) throw new InputError(wrap);
  const minRatio = v.trajectoryStartMinRatio ?? 0.25;
  const maxRatio = v.trajectoryStartMaxRatio ?? 0.75;
  const seed = v.randomSeed ?? 0;
  const sampling = v.datasetSamplingStrategy ?? "sequential";
  const sampler = lanesSampler(sampling, Math.max(1, roots.length), seed);
  const lanes = buildLanes(streams, roots, {
    lanes: concurrency,
    seed,
    minRatio,
    maxRatio,
    pick: (k) => sampler.indexAt(k),
  });
  if (lanes.length === 0) {
    throw new InputError(
      "agentic replay found no trace with a request to replay from its sampled start; check the dataset.",
    );
  }
  const burst = v.burstPhaseStarts === true;
  const rootPosition = new Map(roots.map((conversation, k) => [conversation, k]));
  const starts = lanes.map((lane) => laneStart(lane, burst, rootPosition.get(lane.conversation)!))
    .sort((a, b) => a.atMs - b.atMs || a.resume.lane - b.resume.lane);
  const warmTurns = lanes.flatMap((lane) => lane.snapshot.warm.map((w) => ({ lane: lane.lane, ...w })));
  const maxLead = Math.max(0, ...warmTurns.map((w) => w.leadMs));
  const warm = warmTurns.map((w): WarmStart => ({
    atMs: burst ? 0 : maxLead - w.leadMs,
    warm: { lane: w.lane, conversation: w.stream, turn: w.turn },
  })).sort((a, b) => a.atMs - b.atMs || a.warm.lane - b.warm.lane);
  const common = definedFields<Omit<AgenticReplayOptions, "stage">>({
    starts,
    warm,
    lanes: lanes.length,
    roots: roots.length,
    sampling,
    seed,
    // Freed lanes go on with the sampler's draws after the lanes' own (skipped traces included).
    recycleFrom: lanes[lanes.length - 1].draw + 1,
    recycleStride: 1,
    burst,
    minRatio,
    maxRatio,
    idleGapCapMs: v.systemIdleGapCapSeconds === undefined ? undefined : v.systemIdleGapCapSeconds * 1000,
  });
  const positions = lanes.map((l) => Math.round(l.snapshot.position * 100)).sort((a, b) => a - b);
  const distinct = new Set(lanes.map((l) => l.conversation)).size;
  const notices = [
    `Agentic replay: ${plural(lanes.length, "lane")} over ${plural(distinct, "trace")}, resumed ` +
    `${positions[0]}–${positions[positions.length - 1]}% (median ${positions[positions.length >> 1]}%) into them.`,
  ];
  if (lanes.length < concurrency) {
    notices.push(
      `Only ${lanes.length} of the ${concurrency} lanes could be filled: the other traces have nothing to send ` +
        "from their sampled start; the load is capped at that many lanes.",
    );
  }
  return { profiling: { stage: "profiling", ...common }, warmup: { stage: "warmup", ...common }, notices };
}

/** A lane starts at its first live stream's offset from t* (at once when bursting); each stream keeps its offset. */
function laneStart(lane: Lane, burst: boolean, conversationIndex: number): LaneStart {
  const s = lane.snapshot;
  const rootReady = s.root !== undefined && !s.root.gated;
  const offsets = [...(rootReady ? [s.root!.offsetMs] : []), ...s.children.map((c) => c.offsetMs)];
  const first = offsets.length > 0 ? Math.min(...offsets) : 0;
  return {
    atMs: burst ? 0 : first,
    conversationIndex,
    resume: {
      lane: lane.lane,
      ...(s.root === undefined ? {} : { rootTurn: s.root.turn }),
      rootDelayMs: rootReady ? s.root!.offsetMs - first : 0,
      children: s.children.map((c) => ({
        conversation: c.stream,
        turn: c.turn,
        delayMs: c.offsetMs - first,
        ...(c.joinAt === undefined ? {} : { joinAt: c.joinAt }),
      })),
    },
  };
}

export const AGENTIC_REPLAY_STRATEGY = defineLoadStrategy({
  name: "agentic_replay",
  description: "Agent traces replayed from sampled mid-trace starts after a cache warm-up, one lane per slot.",
  options: [] as const satisfies readonly OptionSpec[],
  selectedBy: ["scenario"],
  reads: AGENTIC_REPLAY_READS,
  plan: (input) => {
    const { profiling, notices } = planAgenticReplay(input);
    return { options: profiling, notices };
  },
  ownWarmup(input) {
    const { warmup } = planAgenticReplay({ ...input, phase: "warmup" });
    if (warmup.warm.length === 0) return undefined;
    const v = input.values as PlanValues;
    const grace = v.agenticWarmupGracePeriod ?? v.warmupGracePeriod;
    return {
      options: warmup,
      requests: warmup.warm.length,
      gracePeriodMs: grace === undefined ? Infinity : grace * 1000,
    };
  },
  systemIdleGapCapMs: (o: AgenticReplayOptions) => o.idleGapCapMs,
  describe: (o: AgenticReplayOptions) => {
    if (o.stage === "warmup") {
      const span = o.warm.length > 0 ? o.warm[o.warm.length - 1].atMs : 0;
      return `agentic replay warm-up: ${plural(o.warm.length, "priming request")} with one-token answers` +
        (o.burst ? ", all at once" : `, spread over ${secondsText(span)} so each lane reaches its start together`);
    }
    return `agentic replay on ${plural(o.lanes, "lane")} of ${plural(o.roots, "trace")}, each from a sampled point ` +
      `${Math.round(o.minRatio * 100)}–${Math.round(o.maxRatio * 100)}% into its trace` +
      (o.burst ? ", lanes starting together" : ", lanes starting at their recorded offsets") +
      (o.idleGapCapMs !== undefined ? `, idle gaps capped at ${secondsText(o.idleGapCapMs)}` : "");
  },
  /** Shard i runs lanes i, i + n, … and their warm-up; its freed lanes take roots i, i + n, … after the lanes. */
  split(o: AgenticReplayOptions, i: number, n: number) {
    const starts = o.starts.filter((s) => s.resume.lane % n === i);
    const warm = o.warm.filter((w) => w.warm.lane % n === i);
    const lanes = o.lanes - i > 0 ? Math.ceil((o.lanes - i) / n) : 0;
    return {
      options: { ...o, starts, warm, lanes, recycleFrom: o.recycleFrom + i, recycleStride: n },
      weight: Math.max(1, o.stage === "warmup" ? warm.length : lanes),
      layout: "interleaved" as const,
    };
  },
  create: (o: AgenticReplayOptions, ctx: StrategyContext) => new AgenticReplayStrategy(o, ctx),
});
