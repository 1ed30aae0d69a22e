/**
 * Speculative-decoding acceptance metrics, as AIPerf 0.13 defines them (tags, headers, units, display orders). Each
 * reads only the request's engine-neutral record (`record.specDecode`, `endpoints/spec_decode.ts`): without one (spec
 * decoding off, or a server that does not report it) none has a value, so no row, column or key appears.
 *
 * Notation per request: `a` = accepted draft tokens, `d` = proposed draft tokens, `s` = verification steps.
 */
import type { DerivedMetricDef, MetricUnit, RecordMetricDef } from "./metric_def.ts";
import type { SpecDecodeAcceptance } from "../endpoints/spec_decode.ts";

function specRecord(
  tag: string,
  header: string,
  unit: MetricUnit,
  displayOrder: number,
  compute: (s: SpecDecodeAcceptance) => number | undefined,
  options: { readonly shown: boolean; readonly largerIsBetter?: boolean },
): RecordMetricDef {
  return {
    tag,
    header,
    unit,
    kind: "record",
    requires: [],
    flags: options.largerIsBetter ? { largerIsBetter: true } : {},
    consoleGroup: options.shown ? "spec_decode" : "none",
    better: options.largerIsBetter ? "higher" : "none",
    displayOrder,
    compute: (r) => (r.specDecode === undefined ? undefined : compute(r.specDecode)),
  };
}

/** `spec_decode_acceptance_length = 1 + a / s` as the server reports it (`mean_acceptance_length`): tokens emitted
 * per verification step, the bonus token included. */
export const SPEC_DECODE_ACCEPTANCE_LENGTH = specRecord(
  "spec_decode_acceptance_length",
  "Acceptance Length",
  "ratio",
  5000,
  (s) => s.meanAcceptanceLength,
  { shown: true, largerIsBetter: true },
);

/** `spec_decode_draft_acceptance_rate = 100 · draft_acceptance_rate` (`a / d` as a percentage, bonus excluded). */
export const SPEC_DECODE_DRAFT_ACCEPTANCE_RATE = specRecord(
  "spec_decode_draft_acceptance_rate",
  "Draft Acceptance Rate",
  "%",
  5020,
  (s) => s.draftAcceptanceRate * 100,
  { shown: true, largerIsBetter: true },
);

/** `spec_decode_accepted_per_verified = (a + s) / (d + s)`: emitted over verified tokens; none when `d + s = 0`. */
export const SPEC_DECODE_ACCEPTED_PER_VERIFIED = specRecord(
  "spec_decode_accepted_per_verified",
  "Accepted per Verified",
  "ratio",
  5030,
  (s) => {
    const verified = s.numDraftTokens + s.numSpecSteps;
    return verified === 0 ? undefined : (s.numAcceptedDraftTokens + s.numSpecSteps) / verified;
  },
  { shown: true, largerIsBetter: true },
);

/** `spec_decode_steps = s` (the sum of the request's histogram). */
export const SPEC_DECODE_STEPS = specRecord(
  "spec_decode_steps",
  "Spec Decode Steps",
  "count",
  5040,
  (s) => s.numSpecSteps,
  { shown: true },
);

/** `spec_decode_accepted_draft_tokens = a` (exported, not shown). */
export const SPEC_DECODE_ACCEPTED_DRAFT_TOKENS = specRecord(
  "spec_decode_accepted_draft_tokens",
  "Accepted Draft Tokens",
  "tokens",
  5050,
  (s) => s.numAcceptedDraftTokens,
  { shown: false },
);

/** `spec_decode_draft_tokens = d` (exported, not shown). */
export const SPEC_DECODE_DRAFT_TOKENS = specRecord(
  "spec_decode_draft_tokens",
  "Draft Tokens",
  "tokens",
  5060,
  (s) => s.numDraftTokens,
  { shown: false },
);

function specTotal(tag: string, of: string, header: string, unit: MetricUnit, displayOrder: number): DerivedMetricDef {
  return {
    tag,
    header,
    unit,
    kind: "derived",
    requires: [of],
    flags: { noIndividualRecords: true },
    consoleGroup: "none",
    better: "none",
    displayOrder,
    compute: (m) => m.sum(of),
  };
}

/** `total_spec_decode_steps = Σ s`. */
export const TOTAL_SPEC_DECODE_STEPS = specTotal(
  "total_spec_decode_steps",
  "spec_decode_steps",
  "Total Spec Decode Steps",
  "count",
  5140,
);
/** `total_accepted_draft_tokens = Σ a`. */
export const TOTAL_ACCEPTED_DRAFT_TOKENS = specTotal(
  "total_accepted_draft_tokens",
  "spec_decode_accepted_draft_tokens",
  "Total Accepted Draft Tokens",
  "tokens",
  5150,
);
/** `total_draft_tokens = Σ d`. */
export const TOTAL_DRAFT_TOKENS = specTotal(
  "total_draft_tokens",
  "spec_decode_draft_tokens",
  "Total Draft Tokens",
  "tokens",
  5160,
);

/** `spec_decode_token_weighted_acceptance_length = 1 + Σa / Σs`: every step weighs the same (the per-request mean
 * weighs every request the same); none with zero steps. */
export const SPEC_DECODE_TOKEN_WEIGHTED_ACCEPTANCE_LENGTH: DerivedMetricDef = {
  tag: "spec_decode_token_weighted_acceptance_length",
  header: "Token-Weighted Acceptance Length",
  unit: "ratio",
  kind: "derived",
  requires: ["total_accepted_draft_tokens", "total_spec_decode_steps"],
  flags: { largerIsBetter: true, noIndividualRecords: true },
  consoleGroup: "spec_decode",
  better: "higher",
  displayOrder: 5010,
  compute: (m) => {
    const steps = m.value("total_spec_decode_steps");
    const accepted = m.value("total_accepted_draft_tokens");
    return steps === undefined || accepted === undefined || steps === 0 ? undefined : 1 + accepted / steps;
  },
};

/** `spec_decode_overall_draft_acceptance_rate = 100 · Σa / Σd`; none with zero proposed drafts. */
export const SPEC_DECODE_OVERALL_DRAFT_ACCEPTANCE_RATE: DerivedMetricDef = {
  tag: "spec_decode_overall_draft_acceptance_rate",
  header: "Overall Draft Acceptance Rate",
  unit: "%",
  kind: "derived",
  requires: ["total_accepted_draft_tokens", "total_draft_tokens"],
  flags: { largerIsBetter: true, noIndividualRecords: true },
  consoleGroup: "spec_decode",
  better: "higher",
  displayOrder: 5025,
  compute: (m) => {
    const drafted = m.value("total_draft_tokens");
    const accepted = m.value("total_accepted_draft_tokens");
    return drafted === undefined || accepted === undefined || drafted === 0 ? undefined : 100 * accepted / drafted;
  },
};

/** Every speculative-decoding metric, in AIPerf's declaration order. */
export const SPEC_DECODE_METRIC_DEFS = [
  SPEC_DECODE_ACCEPTANCE_LENGTH,
  SPEC_DECODE_DRAFT_ACCEPTANCE_RATE,
  SPEC_DECODE_ACCEPTED_PER_VERIFIED,
  SPEC_DECODE_STEPS,
  SPEC_DECODE_ACCEPTED_DRAFT_TOKENS,
  SPEC_DECODE_DRAFT_TOKENS,
  TOTAL_SPEC_DECODE_STEPS,
  TOTAL_ACCEPTED_DRAFT_TOKENS,
  TOTAL_DRAFT_TOKENS,
  SPEC_DECODE_TOKEN_WEIGHTED_ACCEPTANCE_LENGTH,
  SPEC_DECODE_OVERALL_DRAFT_ACCEPTANCE_RATE,
] as const;
