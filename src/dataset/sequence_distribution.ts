/**
 * `--seq-dist`: a mixture of (ISL, OSL) pairs with percentage weights (AIPerf's `DistributionParser`). Three
 * spellings: `256,128:40;512|20,256|10:60` (optional `|stddev`), `[(256,128):40,(512,256):60]`, and
 * `{"pairs": [{"isl": 256, "isl_stddev": 10, "osl": 128, "osl_stddev": 5, "prob": 40}, …]}`. Percentages must sum
 * to 100 (±1e-6).
 *
 * Sampling, per turn: `u` uniform in [0, 1); the pair is the first whose cumulative share (`Σ prob / 100`) exceeds
 * `u` (numpy `searchsorted(…, side="right")`, the last pair past the end); a length with a standard deviation is
 * `max(1, ceil(Normal(mean, stddev)))` (AIPerf `sample_positive_normal_integer`), else the mean.
 */
import type { SeededRandom } from "../base/seeded_random.ts";

export interface SequencePair {
  readonly isl: number;
  readonly osl: number;
  /** Percent, 0–100. */
  readonly prob: number;
  readonly islStddev: number;
  readonly oslStddev: number;
}

const NUM = String.raw`(?:\d+(?:\.\d+)?|\.\d+)`;
const PAIR = new RegExp(String.raw`^(\d+)(?:\|(${NUM}))?\s*,\s*(\d+)(?:\|(${NUM}))?\s*:\s*(${NUM})$`);
const BRACKET = new RegExp(String.raw`\(\s*(\d+)(?:\|(${NUM}))?\s*,\s*(\d+)(?:\|(${NUM}))?\s*\)\s*:\s*(${NUM})`, "g");

function pair(isl: number, islSd: number, osl: number, oslSd: number, prob: number): SequencePair {
  if (!(isl > 0) || !(osl > 0)) throw new RangeError(`ISL and OSL must be positive, got (${isl}, ${osl})`);
  if (!(prob >= 0 && prob <= 100)) throw new RangeError(`a probability must be a percentage 0–100, got ${prob}`);
  if (!(islSd >= 0) || !(oslSd >= 0)) throw new RangeError("standard deviations must be ≥ 0");
  return { isl, osl, prob, islStddev: islSd, oslStddev: oslSd };
}

function fromGroups(g: (string | undefined)[]): SequencePair {
  return pair(Number(g[0]), Number(g[1] ?? 0), Number(g[2]), Number(g[3] ?? 0), Number(g[4]));
}

/**
 * The pairs of a `--seq-dist` value.
 * @throws {RangeError} naming the value and what is wrong with it.
 */
export function parseSequenceDistribution(value: string): SequencePair[] {
  const text = value.trim();
  try {
    if (text === "") throw new RangeError("it is empty");
    let pairs: SequencePair[];
    if (text.startsWith("{")) {
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch (err) {
        throw new RangeError(`invalid JSON (${(err as Error).message})`);
      }
      const list = (data as { pairs?: unknown }).pairs;
      if (!Array.isArray(list)) throw new RangeError('the JSON form needs a "pairs" list');
      pairs = list.map((p: Record<string, unknown>, i) => {
        for (const k of ["isl", "osl", "prob"]) if (!(k in p)) throw new RangeError(`pair ${i} has no "${k}"`);
        return pair(
          Math.trunc(Number(p.isl)),
          Number(p.isl_stddev ?? 0),
          Math.trunc(Number(p.osl)),
          Number(p.osl_stddev ?? 0),
          Number(p.prob),
        );
      });
    } else if (text.startsWith("[") && text.endsWith("]")) {
      pairs = [...text.slice(1, -1).matchAll(BRACKET)].map((m) => fromGroups(m.slice(1)));
    } else {
      pairs = text.split(";").map((s) => s.trim()).filter((s) => s !== "").map((s) => {
        const m = PAIR.exec(s);
        if (m === null) throw new RangeError(`'${s}' is not ISL[|STDDEV],OSL[|STDDEV]:PERCENT`);
        return fromGroups(m.slice(1));
      });
    }
    if (pairs.length === 0) throw new RangeError("it has no pairs");
    const total = pairs.reduce((sum, p) => sum + p.prob, 0);
    if (Math.abs(total - 100) > 1e-6 + 1e-6 * 100) {
      throw new RangeError(`the percentages sum to ${total}, not 100`);
    }
    return pairs;
  } catch (err) {
    throw new RangeError(
      `--seq-dist '${value}': ${(err as Error).message}. Expected e.g. '128,64:25;512|20,128|5:75', ` +
        "'[(256,128):40,(512,256):60]' or a JSON {\"pairs\": [...]} with percentages summing to 100.",
    );
  }
}

/** One (ISL, OSL) draw from the mixture. */
export function sampleSequencePair(pairs: readonly SequencePair[], rng: SeededRandom): [number, number] {
  const u = rng.next();
  let cumulative = 0;
  let chosen = pairs[pairs.length - 1];
  for (const p of pairs) {
    cumulative += p.prob / 100;
    if (cumulative > u) {
      chosen = p;
      break;
    }
  }
  const draw = (mean: number, sd: number) => sd > 0 ? Math.max(1, Math.ceil(Math.max(0, rng.normal(mean, sd)))) : mean;
  return [draw(chosen.isl, chosen.islStddev), draw(chosen.osl, chosen.oslStddev)];
}
