/**
 * The one coordinator of hosted shards, whatever carries them (shard_event.ts): merges every shard's events
 * into the caller's record callback (the record bus), moving their times onto this process's clock; holds the
 * shared start (one `start` to all once every shard is ready) when asked; cancels them all on the signal; and
 * says which shards did not run to their end. What a lost shard streamed before it was lost is kept: the merge is
 * of raw records, so the metrics are computed once over their union and no percentile is ever averaged.
 */
import type { Phase, RequestRecord } from "../records/request_record.ts";
import type { TransportActivity } from "../transport/http_client.ts";
import type { ShardOutcome } from "./run_shard.ts";
import type { ShardEvent, ShardLink } from "./shard_event.ts";

export interface CoordinateOptions {
  /** One per shard, in shard order. */
  readonly links: readonly ShardLink[];
  /** Epoch ms this process's times count from (its `performance.timeOrigin`). */
  readonly timeOriginMs: number;
  /** Cancels every shard (they send what they measured, then `done`). */
  readonly signal: AbortSignal;
  readonly onRecord: (record: RequestRecord) => void;
  readonly onPhaseStart?: (phase: Phase, at: number) => void;
  /** Given, before anything is sent, a reader of what every shard's requests are doing. */
  readonly onActivity?: (read: () => readonly TransportActivity[]) => void;
  /** Once every shard is ready, send them all one start this far ahead (ms); absent: they start on their own. */
  readonly sharedStartDelayMs?: number;
  /**
   * When a phase starts: at the first shard's report of it (default), or at the earliest of all shards' reports,
   * once each has reported it or ended (records are held until then; for transports that deliver in bursts).
   */
  readonly phaseStart?: "first" | "earliest";
  /** A shard lost before it started fails the run (default: nothing was sent yet), or only makes it partial. */
  readonly lossBeforeStart?: "fail" | "partial";
  /** A shard's name in messages. @default "engine shard <k>" */
  readonly describe?: (index: number) => string;
}

/** What one shard said about itself. */
export interface ShardReport {
  readonly index: number;
  readonly pid?: number;
  readonly peakRssBytes?: number;
  readonly cpuMs?: number;
  /** When it began, on this process's clock where the shard's offset was measured (epoch ms). */
  readonly startEpochMs?: number;
  /** How late after the agreed start it began, on its own clock (ms). */
  readonly latenessMs?: number;
  /** This process's clock minus the shard's, and the measurement's bound (ms), where the transport measured it. */
  readonly clockOffsetMs?: number;
  readonly clockUncertaintyMs?: number;
  /** Records it delivered. */
  readonly records: number;
}

/** A shard that did not run to its end: killed, failed, or stopped by something other than its coordinator. */
export interface LostShard {
  readonly index: number;
  readonly reason: string;
  /** Records it delivered before it was lost (all merged). */
  readonly records: number;
}

export interface CoordinatedShards {
  /** The outcomes of the shards that sent `done`, in shard order (times on this process's clock). */
  readonly outcomes: readonly ShardOutcome[];
  readonly reports: readonly ShardReport[];
  /** Per pinned shard, in the order they said: "CPU n" or why not. */
  readonly pinning: readonly string[];
  readonly lost: readonly LostShard[];
  readonly profilingStartedAt?: number;
  readonly profilingEndedAt?: number;
}

/** Why the run cannot go on (a shard lost before the start). */
export class ShardStartError extends Error {
  override name = "ShardStartError";
}

interface State {
  shift: number;
  origin: number;
  offset: number;
  ready: boolean;
  started: boolean;
  records: number;
  done?: Extract<ShardEvent, { type: "done" }>;
  failed?: string;
  ended: boolean;
  endReason?: string;
  activities: readonly TransportActivity[];
  phases: Set<Phase>;
  report: { -readonly [K in keyof ShardReport]: ShardReport[K] };
}

export async function coordinateShards(o: CoordinateOptions): Promise<CoordinatedShards> {
  const name = o.describe ?? ((i: number) => `engine shard ${i}`);
  const states: State[] = o.links.map((_, index) => ({
    shift: 0,
    origin: o.timeOriginMs,
    offset: 0,
    ready: false,
    started: false,
    records: 0,
    ended: false,
    activities: [],
    phases: new Set(),
    report: { index, records: 0 },
  }));
  const pinning: string[] = [];
  o.onActivity?.(() => states.flatMap((s) => s.activities));

  let startSent = false;
  let failing = false;
  let fatal: ((err: Error) => void) | undefined;
  const failedBeforeStart = new Promise<never>((_, reject) => fatal = reject);
  failedBeforeStart.catch(() => {});

  // Phase starts (see phaseStart) and the records held while one is pending.
  const emitted = new Set<Phase>();
  const seen = new Map<Phase, number>();
  let held: (() => void)[] = [];
  const pendingPhase = () => [...seen.keys()].some((p) => !emitted.has(p));
  const settlePhases = () => {
    for (const [phase, at] of seen) {
      if (emitted.has(phase)) continue;
      if (!states.every((s) => s.phases.has(phase) || s.ended)) return;
      emitted.add(phase);
      o.onPhaseStart?.(phase, at);
    }
    const run = held;
    held = [];
    for (const f of run) f();
  };
  const deliver = (records: readonly RequestRecord[], shift: number) => {
    if (shift === 0) { for (const r of records) o.onRecord(r); }
    else for (const r of records) o.onRecord(shiftRecord(r, shift));
  };

  const maybeStart = () => {
    if (o.sharedStartDelayMs === undefined || startSent || failing) return;
    const live = states.filter((s) => !s.ended);
    if (live.length === 0 || !live.every((s) => s.ready) || o.signal.aborted) return;
    startSent = true;
    const epochMs = o.timeOriginMs + performance.now() + o.sharedStartDelayMs;
    o.links.forEach((link, i) => {
      if (!states[i].ended) link.control({ type: "start", epochMs });
    });
  };

  const handle = (i: number, e: ShardEvent) => {
    const s = states[i];
    switch (e.type) {
      case "hello":
        s.origin = e.timeOriginMs;
        s.shift = s.origin + s.offset - o.timeOriginMs;
        s.report.pid = e.pid;
        break;
      case "clock":
        s.offset = e.offsetMs;
        s.shift = s.origin + s.offset - o.timeOriginMs;
        s.report.clockOffsetMs = e.offsetMs;
        s.report.clockUncertaintyMs = e.uncertaintyMs;
        break;
      case "pinned":
        pinning.push(e.ok ? `CPU ${e.core}` : `not pinned to CPU ${e.core}: ${e.reason}`);
        break;
      case "ready":
        s.ready = true;
        maybeStart();
        break;
      case "started":
        s.started = true;
        s.report.startEpochMs = e.startEpochMs + s.offset;
        s.report.latenessMs = e.latenessMs;
        break;
      case "phase": {
        const at = e.at + s.shift;
        s.phases.add(e.phase);
        if (o.phaseStart === "earliest") {
          const before = seen.get(e.phase);
          if (before === undefined || at < before) seen.set(e.phase, at);
          settlePhases();
        } else if (!emitted.has(e.phase)) {
          emitted.add(e.phase);
          o.onPhaseStart?.(e.phase, at);
        }
        break;
      }
      case "records": {
        s.records += e.records.length;
        s.report.records = s.records;
        if (o.phaseStart === "earliest" && pendingPhase()) {
          const { records } = e;
          const shift = s.shift;
          held.push(() => deliver(records, shift));
        } else deliver(e.records, s.shift);
        break;
      }
      case "activity":
        s.activities = s.shift === 0 ? e.activities : e.activities.map((a) => ({
          ...a,
          lastDataAt: a.lastDataAt > 0 ? a.lastDataAt + s.shift : 0,
        }));
        break;
      case "done":
        s.done = { ...e, outcome: shiftOutcome(e.outcome, s.shift) };
        s.report.peakRssBytes = e.peakRssBytes;
        s.report.cpuMs = e.cpuMs;
        break;
      case "failed":
        s.failed = e.message;
        break;
    }
  };

  const onAbort = () => o.links.forEach((link, i) => !states[i].ended && link.control({ type: "cancel" }));
  o.signal.addEventListener("abort", onAbort, { once: true });
  const endings = o.links.map(async (link, i) => {
    const s = states[i];
    link.onEvent((e) => handle(i, e));
    s.endReason = await link.ended.catch((err: Error) => err.message);
    s.ended = true;
    s.activities = [];
    if (o.phaseStart === "earliest") settlePhases();
    const beforeStart = o.sharedStartDelayMs !== undefined ? !startSent : !s.started;
    if (s.done === undefined && beforeStart && (o.lossBeforeStart ?? "fail") === "fail" && !o.signal.aborted) {
      failing = true;
      fatal!(
        new ShardStartError(
          s.failed !== undefined
            ? `${name(i)} failed: ${s.failed}`
            : `${name(i)} ${s.endReason ?? "ended"} before the run started`,
        ),
      );
    }
    // One that ended before getting ready must not keep the others waiting for the start.
    maybeStart();
  });
  if (o.signal.aborted) onAbort();
  try {
    await Promise.race([Promise.all(endings), failedBeforeStart]);
  } catch (err) {
    for (const link of o.links) link.abort();
    await Promise.allSettled(endings);
    throw err;
  } finally {
    o.signal.removeEventListener("abort", onAbort);
  }
  if (held.length > 0) settlePhases();

  const lost: LostShard[] = [];
  states.forEach((s, index) => {
    const reason = s.failed !== undefined
      ? `failed: ${s.failed}`
      : s.done === undefined
      ? s.endReason ?? "ended early"
      : s.done.stoppedBy !== undefined && !o.signal.aborted
      ? `was stopped by ${s.done.stoppedBy}`
      : undefined;
    if (reason !== undefined) lost.push({ index, reason, records: s.records });
  });
  const outcomes = states.flatMap((s) => s.done === undefined ? [] : [s.done.outcome]);
  const profiling = outcomes.map((x) => x.profiling).filter((p) => p !== undefined);
  return {
    outcomes,
    reports: states.map((s) => ({ ...s.report })),
    pinning,
    lost,
    profilingStartedAt: profiling.length ? Math.min(...profiling.map((p) => p.startedAt)) : undefined,
    profilingEndedAt: profiling.length ? Math.max(...profiling.map((p) => p.endedAt)) : undefined,
  };
}

/** The partial-run line: "partial run: 3 of 4 shards ran to their end; shard 2 …; what they measured is kept". */
export function describeLostShards(lost: readonly LostShard[], shards: number, name = "shard"): string {
  const each = lost.map((l) => `${name} ${l.index} ${l.reason} (${l.records} records kept)`).join("; ");
  return `partial run: ${shards - lost.length} of ${shards} shards ran to their end; ${each}. ` +
    "The results include what every shard measured, at less load than asked for.";
}

/** A record with every time moved by `shiftMs` (a shard whose clock origin is not this process's). */
export function shiftRecord(r: RequestRecord, shiftMs: number): RequestRecord {
  if (shiftMs === 0) return r;
  const out: Record<string, unknown> = { ...r };
  for (const [key, value] of Object.entries(r)) {
    if (key.endsWith("At") && typeof value === "number") out[key] = value + shiftMs;
  }
  out.responseTimes = r.responseTimes.map((t) => t + shiftMs);
  return out as unknown as RequestRecord;
}

function shiftOutcome(outcome: ShardOutcome, shift: number): ShardOutcome {
  if (shift === 0) return outcome;
  const out: Record<string, unknown> = {};
  for (const [phase, p] of Object.entries(outcome)) {
    if (p !== undefined) out[phase] = { ...p, startedAt: p.startedAt + shift, endedAt: p.endedAt + shift };
  }
  return out as ShardOutcome;
}
