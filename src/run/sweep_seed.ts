/**
 * The seed of one run of a sweep point or a repeated run, as AIPerf 0.13 derives it:
 * - the base: `--random-seed`, else 42 when `--set-consistent-seed` (the default) and there is more than one run;
 * - point N of a sweep adds N (`--parameter-sweep-same-seed`: every point takes the base);
 * - `--vary-seed-per-trial`: SHA-256 over `"<base>:variation:<point label>:trial:<run index>"`, so every run of a
 *   point samples its own inputs and the same (point, run) always gets the same seed. AIPerf keeps the first 63 bits
 *   of the digest; infermeter keeps the first 53 (a seed must be an exact number here).
 */
import { createHash } from "node:crypto";

/** Seed used for repeated runs when none is given (AIPerf `--set-consistent-seed`). */
export const CONSISTENT_SEED = 42;

export interface SeedInputs {
  readonly randomSeed?: number;
  readonly setConsistentSeed: boolean;
  readonly parameterSweepSameSeed: boolean;
  readonly varySeedPerTrial: boolean;
}

/** The base seed of a run of several profiles, or undefined when runs draw their own. */
export function baseSeed(c: SeedInputs, multiple: boolean): number | undefined {
  return c.randomSeed ?? (multiple && c.setConsistentSeed ? CONSISTENT_SEED : undefined);
}

/** SHA-256 of `"<root>:variation:<label>"`, its first 53 bits as a number. */
export function deriveVariationSeed(root: number, label: string): number {
  const digest = createHash("sha256").update(`${root}:variation:${label}`, "utf8").digest();
  let value = 0;
  for (let i = 0; i < 7; i++) value = value * 256 + digest[i];
  return Math.floor(value / 8); // 56 bits → 53
}

/**
 * The seed of run `trial` (0-based) of point `index` (labelled `label`) of a sweep (`sweep`), or of a repeated run;
 * undefined when the run draws its own.
 */
export function runSeed(
  c: SeedInputs,
  point: { readonly index: number; readonly label: string },
  trial: number,
  shape: { readonly sweep: boolean; readonly trials: number },
): number | undefined {
  const base = baseSeed(c, shape.sweep || shape.trials > 1);
  if (base === undefined) return undefined;
  if (c.varySeedPerTrial) return deriveVariationSeed(base, `${point.label}:trial:${trial}`);
  return shape.sweep && !c.parameterSweepSameSeed ? base + point.index : base;
}
