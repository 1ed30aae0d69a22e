/**
 * AIPerf's trace synthesis on `profile` (`--synthesis-*`): a hash-id trace (mooncake_trace, bailian_trace,
 * burst_gpt_trace) is reshaped before it is replayed, as AIPerf 0.13's trace loaders do it:
 *
 * 1. `--synthesis-max-isl`: lines whose `input_length` is above it are left out (before anything else).
 * 2. When a multiplier or the speed-up differs from 1 (AIPerf's "meaningful synthesis"), every line, in session
 *    order:
 *    - its shared prefix is the run of leading `hash_ids` that occur more than once in the whole trace; the rest of
 *      its `input_length` is its own prompt (an `input_length` below the prefix's blocks is an error, file:line);
 *    - `--synthesis-prefix-len-multiplier` m: m > 1 stretches each prefix block h into `floor(m)` blocks
 *      `h·floor(m) … h·floor(m)+floor(m)−1`, then adds new blocks up to `ceil(blocks·m)`; m < 1 keeps the first
 *      `max(1, floor(blocks·m))` blocks;
 *    - `--synthesis-prompt-len-multiplier` p: the own prompt becomes `floor(prompt·p)` tokens in
 *      `ceil(that / block)` new blocks (ids above every id used so far);
 *    - `input_length` = new prefix blocks · block + new prompt tokens, capped at `--synthesis-max-isl`;
 *    - `--synthesis-prefix-root-multiplier` r > 1: each line is moved, at random (seeded), into one of r copies
 *      of the id space (offset by `k · (largest id + 1)`), so r independent prefix trees share the load;
 *    - `timestamp` becomes `floor(timestamp / --synthesis-speedup-ratio)` (a `delay` is left as it is);
 *    - `output_length` becomes `max(1, round_half_even(output · --synthesis-output-len-multiplier))`.
 *    A line without `hash_ids` keeps its `input_length` (capped at the max ISL); a line with its prompt as text,
 *    messages or a payload keeps its input.
 * 3. `--synthesis-max-osl`: every `output_length` above it is cut to it.
 */
import type { SeededRandom } from "../base/seeded_random.ts";
import { DatasetError } from "./dataset_error.ts";
import type { Turn } from "./conversation.ts";

/** The `--synthesis-*` values; absent ones are AIPerf's defaults (identity, no cap). */
export interface TraceSynthesisParams {
  readonly speedupRatio?: number;
  readonly prefixLenMultiplier?: number;
  readonly prefixRootMultiplier?: number;
  readonly promptLenMultiplier?: number;
  readonly outputLenMultiplier?: number;
  readonly maxIsl?: number;
  readonly maxOsl?: number;
}

/** One trace line as synthesis sees it: its turn, and the length and blocks its prompt is built from. */
export interface SynthesisLine {
  readonly line: number;
  readonly turn: Turn;
  readonly synth?: { readonly length: number; readonly hashIds: readonly number[] };
}

/** The option keys of `--synthesis-*` (declared by the hash-id trace formats). */
export const SYNTHESIS_KEYS = {
  speedupRatio: "synthesisSpeedupRatio",
  prefixLenMultiplier: "synthesisPrefixLenMultiplier",
  prefixRootMultiplier: "synthesisPrefixRootMultiplier",
  promptLenMultiplier: "synthesisPromptLenMultiplier",
  outputLenMultiplier: "synthesisOutputLenMultiplier",
  maxIsl: "synthesisMaxIsl",
  maxOsl: "synthesisMaxOsl",
} as const satisfies Record<keyof TraceSynthesisParams, string>;

/** The `--synthesis-*` values out of the run's option values. */
export function synthesisParams(options: Readonly<Record<string, unknown>> | undefined): TraceSynthesisParams {
  const out: Record<string, number> = {};
  for (const [name, key] of Object.entries(SYNTHESIS_KEYS)) {
    const value = options?.[key];
    if (typeof value === "number") out[name] = value;
  }
  return out;
}

/** Whether the multipliers or the speed-up change anything (the caps alone filter and cut, nothing more). */
export function reshapes(p: TraceSynthesisParams): boolean {
  return (p.speedupRatio ?? 1) !== 1 || (p.prefixLenMultiplier ?? 1) !== 1 || (p.prefixRootMultiplier ?? 1) !== 1 ||
    (p.promptLenMultiplier ?? 1) !== 1 || (p.outputLenMultiplier ?? 1) !== 1;
}

/** Python's `round()`: halves go to the even neighbour (AIPerf rounds scaled output lengths so). */
export function roundHalfEven(x: number): number {
  const floor = Math.floor(x);
  const diff = x - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

/**
 * The trace's lines after synthesis, in the order given (sessions grouped, as AIPerf flattens them). `rng` draws
 * the prefix tree of each line when `prefixRootMultiplier` > 1; `blockSize` is the format's tokens per hash block.
 */
export function synthesizeTrace<L extends SynthesisLine>(
  path: string,
  lines: readonly L[],
  p: TraceSynthesisParams,
  blockSize: number,
  rng: SeededRandom,
): L[] {
  const maxIsl = p.maxIsl;
  let kept = maxIsl === undefined ? [...lines] : lines.filter((l) => l.synth === undefined || l.synth.length <= maxIsl);
  if (kept.length === 0) {
    throw new DatasetError(path, undefined, `--synthesis-max-isl ${maxIsl} leaves out every line; raise it`);
  }
  if (reshapes(p)) kept = reshape(path, kept, p, blockSize, rng);
  const maxOsl = p.maxOsl;
  if (maxOsl === undefined) return kept;
  return kept.map((l) =>
    l.turn.maxTokens !== undefined && l.turn.maxTokens > maxOsl ? { ...l, turn: { ...l.turn, maxTokens: maxOsl } } : l
  );
}

function reshape<L extends SynthesisLine>(
  path: string,
  lines: readonly L[],
  p: TraceSynthesisParams,
  block: number,
  rng: SeededRandom,
): L[] {
  const prefixMult = p.prefixLenMultiplier ?? 1;
  const promptMult = p.promptLenMultiplier ?? 1;
  const rootMult = p.prefixRootMultiplier ?? 1;
  const speedup = p.speedupRatio ?? 1;
  const outputMult = p.outputLenMultiplier ?? 1;
  // Ids seen more than once, anywhere in the trace, are the shared prefixes.
  const seen = new Map<number, number>();
  for (const l of lines) for (const h of l.synth?.hashIds ?? []) seen.set(h, (seen.get(h) ?? 0) + 1);
  let maxShared = 0;
  let anyShared = false;
  for (const [h, n] of seen) {
    if (n > 1 && (!anyShared || h > maxShared)) [maxShared, anyShared] = [h, true];
  }
  const stretch = prefixMult > 1 ? Math.trunc(prefixMult) : 1;
  // New ids start above the stretched shared ids.
  let maxId = (maxShared + 1) * stretch;
  const blocks: (number[] | undefined)[] = [];
  const lengths: number[] = [];
  for (const l of lines) {
    const ids = l.synth?.hashIds;
    if (l.synth === undefined || ids === undefined || ids.length === 0) {
      blocks.push(undefined);
      lengths.push(l.synth?.length ?? 0);
      continue;
    }
    const prefix: number[] = [];
    for (const h of ids) {
      if ((seen.get(h) ?? 0) > 1) prefix.push(h);
      else break;
    }
    const prefixLen = prefix.length * block;
    const promptLen = l.synth.length - prefixLen;
    if (promptLen < 0) {
      throw new DatasetError(
        path,
        l.line,
        `input_length ${l.synth.length} is below its ${prefix.length} shared prefix blocks of ${block} tokens ` +
          `(${prefixLen}); synthesis needs at least the prefix's tokens`,
      );
    }
    let out: number[];
    let newPrefixLen: number;
    if (prefixMult > 1) {
      out = prefix.flatMap((h) => Array.from({ length: stretch }, (_, j) => h * stretch + j));
      const extra = Math.ceil(prefix.length * prefixMult) - out.length;
      for (let i = 1; i <= extra; i++) out.push(maxId + i);
      if (extra > 0) maxId += extra;
      newPrefixLen = out.length * block;
    } else if (prefixMult < 1) {
      const keep = Math.max(1, Math.trunc(prefix.length * prefixMult));
      out = prefix.slice(0, keep);
      newPrefixLen = keep * block;
    } else {
      out = [...prefix];
      newPrefixLen = prefixLen;
    }
    const newPromptLen = Math.trunc(promptLen * promptMult);
    const promptBlocks = Math.ceil(newPromptLen / block);
    for (let i = 1; i <= promptBlocks; i++) out.push(maxId + i);
    maxId += promptBlocks;
    blocks.push(out);
    lengths.push(newPrefixLen + newPromptLen);
  }
  if (rootMult > 1) {
    const base = maxId + 1;
    blocks.forEach((ids, i) => {
      if (ids === undefined) return;
      const tree = rng.int(rootMult);
      if (tree > 0) blocks[i] = ids.map((h) => h + tree * base);
    });
  }
  return lines.map((l, i) => {
    const turn: { -readonly [K in keyof Turn]: Turn[K] } = { ...l.turn };
    if (turn.timestampMs !== undefined) turn.timestampMs = Math.trunc(turn.timestampMs / speedup);
    if (turn.maxTokens !== undefined) turn.maxTokens = Math.max(1, roundHalfEven(turn.maxTokens * outputMult));
    if (l.synth === undefined) return { ...l, turn };
    const ids = blocks[i];
    let length = ids === undefined ? l.synth.length : lengths[i];
    if (p.maxIsl !== undefined && length > p.maxIsl) length = p.maxIsl;
    return { ...l, turn, synth: { length, hashIds: ids ?? [] } };
  });
}
