/**
 * Per-request speculative-decoding statistics, engine-neutral (AIPerf 0.13's `SpecDecodeAcceptanceRecord`), and the
 * reader of vLLM's payload: `metrics.speculative_decoding` at the root of a chat or completions answer (the body, or
 * the trailing usage chunk of a stream) when vLLM runs with `--per-request-spec-decode-metrics`:
 * `{num_spec_tokens, num_drafts|num_spec_steps, num_draft_tokens, num_accepted_draft_tokens, mean_acceptance_length,
 * draft_acceptance_rate, acceptance_histogram: [steps accepting exactly j drafts, j = 0..k], per_step_accepted?,
 * per_step_drafted?}`.
 *
 * As AIPerf: the dense histogram becomes a sparse `{j: steps}` map without zero buckets; a payload whose counts
 * contradict each other (histogram vs steps and accepted tokens, per-step arrays vs totals, more accepted than
 * drafted, more buckets than `num_spec_tokens + 1`) is dropped, never reported; `completion_tokens` comes from the
 * answer's usage.
 */
type JsonObject = Record<string, unknown>;

export interface SpecDecodeAcceptance {
  /** The engine whose payload this was read from ("vllm"). */
  readonly engine: string;
  /** `1 + accepted / steps`: tokens emitted per verification step, the bonus token included. */
  readonly meanAcceptanceLength: number;
  /** `accepted / drafted`, a fraction (0..1), the bonus token excluded. */
  readonly draftAcceptanceRate: number;
  /** Steps that accepted exactly `j` draft tokens, by `j`; zero buckets left out. */
  readonly acceptanceHistogram: Readonly<Record<string, number>>;
  readonly numAcceptedDraftTokens: number;
  readonly numDraftTokens: number;
  readonly numSpecSteps: number;
  /** The draft length `k`, when the engine has a fixed one. */
  readonly numSpecTokens?: number;
  /** The answer's `usage.completion_tokens`, when reported. */
  readonly completionTokens?: number;
  /** Accepted / proposed drafts of each verification step, in order (vLLM's detailed level). */
  readonly perStepAccepted?: readonly number[];
  readonly perStepDrafted?: readonly number[];
}

/** The raw `metrics.speculative_decoding` object of an answer or chunk; undefined when absent or empty. */
export function readSpecDecodePayload(obj: JsonObject): JsonObject | undefined {
  const metrics = obj.metrics;
  if (typeof metrics !== "object" || metrics === null || Array.isArray(metrics)) return undefined;
  const stats = (metrics as JsonObject).speculative_decoding;
  if (typeof stats !== "object" || stats === null || Array.isArray(stats)) return undefined;
  return Object.keys(stats).length > 0 ? stats as JsonObject : undefined;
}

function isCount(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= 0;
}

function countList(v: unknown): number[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || !v.every(isCount)) throw new Error("a per-step array must be a list of counts");
  return v as number[];
}

function finiteNumber(v: unknown, name: string): number {
  if (typeof v !== "number" || !Number.isFinite(v)) throw new Error(`${name} must be a finite number`);
  return v;
}

function count(v: unknown, name: string): number {
  if (!isCount(v)) throw new Error(`${name} must be a non-negative integer`);
  return v;
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

/**
 * vLLM's payload → the neutral record, or a reason it was dropped. Needs both `acceptance_histogram` and
 * `num_spec_steps` (vLLM's signature keys, present even with zero steps).
 */
export function adaptVllmSpecDecode(
  payload: JsonObject,
  completionTokens: number | undefined,
): SpecDecodeAcceptance | { readonly dropped: string } {
  if (!("acceptance_histogram" in payload) || !("num_spec_steps" in payload)) {
    return { dropped: "not vLLM's shape (no acceptance_histogram and num_spec_steps)" };
  }
  try {
    const dense = payload.acceptance_histogram;
    if (!Array.isArray(dense) || !dense.every(isCount)) {
      throw new Error("acceptance_histogram must be a list of counts");
    }
    const k = payload.num_spec_tokens;
    const numSpecTokens = k === undefined || k === null ? undefined : count(k, "num_spec_tokens");
    if (numSpecTokens !== undefined && dense.length !== numSpecTokens + 1) {
      throw new Error(`acceptance_histogram has ${dense.length} buckets, expected num_spec_tokens + 1`);
    }
    const histogram: Record<string, number> = {};
    dense.forEach((steps: number, j) => {
      if (steps !== 0) histogram[String(j)] = steps;
    });
    const accepted = count(payload.num_accepted_draft_tokens, "num_accepted_draft_tokens");
    const drafted = count(payload.num_draft_tokens, "num_draft_tokens");
    const steps = count(payload.num_spec_steps, "num_spec_steps");
    if (sum(dense) !== steps) throw new Error("the histogram's steps do not sum to num_spec_steps");
    if (dense.reduce((a: number, n: number, j) => a + j * n, 0) !== accepted) {
      throw new Error("the histogram's accepted drafts do not sum to num_accepted_draft_tokens");
    }
    if (accepted > drafted) throw new Error("more drafts accepted than proposed");
    const perStepAccepted = countList(payload.per_step_accepted);
    const perStepDrafted = countList(payload.per_step_drafted);
    if (perStepAccepted !== undefined && (perStepAccepted.length !== steps || sum(perStepAccepted) !== accepted)) {
      throw new Error("per_step_accepted does not match num_spec_steps and num_accepted_draft_tokens");
    }
    if (perStepDrafted !== undefined && (perStepDrafted.length !== steps || sum(perStepDrafted) !== drafted)) {
      throw new Error("per_step_drafted does not match num_spec_steps and num_draft_tokens");
    }
    if (perStepAccepted !== undefined && perStepDrafted?.some((d, i) => perStepAccepted[i] > d)) {
      throw new Error("a step accepted more drafts than it proposed");
    }
    const record: SpecDecodeAcceptance = {
      engine: "vllm",
      meanAcceptanceLength: finiteNumber(payload.mean_acceptance_length, "mean_acceptance_length"),
      draftAcceptanceRate: finiteNumber(payload.draft_acceptance_rate, "draft_acceptance_rate"),
      acceptanceHistogram: histogram,
      numAcceptedDraftTokens: accepted,
      numDraftTokens: drafted,
      numSpecSteps: steps,
      numSpecTokens,
      completionTokens: isCount(completionTokens) ? completionTokens : undefined,
      perStepAccepted,
      perStepDrafted,
    };
    return record;
  } catch (err) {
    return { dropped: (err as Error).message };
  }
}

/**
 * The request's record from the payloads its answer carried: exactly one (AIPerf drops the record when several
 * chunks carried one, an `n > 1` stream whose stats cannot be told apart), adapted by the first engine whose shape
 * it has. Undefined when there is none or it was dropped.
 */
export function specDecodeRecord(
  payloads: readonly JsonObject[],
  completionTokens: number | undefined,
): SpecDecodeAcceptance | undefined {
  if (payloads.length !== 1) return undefined;
  const adapted = adaptVllmSpecDecode(payloads[0], completionTokens);
  return "dropped" in adapted ? undefined : adapted;
}

/** The neutral record as AIPerf's JSONL writes it (`spec_decode_acceptance`, null fields left out). */
export function specDecodeJson(s: SpecDecodeAcceptance): JsonObject {
  const out: JsonObject = {
    engine: s.engine,
    mean_acceptance_length: s.meanAcceptanceLength,
    draft_acceptance_rate: s.draftAcceptanceRate,
    acceptance_histogram: s.acceptanceHistogram,
    num_accepted_draft_tokens: s.numAcceptedDraftTokens,
    num_draft_tokens: s.numDraftTokens,
    num_spec_steps: s.numSpecSteps,
  };
  if (s.numSpecTokens !== undefined) out.num_spec_tokens = s.numSpecTokens;
  if (s.completionTokens !== undefined) out.completion_tokens = s.completionTokens;
  if (s.perStepAccepted !== undefined) out.per_step_accepted = s.perStepAccepted;
  if (s.perStepDrafted !== undefined) out.per_step_drafted = s.perStepDrafted;
  return out;
}
