/**
 * Agent streams recovered from a recorded list of requests (a Weka trace's top level, or one sub-agent's requests),
 * where several agents' requests were flattened into one list: requests in time order, each continuing the stream
 * it best extends. A request continues the stream of the same model whose last hash-bearing request had ended when
 * it started and shares the longest prefix of KV-cache block ids with it (a context edit such as a compaction keeps
 * a shorter prefix and still continues it); a request that no such stream can take — its candidates are still
 * answering, or it shares no block with any of them — starts a stream of its own (an agent working in parallel, or
 * a one-off call). Requests without block ids ride the first stream. The first stream is the one holding the first
 * request.
 *
 * AIPerf 0.13 detects these streams with the same evidence and a second pass that splices a fork back onto its
 * stream when the longer context is never resumed; here a stream is split only where requests overlap in time or
 * share no context, so a sequential agent is never split in two.
 */

/** What stream detection reads of a request. */
export interface ChainRequest {
  /** Start, seconds. */
  readonly t: number;
  /** Server time, seconds (missing: 0). */
  readonly apiTime?: number;
  readonly model: string;
  readonly hashIds: readonly number[];
}

const EPSILON_S = 1e-6;

/** The end of a request's recorded interval, seconds. */
export function requestEnd(r: { readonly t: number; readonly apiTime?: number }): number {
  const api = r.apiTime !== undefined && Number.isFinite(r.apiTime) ? Math.max(0, r.apiTime) : 0;
  return r.t + api;
}

/** Splits `requests` (in time order) into streams of indices; stream 0 holds the first request. */
export function detectChains(requests: readonly ChainRequest[]): number[][] {
  const chains: { members: number[]; tail?: ChainRequest; tailEnd: number }[] = [];
  for (let i = 0; i < requests.length; i++) {
    const r = requests[i];
    if (r.hashIds.length === 0) {
      if (chains.length === 0) chains.push({ members: [], tailEnd: -Infinity });
      chains[0].members.push(i);
      continue;
    }
    let best: (typeof chains)[number] | undefined;
    let bestShared = 0;
    for (const c of chains) {
      if (c.tail === undefined) {
        // The first stream began with requests without ids: the first request with ids continues it.
        if (c === chains[0] && best === undefined) best = c;
        continue;
      }
      if (c.tail.model !== r.model || c.tailEnd > r.t + EPSILON_S) continue;
      const shared = sharedPrefix(c.tail.hashIds, r.hashIds);
      if (
        shared > bestShared || (shared === bestShared && shared > 0 && best !== undefined && c.tailEnd > best.tailEnd)
      ) {
        best = c;
        bestShared = shared;
      }
    }
    if (best === undefined || (best.tail !== undefined && bestShared === 0)) {
      best = { members: [], tailEnd: -Infinity };
      chains.push(best);
    }
    best.members.push(i);
    best.tail = r;
    best.tailEnd = requestEnd(r);
  }
  return chains.map((c) => c.members);
}

function sharedPrefix(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/**
 * A trace's timeline with every gap between consecutive request starts longer than `capS` cut to `capS`
 * (`--trace-idle-gap-cap-seconds`, as AIPerf): a time inside a cut gap maps to the gap's cap boundary, a time after
 * it moves earlier by the cut.
 */
export function idleGapWarp(starts: readonly number[], capS: number): (t: number) => number {
  const sorted = [...starts].sort((a, b) => a - b);
  const gaps: { start: number; end: number; shiftBefore: number; excess: number }[] = [];
  let shift = 0;
  for (let i = 1; i < sorted.length; i++) {
    const gap = sorted[i] - sorted[i - 1];
    if (gap > capS) {
      gaps.push({ start: sorted[i - 1], end: sorted[i], shiftBefore: shift, excess: gap - capS });
      shift += gap - capS;
    }
  }
  return (t) => {
    let moved = 0;
    for (const g of gaps) {
      if (t < g.start) return t - g.shiftBefore;
      if (t < g.end) return t - g.start <= capS ? t - g.shiftBefore : g.start - g.shiftBefore + capS;
      moved = g.shiftBefore + g.excess;
    }
    return t - moved;
  };
}
