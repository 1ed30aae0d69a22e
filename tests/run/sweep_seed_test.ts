import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { deriveVariationSeed, runSeed, type SeedInputs } from "../../src/run/sweep_seed.ts";

const defaults: SeedInputs = { setConsistentSeed: true, parameterSweepSameSeed: false, varySeedPerTrial: false };
const sweep = { sweep: true, trials: 1 };

Deno.test("sweep seeds follow AIPerf: base 42 (or --random-seed) plus the point's index, or the same seed", () => {
  assert.equal(runSeed(defaults, { index: 2, label: "concurrency_8" }, 0, sweep), 44);
  assert.equal(runSeed({ ...defaults, randomSeed: 100 }, { index: 2, label: "c" }, 0, sweep), 102);
  assert.equal(runSeed({ ...defaults, parameterSweepSameSeed: true }, { index: 2, label: "c" }, 0, sweep), 42);
  assert.equal(runSeed({ ...defaults, setConsistentSeed: false }, { index: 2, label: "c" }, 0, sweep), undefined);
  // Repeated runs of one profile share the base seed; one run alone draws its own.
  assert.equal(runSeed(defaults, { index: 0, label: "base" }, 3, { sweep: false, trials: 4 }), 42);
  assert.equal(runSeed(defaults, { index: 0, label: "base" }, 0, { sweep: false, trials: 1 }), undefined);
});

Deno.test("--vary-seed-per-trial gives each (point, run) its SHA-256 seed over AIPerf's string", () => {
  const c = { ...defaults, varySeedPerTrial: true, randomSeed: 7 };
  const s0 = runSeed(c, { index: 1, label: "concurrency_4" }, 0, { sweep: true, trials: 3 })!;
  const s1 = runSeed(c, { index: 1, label: "concurrency_4" }, 1, { sweep: true, trials: 3 })!;
  assert.notEqual(s0, s1);
  assert.equal(s0, runSeed(c, { index: 1, label: "concurrency_4" }, 0, { sweep: true, trials: 3 }));
  const digest = createHash("sha256").update("7:variation:concurrency_4:trial:0").digest();
  const top53 = Number(digest.readBigUInt64BE(0) >> 11n);
  assert.equal(s0, top53);
  assert.equal(deriveVariationSeed(7, "concurrency_4:trial:0"), top53);
  assert.ok(Number.isSafeInteger(s0));
});
