/**
 * Says once when a target's requests have gone quiet: requests are in flight but no data has arrived on any of its
 * connections for `quietMs` (a server sending only SSE keep-alive comments is quiet: they carry no data). A server that accepts and never answers, or never accepts, otherwise hangs a run
 * with the default 6-hour request timeout and nothing on the console. Pure and clocked by the caller: feed it
 * {@linkcode TransportActivity} snapshots with the time they were taken (e.g. once a second).
 */
import type { TransportActivity } from "./http_client.ts";

export class StallDetector {
  readonly #quietMs: number;
  /** Per target: when it was last seen active (data, or nothing in flight), and whether it was reported. */
  readonly #state = new Map<string, { activeAt: number; lastDataAt: number; reported: boolean }>();

  constructor(quietMs: number) {
    if (!(quietMs > 0)) throw new RangeError(`StallDetector quietMs ${quietMs} must be above 0.`);
    this.#quietMs = quietMs;
  }

  /**
   * Notices for targets that became stalled at `now` (each said once per stall; data or an empty pipeline
   * re-arms it). Several snapshots of one target (one per shard) are summed.
   */
  check(now: number, activities: readonly TransportActivity[]): string[] {
    const merged = new Map<string, { lastDataAt: number; inFlight: number; stages: Map<string, number> }>();
    for (const a of activities) {
      let m = merged.get(a.target);
      if (m === undefined) merged.set(a.target, m = { lastDataAt: 0, inFlight: 0, stages: new Map() });
      m.lastDataAt = Math.max(m.lastDataAt, a.lastDataAt);
      m.inFlight += a.inFlight;
      for (const [stage, n] of Object.entries(a.stages) as [string, number][]) {
        m.stages.set(stage, (m.stages.get(stage) ?? 0) + n);
      }
    }
    const notices: string[] = [];
    for (const [target, m] of merged) {
      let s = this.#state.get(target);
      if (s === undefined) this.#state.set(target, s = { activeAt: now, lastDataAt: m.lastDataAt, reported: false });
      if (m.inFlight === 0 || m.lastDataAt > s.lastDataAt) {
        s.activeAt = m.inFlight === 0 ? now : Math.max(s.activeAt, m.lastDataAt);
        s.lastDataAt = m.lastDataAt;
        s.reported = false;
        continue;
      }
      const quiet = now - s.activeAt;
      if (s.reported || quiet < this.#quietMs) continue;
      s.reported = true;
      const stages = [...m.stages].filter(([, n]) => n > 0).map(([stage, n]) => `${n} ${stage}`).join(", ");
      notices.push(
        `No response data from ${target} for ${Math.round(quiet / 1000)} s with ${m.inFlight} request${
          m.inFlight === 1 ? "" : "s"
        } in flight (${stages}); the server may be stalled or unreachable.`,
      );
    }
    return notices;
  }
}
