/**
 * A peer tool's metric definitions, applied to infermeter's records: what a peer computes (`PeerDefinition`) and
 * what it reports (`PeerReport`: its headline values under its own labels, and per metric why the value differs
 * from infermeter's AIPerf-defined one).
 */
import type { RegistryEntry } from "../../base/registry.ts";
import type { InfermeterBaseline } from "./infermeter_baseline.ts";
import type { PeerRecord } from "./peer_records.ts";

/** Where a peer defines what it reports: a file and the function in it, in the peer's public repository. */
export interface PeerCitation {
  readonly repository: string;
  readonly file: string;
  readonly function: string;
}

/** One headline value, as the peer prints or saves it. */
export interface PeerValue {
  /** The peer's own result field where it has one (`mean_tpot_ms`), else a stable key. */
  readonly key: string;
  /** The peer's console label (`Mean TPOT (ms)`). */
  readonly label: string;
  /** Undefined values are those the records cannot give (e.g. TTFT of a non-streamed run). */
  readonly value: number | null;
  readonly unit: string;
  /** Shown in the console table; the others are in peer_metrics.json only. @default true */
  readonly console?: boolean;
}

/** Why one of the peer's metrics differs from infermeter's. */
export interface PeerExplanation {
  /** The quantity, in words users compare: "TPOT", "ITL", "TTFT", "Output throughput". */
  readonly metric: string;
  /** The peer's value compared (a key of its `values`). */
  readonly peerKey: string;
  /** The peer's definition, as a formula in words. */
  readonly peerDefinition: string;
  /** The infermeter metric compared (a key of {@link InfermeterBaseline}), e.g. `inter_token_latency.avg`. */
  readonly infermeterKey: keyof InfermeterBaseline;
  /** Which requests count, which tokens, which denominator: what makes the two values differ. */
  readonly why: string;
}

/** One peer's view of a run. */
export interface PeerReport {
  readonly name: string;
  readonly tool: string;
  readonly definedIn: readonly PeerCitation[];
  readonly values: readonly PeerValue[];
  readonly explanations: readonly PeerExplanation[];
  /** What the records cannot show about this peer's definitions, and how it was approximated. */
  readonly notes: readonly string[];
}

/** A registered peer: its name (`--peer-metrics vllm`), tool, citations and the computation. */
export interface PeerDefinition extends RegistryEntry {
  readonly tool: string;
  readonly definedIn: readonly PeerCitation[];
  /** Pure: the peer's report from the run's profiling records. */
  compute(records: readonly PeerRecord[]): Omit<PeerReport, "name" | "tool" | "definedIn">;
}

/** Seconds from the first request's start to the last end (last byte) among `records`; undefined without any. */
export function spanSec(records: readonly PeerRecord[], end: (r: PeerRecord) => number = (r) => r.endMs) {
  if (records.length === 0) return undefined;
  let first = Infinity;
  let last = -Infinity;
  for (const r of records) {
    first = Math.min(first, r.startMs);
    last = Math.max(last, end(r));
  }
  return (last - first) / 1000;
}

/** `a / b`, null when either is missing or b is not positive. */
export function per(a: number | undefined, b: number | undefined): number | null {
  return a === undefined || b === undefined || !(b > 0) ? null : a / b;
}

/** Σ of a field over records, treating a missing value as 0. */
export function sumOf(records: readonly PeerRecord[], f: (r: PeerRecord) => number | undefined): number {
  let s = 0;
  for (const r of records) s += f(r) ?? 0;
  return s;
}

/** `x` as a reported value: undefined becomes null (no value). */
export function v(x: number | undefined | null): number | null {
  return x === undefined || x === null || !Number.isFinite(x) ? null : x;
}

/** "n of N requests" with the failed ones named, for explanations. */
export function countedPhrase(counted: number, total: number): string {
  return counted === total ? `all ${total} requests` : `${counted} of ${total} requests`;
}
