/**
 * One engine shard: its own connections and event loop, running the run's phases (warmup, then profiling) in order
 * over its share of the load, handing every finished request on as a RequestRecord.
 *
 * A single-shard run executes this on the main thread; `--workers N` runs N of these in Deno Workers
 * (engine/shard_worker.ts) with the same ShardSpec, which is why the spec is plain cloneable data.
 */
import { SeededRandom } from "../base/seeded_random.ts";
import { createSampler, type DatasetSampler } from "../dataset/dataset_sampler.ts";
import type { SamplingStrategy } from "../dataset/conversation.ts";
import {
  encodeRequestBody,
  type EndpointAdapter,
  type EndpointType,
  type PriorExchange,
} from "../endpoints/endpoint_adapter.ts";
import { resolveAdapter } from "../endpoints/endpoint_registry.ts";
import type { Phase, RecordLineage, RequestRecord } from "../records/request_record.ts";
import type { Clock } from "../timing/clock.ts";
import type { SessionResume, Tick, WarmTurnTick } from "../timing/load_strategy.ts";
import { type PhaseName, type PhaseSpec, shardPhase } from "../timing/phase_spec.ts";
import {
  type BodySettings,
  buildTurnRequest,
  type PreparedConversation,
  type PreparedTurn,
} from "./prepared_conversation.ts";
import { ResumedSession } from "./resumed_session.ts";
import { executeRequest, type ExecutorContext, type RequestSender } from "./request_executor.ts";
import { type PhaseOutcome, type PhaseSession, runPhase, type SendMeta } from "./phase_runner.ts";
import { warmUpHotPath } from "./warm_up.ts";
import { placeholderOffsets, sessionDigest, stampBody } from "./cache_bust.ts";
import type { YieldToIo } from "../runtime/io_yield.ts";
import { SystemClock } from "../timing/clock.ts";
import { WakeThread } from "../timing/wake_thread.ts";
import type { ChildSession } from "./session_tree.ts";
import { thinkTimeDraw } from "./think_time.ts";

export interface ShardSpec {
  readonly workerId: string;
  readonly shardIndex: number;
  readonly shardCount: number;
  readonly endpointType: EndpointType;
  readonly path: string;
  /** The path came from `--endpoint` (never rewritten per target). */
  readonly explicitEndpoint: boolean;
  /** Keep raw response payloads on records (`--export-level raw`). */
  readonly keepRaw?: boolean;
  /** Keep each request's body as sent on its record (`--bundle`). */
  readonly keepBody?: boolean;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly timeoutMs: number;
  /** Header that carries each session's correlation id instead of `X-Correlation-ID` (`--session-header`). */
  readonly sessionHeader?: string;
  /** Most body bytes one response may have (`--max-response-bytes`). @default 256 MiB */
  readonly maxResponseBytes?: number;
  /** For an API that answers with jobs, download each finished job's content (`--download-video-content`). */
  readonly downloadContent?: boolean;
  readonly conversations: readonly PreparedConversation[];
  /** What turns built at send time are built with. */
  readonly bodySettings: BodySettings;
  readonly sampling: SamplingStrategy;
  readonly seed: number;
  /** Run in order; each phase's records carry its name. */
  readonly phases: readonly PhaseSpec[];
}

export interface ShardDeps {
  readonly sender: RequestSender;
  readonly clock: Clock;
  /** Offset from this thread's `performance.now()` to the run clock (0 on the main thread). */
  readonly clockOffsetMs: number;
  readonly signal: AbortSignal;
  readonly onRecord: (record: RequestRecord) => void;
  readonly onPhaseStart?: (phase: Phase, at: number) => void;
  /** Awaited between issuing slices; lets this thread's socket reads in (runtime/io_yield.ts). */
  readonly yieldToIo?: YieldToIo;
}

/** Each phase's outcome, by name. */
export type ShardOutcome = Partial<Record<PhaseName, PhaseOutcome>>;

export async function runShard(spec: ShardSpec, deps: ShardDeps): Promise<ShardOutcome> {
  const adapter = await resolveAdapter(spec.endpointType, { extraInputs: spec.bodySettings.extraInputs });
  const rng = new SeededRandom(spec.seed);
  // Sessions start from root conversations only; a dataset with child conversations samples among its roots.
  const roots = spec.conversations.some((c) => c.child === true)
    ? spec.conversations.flatMap((c, i) => c.child === true ? [] : [i])
    : undefined;
  // Every shard builds the same sampler, so session k runs the same conversation whichever shard starts it.
  const sampler = createSampler(
    spec.sampling,
    roots?.length ?? spec.conversations.length,
    rng.derive("dataset-sampling"),
  );
  const arrivals = rng.derive(`arrivals-${spec.shardIndex}`);
  warmUpHotPath(adapter);

  // One reader of SSE payloads for the whole run: what it learns from one answer's chunks reads the next's.
  const readEvent = adapter.eventReader?.();
  const readBody = adapter.bodyReader?.();
  const outcome: { -readonly [K in PhaseName]?: PhaseOutcome } = {};
  // A later phase does not start over the dataset where an earlier one started (warmup, then profiling).
  let sessionOffset = 0;
  for (const phase of spec.phases) {
    if (deps.signal.aborted) break;
    const shared: SessionShared = {
      adapter,
      settings: spec.bodySettings,
      conversations: spec.conversations,
      onRecord: deps.onRecord,
      seed: spec.seed,
      ctx: {
        sender: deps.sender,
        adapter,
        path: spec.path,
        headers: spec.headers,
        timeoutMs: spec.timeoutMs,
        ...(spec.sessionHeader === undefined ? {} : { sessionHeader: spec.sessionHeader }),
        clockOffsetMs: deps.clockOffsetMs,
        workerId: spec.workerId,
        phase: phase.name,
        keepRaw: spec.keepRaw,
        keepBody: spec.keepBody,
        readEvent,
        readBody,
        ...(spec.downloadContent === true ? { downloadContent: true } : {}),
      },
    };
    const offset = sessionOffset;
    deps.onPhaseStart?.(phase.name, deps.clock.now());
    outcome[phase.name] = await runPhase({
      shard: shardPhase(phase, spec.shardIndex, spec.shardCount),
      clock: deps.clock,
      rng: arrivals.derive(phase.name),
      signal: deps.signal,
      yieldToIo: deps.yieldToIo,
      openSession: (sessionIndex, tick) =>
        tick.warm !== undefined
          ? warmSession(shared, tick.warm, offset + sessionIndex)
          : tick.resume !== undefined
          ? resumedSession(
            shared,
            conversationFor(spec, roots, sampler, offset + sessionIndex, tick),
            offset + sessionIndex,
            tick.resume,
          )
          : new ConversationSession(
            shared,
            conversationFor(spec, roots, sampler, offset + sessionIndex, tick),
            offset + sessionIndex,
          ),
    });
    sessionOffset += phase.stops.requestCount ?? 0;
  }
  return outcome;
}

function conversationFor(
  spec: ShardSpec,
  roots: readonly number[] | undefined,
  sampler: DatasetSampler,
  sessionIndex: number,
  tick: Tick,
): PreparedConversation {
  // A tick names a conversation by its index among the sessions' conversations (the roots).
  const k = tick.conversationIndex ?? sampler.indexAt(sessionIndex);
  return spec.conversations[roots === undefined ? k : roots[k]];
}

/** What every session of a phase shares. */
interface SessionShared {
  readonly adapter: EndpointAdapter;
  readonly settings: BodySettings;
  /** Every prepared conversation: children are started from here by index. */
  readonly conversations: readonly PreparedConversation[];
  readonly ctx: ExecutorContext;
  readonly onRecord: (record: RequestRecord) => void;
  readonly seed: number;
}

/** What a child session inherits from the session that starts it. */
interface ChildOrigin {
  readonly lineage: RecordLineage;
  /** The parent's conversation so far, for a fork. */
  readonly history?: readonly PriorExchange[];
}

/** How an agentic replay session differs from a plain one. */
interface ReplayTraits {
  /** The cache-bust digest is the lane's, shared by its warm-up and measured sessions. */
  readonly lane?: number;
  /** The turns before this one went before the replay's start: the history holds them as recorded. */
  readonly resumeAt?: number;
  /** Every answer is asked to be one token long (the warm-up). */
  readonly oneToken?: boolean;
}

/** Agentic replay's warm-up request: one turn, with every turn before it as context, answered in one token. */
function warmSession(shared: SessionShared, warm: WarmTurnTick, sessionNumber: number): PhaseSession {
  const session = new ConversationSession(shared, shared.conversations[warm.conversation], sessionNumber, undefined, {
    lane: warm.lane,
    resumeAt: warm.turn,
    oneToken: true,
  });
  return new ResumedSession(session, warm.turn, 0).firstTurnOnly();
}

/** An agentic replay lane's first measured session: its root and live sub-agents from the sampled instant on. */
function resumedSession(
  shared: SessionShared,
  conversation: PreparedConversation,
  sessionNumber: number,
  resume: SessionResume,
): PhaseSession {
  const from = resume.rootTurn ?? conversation.turns.length;
  const root = new ConversationSession(shared, conversation, sessionNumber, undefined, {
    lane: resume.lane,
    resumeAt: from,
  });
  const lineage = root.childLineage();
  const live = resume.children.map((c): ChildSession<PhaseSession> => {
    const child = new ConversationSession(shared, shared.conversations[c.conversation], sessionNumber, { lineage }, {
      lane: resume.lane,
      resumeAt: c.turn,
    });
    const session = new ResumedSession(child, c.turn, c.delayMs);
    return c.joinAt === undefined ? { session } : { session, joinAt: c.joinAt };
  });
  return new ResumedSession(root, from, resume.rootDelayMs, live);
}

/**
 * One run of a conversation on a virtual user: one correlation id for all its requests (AIPerf's
 * `X-Correlation-ID`), and — when its later turns carry the conversation so far — the real replies received. A
 * conversation with spawns starts its children as sessions of their own (`childrenAfter`), each knowing its place in
 * the tree; a fork's child starts with a copy of this conversation so far.
 */
class ConversationSession implements PhaseSession {
  readonly turnCount: number;
  readonly spawns: boolean;
  readonly #shared: SessionShared;
  readonly #conversation: PreparedConversation;
  readonly #sessionNumber: number;
  readonly #correlationId: string;
  readonly #history: PriorExchange[] | undefined;
  /** This session's cache-bust digest, when its conversation carries a marker. */
  readonly #digest: string | undefined;
  readonly #lineage: RecordLineage | undefined;
  readonly #oneToken: boolean;
  readonly #lane: number | undefined;

  constructor(
    shared: SessionShared,
    conversation: PreparedConversation,
    sessionNumber: number,
    origin?: ChildOrigin,
    replay?: ReplayTraits,
  ) {
    this.#shared = shared;
    this.#conversation = conversation;
    this.#sessionNumber = sessionNumber;
    this.#lane = replay?.lane;
    // A replay lane's streams keep one correlation id from the warm-up to the measured phase (sticky routing).
    this.#correlationId = replay?.lane === undefined
      ? crypto.randomUUID()
      : laneCorrelationId(shared.seed, replay.lane, conversation.id);
    // A replay lane's sessions share one digest (its warm-up primes what its measured turns send); lanes are
    // numbered apart from sessions.
    const digestNumber = replay?.lane === undefined ? sessionNumber : -1 - replay.lane;
    this.#digest = conversation.cacheBust ? sessionDigest(shared.seed, digestNumber, conversation.id) : undefined;
    this.turnCount = conversation.turns.length;
    this.spawns = conversation.tree === true;
    this.#history = conversation.withHistory ? [...(origin?.history ?? [])] : undefined;
    this.#lineage = origin?.lineage;
    this.#oneToken = replay?.oneToken === true;
    if (replay?.resumeAt !== undefined && this.#history !== undefined) {
      for (const turn of conversation.turns.slice(0, replay.resumeAt)) {
        if (turn.requestFree === true || turn.turn === undefined) continue;
        if (turn.turn.resetContext === true) this.#history.length = 0;
        this.#history.push({ turn: turn.turn });
      }
    }
  }

  /** The lineage of the children this session starts. */
  childLineage(): RecordLineage {
    return {
      agentDepth: (this.#lineage?.agentDepth ?? 0) + 1,
      parentCorrelationId: this.#correlationId,
      rootCorrelationId: this.#lineage?.rootCorrelationId ?? this.#correlationId,
    };
  }

  delayBefore(k: number): number | undefined {
    const turn = this.#conversation.turns[k];
    const spread = this.#conversation.thinkTime;
    if (spread === undefined || turn.requestFree !== true || turn.delayMs === undefined) return turn.delayMs;
    return thinkTimeDraw(spread, turn.delayMs, this.#shared.seed, this.#sessionNumber, this.#conversation.id, k);
  }

  requestFree(k: number): boolean {
    return this.#conversation.turns[k].requestFree === true;
  }

  childrenAfter(k: number): readonly ChildSession<PhaseSession>[] | undefined {
    const spawns = k < 0 ? this.#conversation.spawnsFirst : this.#conversation.turns[k].spawns;
    if (spawns === undefined) return undefined;
    const lineage = this.childLineage();
    const children: ChildSession<PhaseSession>[] = [];
    for (const spawn of spawns) {
      const origin: ChildOrigin = spawn.inheritContext === true && this.#history !== undefined
        ? { lineage, history: this.#history }
        : { lineage };
      for (const i of spawn.children) {
        const session = new ConversationSession(
          this.#shared,
          this.#shared.conversations[i],
          this.#sessionNumber,
          origin,
          this.#lane === undefined ? undefined : { lane: this.#lane },
        );
        children.push(spawn.joinAt === undefined ? { session } : { session, joinAt: spawn.joinAt });
      }
    }
    return children;
  }

  timestampOf(k: number): number | undefined {
    return this.#conversation.turns[k].timestampMs;
  }

  async send(k: number, meta: SendMeta, signal: AbortSignal): Promise<void> {
    const shared = this.#shared;
    const conversation = this.#conversation;
    const turn = this.#oneToken ? oneTokenTurn(shared.adapter, conversation.turns[k]) : conversation.turns[k];
    const digest = this.#digest;
    // A turn that starts its context over is sent without the turns before it.
    if (turn.turn?.resetContext === true) this.#history!.length = 0;
    const entry = turn.body === undefined
      ? { ...turn, ...buildTurnRequest(shared.adapter, shared.settings, conversation, turn, this.#history!, digest) }
      : digest !== undefined && turn.markerAt !== undefined
      ? { ...turn, body: stampBody(turn.body, turn.markerAt, digest) }
      : turn as typeof turn & { readonly body: Uint8Array };
    const lineage = this.#lineage;
    const record = await executeRequest(
      shared.ctx,
      entry,
      lineage === undefined ? meta : { ...meta, lineage },
      this.#correlationId,
      signal,
    );
    const history = this.#history;
    if (history !== undefined) {
      history.push(
        conversation.recordedReplies === true ? { turn: turn.turn! } : { turn: turn.turn!, reply: record.content },
      );
    }
    shared.onRecord(record);
  }
}

/** A UUID-shaped id drawn from the run's seed for one stream of one replay lane. */
function laneCorrelationId(seed: number, lane: number, conversationId: string): string {
  const rng = new SeededRandom(seed).derive(`lane-correlation:${lane}:${conversationId}`);
  const hex = Array.from({ length: 4 }, () => rng.nextUint32().toString(16).padStart(8, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * A turn asking for a one-token answer: a turn built at send time gets the output length; a prebuilt body is built
 * again from its turn, or, without one, has its output-length field set.
 */
function oneTokenTurn(adapter: EndpointAdapter, turn: PreparedTurn): PreparedTurn {
  if (turn.body === undefined) return { ...turn, maxTokens: 1, requestedOutputTokens: 1 };
  const payload: Record<string, unknown> = { ...turn.payload };
  const key = ["max_completion_tokens", "max_tokens", "max_output_tokens"].find((k) => k in payload) ?? "max_tokens";
  payload[key] = 1;
  const body = encodeRequestBody(adapter, payload);
  const markerAt = turn.markerAt === undefined ? undefined : placeholderOffsets(body);
  return {
    ...turn,
    payload,
    body,
    requestedOutputTokens: 1,
    ...(markerAt === undefined || markerAt.length === 0 ? {} : { markerAt }),
  };
}

/**
 * The clock of a shard's thread: its sleeps poll their last stretch on `yieldToIo` (the thread's `IoYield`), and
 * where a phase runs an open-loop schedule they wait on a wake thread rather than polling
 * (timing/wake_thread.ts). `close()` when the shard ends.
 */
export function shardClock(
  spec: ShardSpec,
  offsetMs: number,
  yieldToIo: YieldToIo,
): { readonly clock: SystemClock; close(): void } {
  const scheduled = spec.phases.some((p) => p.strategy.name !== "concurrency");
  const wake = scheduled ? new WakeThread() : undefined;
  return { clock: new SystemClock(offsetMs, yieldToIo, wake), close: () => wake?.close() };
}
