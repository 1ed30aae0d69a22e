/**
 * AIPerf's agentic-code session synthesis: coding-agent sessions whose context grows turn by turn, as its state
 * machine builds them.
 *
 * A session starts with the shared prefix — tools and system prompt (layer 1, every session), a group's repository
 * context (layer 1.5, the group drawn Zipf-skewed) — and its own initial files (layer 2, lognormal). Each later turn
 * waits a think time (a mixture: agentic tool follow-ups or slower human turns, shortened as the context fills),
 * adds new tokens (lognormal), and its input is the previous input + the previous answer + the new tokens; the
 * session ends when that would reach `max_prompt_tokens` (a forced retire) or on a reset whose chance grows with the
 * context. With `turns`, each session aims at a drawn turn count instead. Early sessions may be split at a restart
 * point, the continuation carrying the whole context and queued later.
 *
 * KV-cache block ids follow the layers: layer 1 ids are shared by every session, a group's layer 1.5 ids by its
 * sessions, each session's own ids grow with it. Draws come from infermeter's seeded generator, so a seed gives the
 * same sessions every time (not the numbers AIPerf's numpy generator gives).
 */
import type { SeededRandom } from "../base/seeded_random.ts";
import type { AgenticCodeConfig, Lognormal, MixtureDelay } from "./agentic_code_config.ts";

export type SessionEndReason = "forced_retire" | "probabilistic_reset" | "restart_split" | "target_turn_count";

export interface SynthesizedTurn {
  readonly turnIndex: number;
  /** Whole input of the request: previous input + previous answer + new tokens. */
  readonly inputLength: number;
  readonly outputLength: number;
  /** Tokens new in this turn (the whole initial context on turn 0). */
  readonly newTokens: number;
  readonly delayMs: number;
  readonly timestampMs: number;
  /** Block ids covering the whole input. */
  readonly hashIds: readonly number[];
}

export interface SynthesizedSession {
  readonly sessionId: string;
  readonly groupId: number;
  readonly turns: readonly SynthesizedTurn[];
  readonly endReason: SessionEndReason;
  readonly isRestartContinuation: boolean;
}

/** Shortest answer drawn (as AIPerf). */
const OUTPUT_MIN = 30;
const MAX_GROUP_BLOCKS = 200;
const MAX_GROUPS = 1_000;
const MAX_SESSION_BLOCKS = 4_000;

/** A lognormal draw, drawn again while outside [min, max] (at most 100 times, then clamped); floored at `clipMin`. */
export function sampleLognormal(p: Lognormal, rng: SeededRandom, clipMin?: number): number {
  const draw = () => Math.exp(p.mu + p.sigma * rng.normal());
  let x = draw();
  const out = (v: number) => (p.min !== undefined && v < p.min) || (p.max !== undefined && v > p.max);
  for (let i = 0; i < 100 && out(x); i++) x = draw();
  if (p.min !== undefined) x = Math.max(x, p.min);
  if (p.max !== undefined) x = Math.min(x, p.max);
  if (clipMin !== undefined) x = Math.max(x, clipMin);
  return x;
}

/** A think time from the two-component mixture (agentic with its share, else human), clipped to `max`. */
export function sampleMixtureDelay(m: MixtureDelay, rng: SeededRandom): number {
  const agentic = rng.next() < m.agenticFraction;
  const a = sampleLognormal(m.agenticDelay, rng);
  const h = sampleLognormal(m.humanDelay, rng);
  const x = agentic ? a : h;
  return m.max !== undefined ? Math.min(x, m.max) : x;
}

/** The block ids of the layered prefix model (AIPerf's `PrefixAllocator`). */
export class PrefixAllocator {
  readonly blockSize: number;
  readonly l1Blocks: number;
  readonly l15Blocks: number;
  readonly #sessionRegionBase: number;

  constructor(c: AgenticCodeConfig) {
    this.blockSize = c.blockSize;
    this.l1Blocks = Math.ceil(c.cache.layer1Tokens / c.blockSize);
    this.l15Blocks = Math.ceil(c.cache.layer15Tokens / c.blockSize);
    if (c.cache.groups.numGroups > MAX_GROUPS) {
      throw new RangeError(`num_groups=${c.cache.groups.numGroups} exceeds ${MAX_GROUPS}`);
    }
    if (this.l15Blocks > MAX_GROUP_BLOCKS) {
      throw new RangeError(
        `layer1_5_tokens=${c.cache.layer15Tokens} needs ${this.l15Blocks} blocks, more than ${MAX_GROUP_BLOCKS}`,
      );
    }
    this.#sessionRegionBase = this.l1Blocks + MAX_GROUPS * MAX_GROUP_BLOCKS;
  }

  /** Tokens the shared prefix (layers 1 and 1.5) occupies, in whole blocks. */
  get prefixTokens(): number {
    return (this.l1Blocks + this.l15Blocks) * this.blockSize;
  }

  /** The ids of a turn of `inputLength` tokens: layer 1, the group's layer 1.5, then the session's own. */
  turnHashIds(sessionIndex: number, groupId: number, inputLength: number, previous?: readonly number[]): number[] {
    const total = inputLength > 0 ? Math.ceil(inputLength / this.blockSize) : 0;
    const l1 = Math.min(this.l1Blocks, total);
    const ids = Array.from({ length: l1 }, (_, i) => i);
    let remaining = total - l1;
    if (remaining <= 0) return ids;
    const l15 = Math.min(this.l15Blocks, remaining);
    const groupBase = this.l1Blocks + groupId * MAX_GROUP_BLOCKS;
    for (let i = 0; i < l15; i++) ids.push(groupBase + i);
    remaining -= l15;
    if (remaining <= 0) return ids;
    if (remaining > MAX_SESSION_BLOCKS) {
      throw new RangeError(
        `input_length=${inputLength} needs ${remaining} session blocks, more than ${MAX_SESSION_BLOCKS}`,
      );
    }
    const base = this.#sessionRegionBase + sessionIndex * MAX_SESSION_BLOCKS;
    if (previous === undefined) {
      for (let i = 0; i < remaining; i++) ids.push(base + i);
    } else if (remaining > previous.length) {
      const next = previous.length > 0 ? previous[previous.length - 1] + 1 : base;
      ids.push(...previous, ...Array.from({ length: remaining - previous.length }, (_, i) => next + i));
    } else ids.push(...previous.slice(0, remaining));
    return ids;
  }

  /** The session's own ids of a turn (past layers 1 and 1.5). */
  sessionIds(hashIds: readonly number[]): number[] {
    const prefix = this.l1Blocks + this.l15Blocks;
    return hashIds.length <= prefix ? [] : hashIds.slice(prefix);
  }
}

export class AgenticCodeSynthesizer {
  readonly #c: AgenticCodeConfig;
  readonly #rng: SeededRandom;
  readonly #alloc: PrefixAllocator;
  readonly #groupCdf: number[];
  readonly #outputMin: number;
  readonly #newTokens: Lognormal;
  #sessionCounter = 0;

  constructor(config: AgenticCodeConfig, rng: SeededRandom) {
    this.#c = config;
    this.#rng = rng;
    this.#alloc = new PrefixAllocator(config);
    const g = config.cache.groups;
    const weights = Array.from({ length: g.numGroups }, (_, k) => 1 / (k + 1) ** g.zipfAlpha);
    const sum = weights.reduce((a, b) => a + b, 0);
    let acc = 0;
    this.#groupCdf = weights.map((w) => acc += w / sum);
    const genMax = config.generationLength.max;
    this.#outputMin = genMax !== undefined ? Math.min(OUTPUT_MIN, Math.trunc(genMax)) : OUTPUT_MIN;
    const ntp = config.newTokensPerTurn;
    this.#newTokens = ntp.bias === 1 ? ntp : {
      ...ntp,
      mu: ntp.mu + Math.log(ntp.bias),
      mean: ntp.mean * ntp.bias,
      median: ntp.median * ntp.bias,
    };
  }

  get allocator(): PrefixAllocator {
    return this.#alloc;
  }

  /** `n` sessions; early ones may be split at a restart, the continuation queued after a quarter of them. */
  synthesizeSessions(n: number): SynthesizedSession[] {
    if (this.#c.turns !== null) return Array.from({ length: n }, () => this.#explicitTurnSession());
    const cutoff = 0.75;
    const primary: SynthesizedSession[] = [];
    const deferred: [SynthesizedSession, number][] = [];
    for (let i = 0; i < n; i++) {
      const progress = i / Math.max(1, n - 1);
      const p = progress >= cutoff ? 0 : this.#c.restartInitialProbability * (1 - progress / cutoff);
      const inject = this.#rng.next() < p;
      const [first, ...rest] = this.#session(inject);
      const origin = primary.length;
      primary.push(first);
      for (const s of rest) deferred.push([s, origin]);
    }
    const minOffset = Math.max(1, Math.trunc(n * 0.25));
    for (const [session, origin] of deferred) {
      const low = Math.min(origin + minOffset, primary.length);
      const pos = low >= primary.length ? primary.length : low + this.#rng.int(primary.length + 1 - low);
      primary.splice(pos, 0, session);
    }
    return primary;
  }

  #sessionId(): string {
    const a = this.#rng.nextUint32().toString(16).padStart(8, "0");
    const b = this.#rng.nextUint32().toString(16).padStart(8, "0");
    return `sess-${(a + b).slice(0, 12)}`;
  }

  #group(): number {
    const u = this.#rng.next();
    const k = this.#groupCdf.findIndex((c) => u < c);
    return k < 0 ? this.#groupCdf.length - 1 : k;
  }

  #initialContext(): number {
    const l2 = Math.max(Math.trunc(sampleLognormal(this.#c.cache.layer2, this.#rng)), 1);
    return Math.min(this.#alloc.prefixTokens + l2, this.#c.maxPromptTokens - 1);
  }

  #output(): number {
    return Math.trunc(sampleLognormal(this.#c.generationLength, this.#rng, this.#outputMin));
  }

  #delay(previousInput: number): number {
    let ms = sampleMixtureDelay(this.#c.interTurnDelay, this.#rng);
    ms *= Math.max(0.2, 1 - 0.8 * (previousInput / this.#c.maxPromptTokens));
    const max = this.#c.interTurnDelay.max;
    return max !== undefined ? Math.min(ms, max) : ms;
  }

  #newTokenCount(): number {
    return Math.max(Math.trunc(sampleLognormal(this.#newTokens, this.#rng)), 1);
  }

  #resets(input: number): boolean {
    const r = this.#c.reset;
    if (r === null) return false;
    const p = r.baseProbability * (1 + (r.contextScaling - 1) * (input / this.#c.maxPromptTokens));
    return this.#rng.next() < p;
  }

  /** Grows a session from its turn 0 until it retires or resets (or reaches `stopAt`, a restart point). */
  #grow(index: number, group: number, turns: SynthesizedTurn[], stopAt = -1): SessionEndReason {
    for (let k = turns.length;; k++) {
      if (k === stopAt) return "restart_split";
      const prev = turns[turns.length - 1];
      const delayMs = this.#delay(prev.inputLength);
      const newTokens = this.#newTokenCount();
      const input = prev.inputLength + prev.outputLength + newTokens;
      if (input >= this.#c.maxPromptTokens) return "forced_retire";
      if (this.#resets(input)) return "probabilistic_reset";
      const output = this.#output();
      turns.push({
        turnIndex: k,
        inputLength: input,
        outputLength: output,
        newTokens,
        delayMs,
        timestampMs: prev.timestampMs + delayMs,
        hashIds: this.#alloc.turnHashIds(index, group, input, this.#alloc.sessionIds(prev.hashIds)),
      });
    }
  }

  #firstTurn(index: number, group: number, input: number, previous?: readonly number[]): SynthesizedTurn {
    return {
      turnIndex: 0,
      inputLength: input,
      outputLength: this.#output(),
      newTokens: input,
      delayMs: 0,
      timestampMs: 0,
      hashIds: this.#alloc.turnHashIds(index, group, input, previous),
    };
  }

  #session(injectRestart: boolean): SynthesizedSession[] {
    const index = this.#sessionCounter++;
    const sessionId = this.#sessionId();
    const [lo, hi] = this.#c.restartTurnRange;
    const restartAt = injectRestart ? lo + this.#rng.int(hi - lo) : -1;
    const group = this.#group();
    const turns = [this.#firstTurn(index, group, this.#initialContext())];
    const end = this.#grow(index, group, turns, restartAt);
    const session = { sessionId, groupId: group, turns, endReason: end, isRestartContinuation: false };
    if (end !== "restart_split") return [session];
    // The continuation carries the whole context of the last turn and extends its ids.
    const last = turns[turns.length - 1];
    const input = Math.min(last.inputLength + last.outputLength, this.#c.maxPromptTokens - 1);
    const contId = this.#sessionId();
    const cont = [this.#firstTurn(index, group, input, this.#alloc.sessionIds(last.hashIds))];
    const contEnd = this.#grow(index, group, cont);
    return [session, {
      sessionId: contId,
      groupId: group,
      turns: cont,
      endReason: contEnd,
      isRestartContinuation: true,
    }];
  }

  #explicitTurnSession(): SynthesizedSession {
    const t = this.#c.turns!;
    const target = Math.min(
      Math.max(
        Math.round(
          sampleLognormal({
            mu: Math.log(t.median),
            sigma: sigmaOf(t.mean, t.median),
            mean: t.mean,
            median: t.median,
            min: t.min,
            max: t.max,
          }, this.#rng),
        ),
        t.min,
      ),
      t.max,
    );
    for (let attempt = 0; attempt < (t.maxSessionAttempts ?? 1); attempt++) {
      const index = this.#sessionCounter++;
      const sessionId = this.#sessionId();
      const group = this.#group();
      const initial = this.#initialContext();
      if (initial >= this.#c.maxPromptTokens) continue;
      const turns = [this.#firstTurn(index, group, initial)];
      let realized = true;
      for (let k = 1; k < target; k++) {
        const prev = turns[k - 1];
        const delayMs = this.#delay(prev.inputLength);
        const newTokens = this.#newTokenCount();
        const input = prev.inputLength + prev.outputLength + newTokens;
        if (input >= this.#c.maxPromptTokens) {
          if (t.allowTruncation) {
            return { sessionId, groupId: group, turns, endReason: "forced_retire", isRestartContinuation: false };
          }
          realized = false;
          break;
        }
        turns.push({
          turnIndex: k,
          inputLength: input,
          outputLength: this.#output(),
          newTokens,
          delayMs,
          timestampMs: prev.timestampMs + delayMs,
          hashIds: this.#alloc.turnHashIds(index, group, input, this.#alloc.sessionIds(prev.hashIds)),
        });
      }
      if (realized) {
        return { sessionId, groupId: group, turns, endReason: "target_turn_count", isRestartContinuation: false };
      }
    }
    throw new RangeError(
      `no session of ${target} turns fits under max_prompt_tokens=${this.#c.maxPromptTokens} after ` +
        `${t.maxSessionAttempts} attempts; lower turns or raise max_prompt_tokens`,
    );
  }
}

function sigmaOf(mean: number, median: number): number {
  return mean / median > 1 ? Math.sqrt(2 * Math.log(mean / median)) : 0;
}

/**
 * The sessions as Mooncake trace rows, AIPerf's way: a session's turns in order under its `session_id`; turn 0 with
 * its whole initial context, `timestamp` 0, `group_id` (and `is_restart` on a continuation); each later turn only its
 * new tokens (`input_length`), `ceil(new / block)` fresh ids from a dataset-wide counter, and its `delay`.
 */
export function* mooncakeRows(sessions: readonly SynthesizedSession[], blockSize: number): Generator<string> {
  let next = 0;
  for (const s of sessions) {
    for (const t of s.turns) {
      let ids: readonly number[];
      if (t.turnIndex === 0) {
        ids = t.hashIds;
        if (ids.length > 0) next = Math.max(next, Math.max(...ids) + 1);
      } else {
        const n = Math.ceil(t.newTokens / blockSize);
        ids = Array.from({ length: n }, (_, i) => next + i);
        next += n;
      }
      const row: Record<string, unknown> = {
        session_id: s.sessionId,
        input_length: t.newTokens,
        output_length: t.outputLength,
        hash_ids: ids,
      };
      if (t.turnIndex === 0) {
        row.timestamp = Math.round(t.timestampMs * 10) / 10;
        row.group_id = s.groupId;
        if (s.isRestartContinuation) row.is_restart = true;
      } else row.delay = Math.round(t.delayMs * 10) / 10;
      yield JSON.stringify(row);
    }
  }
}
